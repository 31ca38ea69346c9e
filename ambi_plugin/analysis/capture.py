"""Record every head's output (the o_proj input, split per head) at chosen token positions.

Positions (``--position``):

* ``last_prompt`` (default, PROTOCOL): the last prompt token, i.e. the state from which the first answer token is
  predicted;
* ``mean_prompt``: the mean over all prompt tokens (image tokens included);
* ``mean_generated``: the mean over the generated tokens (each decoding step's new position);
* an integer ``k``: prompt position ``k`` (negative counts from the end: ``-1`` is ``last_prompt``); a position
  outside the prompt is refused with its length. The capture run compares two prompts of different lengths and takes
  negative positions only (:mod:`ambi_plugin.analysis.positions`, which also reads a position: :func:`parse_position`).

One generation is one item: call :meth:`HeadRecorder.start` before it and :meth:`HeadRecorder.result` after it. The
recorder assumes one sequence per generation (batch size 1, which is how the capture drives the backend).

Cost: at a prompt position every recording function is prefill-only, so each layer's hook removes itself after the
prompt and nothing of ours runs while the model decodes. ``mean_generated`` adds each step's vector into one float32
buffer per layer, kept on that layer's device and reused from item to item (no copy per step, no transfer to the
host); :meth:`result` divides by the number of steps and moves everything to the CPU once, as
``[layers, heads, head_dim]``.

On disk (:func:`to_storage` / :func:`from_storage`) the vectors are kept at 16 bits, ``bfloat16`` by default (the
dtype the paper's models run in; stored as its raw bits, numpy has no bfloat16) or ``float16``, with the dtype
written next to them; ``float32`` is the lossless choice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ambi_plugin.analysis.hooks import CallState, HookSet
from ambi_plugin.analysis.positions import check_in_range, parse_position

__all__ = ["STORE_DTYPES", "HeadRecorder", "from_storage", "to_storage"]

STORE_DTYPES = ("bfloat16", "float16", "float32")


class HeadRecorder:
    """Adds one recording function per layer to a :class:`HookSet`; collects ``[layers, heads, head_dim]``."""

    def __init__(self, hooks: HookSet, *, position: str | int = "last_prompt") -> None:
        self.hooks = hooks
        self.position = parse_position(position)
        self._buf: dict[int, Any] = {}  # layer -> [heads, head_dim] float32 on the layer's device, reused
        self._steps: dict[int, int] = {}  # layer -> vectors summed into the buffer for this item (a Python int)
        prefill_only = self.position != "mean_generated"
        for layer in range(hooks.layout.n_layers):
            hooks.add(layer, self._fn(layer), prefill_only=prefill_only)

    def _buffer(self, layer: int, x4: Any) -> Any:
        buf = self._buf.get(layer)
        if buf is None or buf.device != x4.device or buf.shape != x4.shape[-2:]:
            import torch

            buf = self._buf[layer] = torch.empty(x4.shape[-2:], dtype=torch.float32, device=x4.device)
        return buf

    def _fn(self, layer: int):
        pos = self.position

        def record(x4, state: CallState):
            if pos == "mean_generated":
                if state.prefill:
                    return None
                buf, v = self._buffer(layer, x4), x4[0, -1].detach()
                if self._steps.get(layer, 0):
                    buf.add_(v)
                else:
                    buf.copy_(v)
                self._steps[layer] = self._steps.get(layer, 0) + 1
                return None
            if not state.prefill:
                return None
            if pos == "last_prompt":
                v = x4[0, -1]
            elif pos == "mean_prompt":
                v = x4[0].float().mean(0)
            else:
                check_in_range(pos, x4.shape[1], "the prompt")
                v = x4[0, pos]
            self._buffer(layer, x4).copy_(v.detach())
            self._steps[layer] = 1
            return None

        return record

    def start(self) -> None:
        """Forget the previous item; the next forward call is this item's prompt."""
        self._steps.clear()
        self.hooks.reset()

    def result(self, dtype: Any = np.float32) -> np.ndarray:
        """The item's activations ``[layers, heads, head_dim]`` on the CPU (one transfer per device)."""
        layout = self.hooks.layout
        missing = [i for i in range(layout.n_layers) if not self._steps.get(i)]
        if missing:
            raise RuntimeError(
                f"no activation recorded for layers {missing} at position {self.position!r} (did the model run? "
                "'mean_generated' needs at least one generated token after the first)"
            )
        import torch

        by_device: dict[Any, list[int]] = {}
        for i in range(layout.n_layers):
            by_device.setdefault(self._buf[i].device, []).append(i)
        rows: dict[int, Any] = {}
        for layers in by_device.values():
            block = torch.stack([self._buf[i] / self._steps[i] for i in layers]).to("cpu")
            rows.update(zip(layers, block))
        return torch.stack([rows[i] for i in range(layout.n_layers)]).numpy().astype(dtype, copy=False)


def to_storage(acts: np.ndarray, dtype: str = "bfloat16") -> np.ndarray:
    """``acts`` as stored on disk in ``dtype`` (one of :data:`STORE_DTYPES`; bfloat16 as its raw uint16 bits)."""
    if dtype not in STORE_DTYPES:
        raise ValueError(f"Expected argument `store_dtype` to be one of {STORE_DTYPES} but got {dtype!r}")
    acts = np.asarray(acts, dtype=np.float32)
    if dtype == "float32":
        return acts
    if dtype == "float16":
        return acts.astype(np.float16)
    import torch

    return torch.from_numpy(np.ascontiguousarray(acts)).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)


def from_storage(stored: np.ndarray, dtype: str | None) -> np.ndarray:
    """float32 activations from what :func:`to_storage` wrote (``dtype`` None: an older float32 file)."""
    if dtype in (None, "", "float32", "float16"):
        return np.asarray(stored, dtype=np.float32)
    if dtype == "bfloat16":
        return (np.asarray(stored, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
    raise ValueError(f"activations stored as {dtype!r}: expected one of {STORE_DTYPES}")
