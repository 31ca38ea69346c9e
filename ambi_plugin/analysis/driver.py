"""The model driver the switch-head analysis runs requests through, and the process layout (rank, shard, gather).

Analysis never imports a harness: a driver is HANDED IN by the adapter. A *driver factory* ``factory(lm,
gen_kwargs=...) -> driver`` (``driver.generate(prompt, images) -> str``, through the model backend's own request
path) is installed with :func:`set_driver_factory`; ``ambi_plugin.lmms.analysis_driver`` installs lmms-eval's
(``BackendModel``) when it is imported, as it is by whoever builds the model (its ``load_backend``).
:func:`model_driver` builds one for a model; with no factory installed it raises :class:`NoDriverError`.

The process layout (``torch.distributed`` when initialised, else the model's ``rank`` / ``world_size``) needs no
harness: :func:`rank_and_world`, :func:`is_main_process`, :func:`shard`, :func:`gather`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

DriverFactory = Callable[..., Any]  # (lm, *, gen_kwargs=None) -> an object with generate(prompt, images) -> str

_factory: DriverFactory | None = None


class NoDriverError(RuntimeError):
    """Analysis was asked to run a model with no model driver handed in."""


def set_driver_factory(factory: DriverFactory | None) -> DriverFactory | None:
    """Install the adapter's driver factory (None: remove it); returns the one it replaces."""
    global _factory
    old, _factory = _factory, factory
    return old


def driver_factory() -> DriverFactory | None:
    return _factory


def model_driver(lm: Any, *, gen_kwargs: dict[str, Any] | None = None) -> Any:
    """A driver for the model backend ``lm`` (the installed factory's)."""
    if _factory is None:
        raise NoDriverError(
            "no model driver: import ambi_plugin.lmms.analysis_driver (load_backend builds the model and installs "
            "lmms-eval's driver), or install one with ambi_plugin.analysis.driver.set_driver_factory"
        )
    return _factory(lm, gen_kwargs=gen_kwargs)


def _dist():
    try:
        import torch.distributed as dist
    except ImportError:  # pragma: no cover
        return None
    return dist if dist.is_available() and dist.is_initialized() else None


def rank_and_world(lm: Any = None) -> tuple[int, int]:
    dist = _dist()
    if dist is not None:
        return dist.get_rank(), dist.get_world_size()
    return int(getattr(lm, "rank", 0) or 0), int(getattr(lm, "world_size", 1) or 1)


def is_main_process(lm: Any = None) -> bool:
    return rank_and_world(lm)[0] == 0


def shard(items: Sequence[Any], lm: Any = None) -> list[Any]:
    """This process's share of ``items`` (every ``world``-th item from ``rank``)."""
    rank, world = rank_and_world(lm)
    return list(items[rank::world])


def gather(obj: Any) -> list[Any]:
    """Every process's ``obj`` (``torch.distributed.all_gather_object`` when initialised, else ``[obj]``)."""
    dist = _dist()
    if dist is None:
        return [obj]
    out: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out
