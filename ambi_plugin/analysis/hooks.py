"""One context manager owns every hook the analysis adds, and removes them all in ``finally``.

Hooks are forward pre-hooks on the language model's ``o_proj`` modules, named by module path (``HookSet.names``).
Each layer gets at most one torch hook; it views the o_proj input as ``[batch, seq, n_heads, head_dim]`` and runs the
layer's *head functions* in the order they were added. A head function receives ``(x4, state)`` where ``state`` says
whether this forward call is the prompt (prefill) or a decoding step, and returns ``None`` (it only looked: a
recorder) or a new ``[B, S, H, D]`` tensor (an edit: scaling, shifting). The hook returns modified arguments only when
some function edited, so a hook set that only records leaves the computation untouched.

    with HookSet(model) as hooks:
        hooks.add(layer=3, fn=record)
        model.generate(...)
    assert not remaining_hooks(model)

Cost during decoding: a function added with ``prefill_only=True`` only needs the prompt (prefill) call. When every
function of a layer is prefill-only, the layer's hook removes itself right after that call, so no Python runs on
that layer while the model decodes (at batch 1 on a GPU, decoding is launch-bound and every Python call per layer per
step adds to the time). :meth:`HookSet.reset` (the start of the next generation) puts it back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ambi_plugin.analysis.heads import DEFAULT_PATTERN, HeadLayout, find_head_modules, head_layout, unwrap_model

__all__ = ["CallState", "HeadFn", "HookSet", "mark_owned", "remaining_hooks"]

_OWNER = "__ambi_switch_hook__"


@dataclass
class CallState:
    """Where a forward call is: ``call`` counts o_proj calls of this layer since the last :meth:`HookSet.reset`."""

    layer: int
    call: int

    @property
    def prefill(self) -> bool:
        return self.call == 0


HeadFn = Callable[[Any, CallState], Any]


class HookSet:
    """Installs per-layer o_proj pre-hooks on ``__enter__``; ``__exit__`` removes every one of them (``finally``)."""

    def __init__(self, model: Any, *, layout: HeadLayout | None = None, pattern: str = DEFAULT_PATTERN) -> None:
        self.model = unwrap_model(model)
        self.layout = layout or head_layout(self.model, pattern=pattern)
        self._modules = {i: mod for i, (_, mod) in find_head_modules(self.model, pattern).items()}
        self._fns: dict[int, list[HeadFn]] = {}
        self._prefill_only: dict[int, bool] = {}
        self._calls: dict[int, int] = {}
        self._handles: dict[int, Any] = {}
        self._entered = False
        self.names: list[str] = []

    def add(self, layer: int, fn: HeadFn, *, prefill_only: bool = False) -> None:
        """Run ``fn`` on layer ``layer``'s per-head o_proj input; call before ``__enter__``. ``prefill_only``: ``fn``
        needs only the prompt (prefill) call; a layer whose functions all say so unhooks itself after that call."""
        if self._entered:
            raise RuntimeError("HookSet.add must be called before the hooks are installed (before `with`)")
        if layer not in self._modules:
            raise ValueError(f"layer {layer} out of range: the model has layers 0..{self.layout.n_layers - 1}")
        self._fns.setdefault(layer, []).append(fn)
        self._prefill_only[layer] = self._prefill_only.get(layer, True) and bool(prefill_only)

    def reset(self) -> None:
        """Start a new generation: the next call of every layer is the prompt (prefill) call; a layer that unhooked
        itself after the previous prompt is hooked again."""
        self._calls.clear()
        if self._entered:
            self._install()

    def _make_hook(self, layer: int):
        fns = self._fns[layer]
        once = self._prefill_only[layer]
        n_heads, head_dim = self.layout.n_heads, self.layout.head_dim

        def hook(module, args):
            x = args[0]
            call = self._calls.get(layer, 0)
            self._calls[layer] = call + 1
            state = CallState(layer, call)
            x4 = x.view(*x.shape[:-1], n_heads, head_dim)
            edited = False
            try:
                for fn in fns:
                    out = fn(x4, state)
                    if out is not None:
                        x4, edited = out, True
            finally:
                if once:  # nothing left to do on this layer until the next reset(): no Python while decoding
                    handle = self._handles.pop(layer, None)
                    if handle is not None:
                        handle.remove()
            if not edited:
                return None
            return (x4.reshape(x.shape), *args[1:])

        return mark_owned(hook)

    def _install(self) -> None:
        for layer in sorted(self._fns):
            if layer not in self._handles:
                self._handles[layer] = self._modules[layer].register_forward_pre_hook(self._make_hook(layer))

    def __enter__(self) -> HookSet:
        self._calls.clear()
        self._entered = True
        try:
            self._install()
            self.names = [self.layout.names[layer] for layer in sorted(self._fns)]
        except BaseException:
            self._remove()
            raise
        return self

    def _remove(self) -> None:
        try:
            for handle in self._handles.values():
                handle.remove()
        finally:
            self._handles.clear()
            self.names.clear()
            self._entered = False

    def __exit__(self, *exc: object) -> None:
        self._remove()


def mark_owned(hook: Any) -> Any:
    """Mark a torch hook function as installed by this package, so :func:`remaining_hooks` finds it."""
    setattr(hook, _OWNER, True)
    return hook


def remaining_hooks(model: Any) -> list[str]:
    """Names of modules that still carry a forward or forward-pre hook marked by :func:`mark_owned` (the hooks of
    :class:`HookSet` and of the A.8 attention capture); should always be empty after a run."""
    out = []
    for name, module in unwrap_model(model).named_modules():
        hooks = [*module._forward_pre_hooks.values(), *module._forward_hooks.values()]
        if any(getattr(h, _OWNER, False) for h in hooks):
            out.append(name)
    return out
