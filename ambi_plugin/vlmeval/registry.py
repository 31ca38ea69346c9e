"""Put our tasks and the replay model into VLMEvalKit, which has no plugin mechanism.

:func:`register` generates a dataset class for every task we index (:class:`ambi_plugin.runtime.task.Task`, read
from its YAML by the runtime, so VIA-Bench, RCID or a new category are covered as soon as their YAMLs exist), then,
in place:

* inserts each class into ``vlmeval.dataset.DATASET_CLASSES`` (what ``build_dataset`` walks) and its
  name into ``SUPPORTED_DATASETS``;
* sets each class as an attribute of ``vlmeval.dataset`` (``run.py --config`` accepts a dataset
  ``class`` only if it is one), e.g. ``{"class": "AmbiSynthGeometricTf"}``;
* adds ``ambi_replay`` to ``vlmeval.config.supported_VLM`` and ``AmbiReplayVLM`` to ``vlmeval.vlm``;
* wraps ``set_dump_image`` of VLMEvalKit's model bases so that a dataset of ours learns which model
  answers it (an item with several images is refused for a model with ``INTERLEAVE = False``, which
  would get only the first image); nothing changes for other datasets.

It is idempotent, and refuses (naming the task) a class name VLMEvalKit already uses for something else,
and a task name that is not ours (with suggestions).
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

    from ambi_plugin.runtime.task import all_tasks
    from ambi_plugin.vlmeval.dataset import AmbiTaskDataset, make_dataset_class
    from ambi_plugin.vlmeval.replay import AmbiReplayVLM

    known = all_tasks()
    wanted = known if tasks is None else {t: known[t] for t in _known(tasks, known)}
    for name, task in wanted.items():
        if name in _REGISTERED:
            continue
        cls = make_dataset_class(task)
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
    _hook_models()
    return {name: _REGISTERED[name] for name in wanted}


def _known(tasks: list[str], known: dict) -> list[str]:
    """``tasks`` with our groups expanded; an unknown name fails with suggestions."""
    import difflib

    from ambi_plugin.runtime.taskindex import expand_groups

    names = expand_groups(list(tasks), keep_unknown=True)
    unknown = [n for n in names if n not in known]
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(known), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else " `ambi tasks` lists them."
        raise RegistrationError(f"register(tasks=...): {unknown[0]!r} is not a task or group of ours.{hint}")
    return names


def _hook_models() -> None:
    """Let our datasets see which model answers them: ``set_dump_image(dataset.dump_image)`` is what
    VLMEvalKit's inference calls on every model (local and API) before it asks the first question. The
    wrapper only adds a call when the function belongs to a dataset of ours; for any other dataset
    ``set_dump_image`` does exactly what it did."""
    from vlmeval.api.base import BaseAPI
    from vlmeval.vlm.base import BaseModel

    from ambi_plugin.vlmeval.dataset import AmbiTaskDataset

    for base in (BaseModel, BaseAPI):
        original = base.set_dump_image
        if getattr(original, "_ambi_hook", False):
            continue

        def set_dump_image(self, dump_image_func, _original=original):
            _original(self, dump_image_func)
            owner = getattr(dump_image_func, "__self__", None)
            if isinstance(owner, AmbiTaskDataset):
                owner.serve(self)

        set_dump_image._ambi_hook = True
        base.set_dump_image = set_dump_image


def registered() -> dict[str, type]:
    """The classes registered so far in this process."""
    return dict(_REGISTERED)


__all__ = ["RegistrationError", "VLMEvalKitMissing", "register", "registered", "require_vlmeval"]
