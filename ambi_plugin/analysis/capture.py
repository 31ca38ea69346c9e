"""Record every head's output (the o_proj input, split per head) at chosen token positions.

Positions (``--position``):

* ``last_prompt`` (default, PROTOCOL): the last prompt token, i.e. the state from which the first answer token is
  predicted;
* ``mean_prompt``: the mean over all prompt tokens (image tokens included);
* ``mean_generated``: the mean over the generated tokens (each decoding step's new position);
* an integer ``k``: prompt position ``k`` (negative counts from the end: ``-1`` is ``last_prompt``).

One generation is one item: call :meth:`HeadRecorder.start` before it and :meth:`HeadRecorder.result` after it. The
recorder assumes one sequence per generation (batch size 1, which is how the capture drives the backend). Vectors
stay on the model's device until :meth:`result`, which moves them to the CPU once, as ``[layers, heads, head_dim]``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ambi_plugin.analysis.hooks import CallState, HookSet

__all__ = ["POSITIONS", "HeadRecorder", "parse_position"]

POSITIONS = ("last_prompt", "mean_prompt", "mean_generated")


def parse_position(value: str | int) -> str | int:
    """``last_prompt`` / ``mean_prompt`` / ``mean_generated`` or an integer prompt position."""
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if text in POSITIONS:
        return text
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f"Expected argument `position` to be one of {POSITIONS} or an integer prompt position, but got {value!r}"
        ) from None


class HeadRecorder:
    """Adds one recording function per layer to a :class:`HookSet`; collects ``[layers, heads, head_dim]``."""

    def __init__(self, hooks: HookSet, *, position: str | int = "last_prompt") -> None:
        self.hooks = hooks
        self.position = parse_position(position)
        self._store: dict[int, Any] = {}
        self._counts: dict[int, int] = {}
        for layer in range(hooks.layout.n_layers):
            hooks.add(layer, self._fn(layer))

    def _fn(self, layer: int):
        pos = self.position

        def record(x4, state: CallState):
            v = None
            if state.prefill:
                if pos == "last_prompt":
                    v = x4[0, -1]
                elif pos == "mean_prompt":
                    v = x4[0].float().mean(0)
                elif isinstance(pos, int):
                    v = x4[0, pos]
            elif pos == "mean_generated":
                v = x4[0, -1].float()
            if v is None:
                return None
            v = v.detach()
            if pos == "mean_generated" and layer in self._store:
                self._store[layer] = self._store[layer] + v
                self._counts[layer] += 1
            else:
                self._store[layer] = v.clone()
                self._counts[layer] = 1
            return None

        return record

    def start(self) -> None:
        """Forget the previous item; the next forward call is this item's prompt."""
        self._store.clear()
        self._counts.clear()
        self.hooks.reset()

    def result(self, dtype: Any = np.float32) -> np.ndarray:
        """The item's activations ``[layers, heads, head_dim]`` on the CPU."""
        layout = self.hooks.layout
        missing = [i for i in range(layout.n_layers) if i not in self._store]
        if missing:
            raise RuntimeError(
                f"no activation recorded for layers {missing} at position {self.position!r} (did the model run? "
                "'mean_generated' needs at least one generated token after the first)"
            )
        import torch

        rows = [(self._store[i].float() / self._counts[i]).to("cpu") for i in range(layout.n_layers)]
        return torch.stack(rows).numpy().astype(dtype, copy=False)
