"""Put our tasks and the replay model into VLMEvalKit, which has no plugin mechanism.

:func:`register` generates a dataset class for every task YAML we ship (:mod:`ambi_plugin.vlmeval.spec`,
so VIA-Bench, RCID or a new category are covered as soon as their YAMLs exist), then, in place:

* inserts each class into ``vlmeval.dataset.DATASET_CLASSES`` (what ``build_dataset`` walks) and its
  name into ``SUPPORTED_DATASETS``;
* sets each class as an attribute of ``vlmeval.dataset`` (``run.py --config`` accepts a dataset
  ``class`` only if it is one), e.g. ``{"class": "AmbiSynthGeometricTf"}``;
* adds ``ambi_replay`` to ``vlmeval.config.supported_VLM`` and ``AmbiReplayVLM`` to ``vlmeval.vlm``.

It is idempotent, and refuses (naming the task) a class name VLMEvalKit already uses for something else.
"""

from __future__ import annotations

from functools import partial

_REGISTERED: dict[str, type] = {}


class RegistrationError(RuntimeError):
    """A task of ours cannot be registered with VLMEvalKit."""


class VLMEvalKitMissing(ImportError):
    """VLMEvalKit (``ms-vlmeval``) is not installed."""


def require_vlmeval() -> None:
    """Import VLMEvalKit, or say which extra installs it."""
    try:
        import vlmeval  # noqa: F401
    except ImportError as exc:
        raise VLMEvalKitMissing(
            f"VLMEvalKit is not installed ({exc}); install it with: pip install 'ambi-plugin[vlmeval]' "
            "(the ms-vlmeval package)"
        ) from None


def register(tasks: list[str] | None = None) -> dict[str, type]:
    """Register our tasks (all, or the named ones) and the replay model; returns {task: class}."""
    require_vlmeval()
    import vlmeval.config
    import vlmeval.dataset as vd
    import vlmeval.vlm

    from ambi_plugin.vlmeval.dataset import AmbiTaskDataset, make_dataset_class
    from ambi_plugin.vlmeval.replay import AmbiReplayVLM
    from ambi_plugin.vlmeval.spec import all_specs

    specs = all_specs()
    wanted = specs if tasks is None else {t: specs[t] for t in tasks if t in specs}
    for name, spec in wanted.items():
        if name in _REGISTERED:
            continue
        cls = make_dataset_class(spec)
        clash = getattr(vd, cls.__name__, None)
        if clash is not None and not (isinstance(clash, type) and issubclass(clash, AmbiTaskDataset)):
            raise RegistrationError(f"task {name}: vlmeval.dataset already has {cls.__name__!r}; rename the task")
        if name in vd.SUPPORTED_DATASETS:
            raise RegistrationError(f"task {name}: VLMEvalKit already has a dataset of that name; rename the task")
        vd.DATASET_CLASSES.insert(0, cls)
        vd.SUPPORTED_DATASETS.append(name)
        setattr(vd, cls.__name__, cls)
        _REGISTERED[name] = cls
    vlmeval.config.supported_VLM.setdefault("ambi_replay", partial(AmbiReplayVLM))
    vlmeval.vlm.AmbiReplayVLM = AmbiReplayVLM
    return {name: _REGISTERED[name] for name in wanted}


def registered() -> dict[str, type]:
    """The classes registered so far in this process."""
    return dict(_REGISTERED)


__all__ = ["RegistrationError", "VLMEvalKitMissing", "register", "registered", "require_vlmeval"]
