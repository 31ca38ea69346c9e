"""Token positions that mean the same thing in both prompts of a switched image.

The capture and the patching compare two prompts of different lengths (prompt 2 quotes the first answer and adds the
hint). Both share a prefix (system turn, image, ...), where a causal model computes exactly the same activations, and
they end alike (the chat template's end, e.g. ``<|im_end|>\\n<|im_start|>assistant\\n``). So:

* a **negative** integer ``-k`` counts from the end of each prompt (``-1`` is ``last_prompt``): the same place in both
  when both prompts carry the same token there, which :func:`check_same_token` checks (the chat template's tail);
* a **non-negative** index is refused (:func:`paired_position`): the same absolute index names different tokens in
  prompts of different lengths, lies in the shared prefix (where every head's output is identical in both prompts:
  ``s = 0``, a patch changes nothing) or past the end of the shorter prompt;
* ``mean_prompt`` (each prompt's own mean) and ``mean_generated`` (each answer's own mean) need no index.

Positions relative to the image tokens are not offered: the image sits in the shared prefix, where both prompts
compute the same activations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = [
    "POSITIONS",
    "FirstCallIds",
    "PositionError",
    "check_in_range",
    "check_same_token",
    "paired_position",
    "parse_position",
]

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


class PositionError(ValueError):
    """A token position that does not name the same place in both prompts (or lies outside a prompt)."""


def paired_position(value: str | int) -> str | int:
    """``value`` parsed (see :func:`parse_position`) for a two-prompt analysis: a non-negative integer is refused
    with the reason and what to pass instead."""
    pos = parse_position(value)
    if isinstance(pos, int) and pos >= 0:
        raise PositionError(
            f"token position {pos} counts from the start of the prompt, but the two prompts of a switched image differ "
            "in length: the same index names different tokens in them, lies in the prefix both share (where every head "
            "computes the same output in both prompts, so s = 0 and a patch changes nothing) or past the end of the "
            "shorter prompt. Count from the end instead: -1 is the last prompt token (last_prompt), -2 the one before it"
        )
    return pos


def check_in_range(pos: int, length: int, what: str = "the prompt") -> None:
    """``pos`` (an integer index) names a token of a sequence of ``length`` tokens, or a :class:`PositionError`."""
    if not -length <= pos < length:
        raise PositionError(
            f"token position {pos} is outside {what}, which has {length} tokens (positions {-length}..{length - 1})"
        )


def check_same_token(pos: int, ids_a: Sequence[int] | Any, ids_b: Sequence[int] | Any) -> None:
    """Both prompts (token ids) have a token at ``pos`` and it is the same token; else a :class:`PositionError`
    saying where the prompts' common ending stops."""
    a, b = [int(t) for t in _flat(ids_a)], [int(t) for t in _flat(ids_b)]
    check_in_range(pos, len(a), "prompt 1")
    check_in_range(pos, len(b), "prompt 2")
    if a[pos] != b[pos]:
        tail = 0
        while tail < min(len(a), len(b)) and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        hint = f"-1..-{tail}" if tail else "none: the prompts end differently"
        raise PositionError(
            f"token position {pos} names token id {a[pos]} in prompt 1 and {b[pos]} in prompt 2: not the same place in "
            f"both prompts. Positions both prompts end with: {hint} (the chat template's end); use one of those"
        )


def _flat(ids: Any) -> list:
    if hasattr(ids, "detach"):
        ids = ids.detach().cpu().reshape(-1).tolist()
    elif hasattr(ids, "tolist"):
        ids = ids.reshape(-1).tolist()
    return list(ids)


class FirstCallIds:
    """The ``input_ids`` of the model's first forward call after each :meth:`start` (the prompt, not a decoding
    step): a forward pre-hook on the model, installed by ``with`` and removed on exit. ``ids`` is None when that call
    had no ``input_ids`` (a backend that passes embeddings): then the tokens cannot be compared."""

    def __init__(self, model: Any) -> None:
        from ambi_plugin.analysis.heads import unwrap_model

        self.model = unwrap_model(model)
        self.ids: Any = None
        self._seen = False
        self._handle: Any = None

    def start(self) -> None:
        self.ids, self._seen = None, False

    def _hook(self, module, args, kwargs):
        if not self._seen:
            self._seen = True
            ids = kwargs.get("input_ids", args[0] if args else None)
            self.ids = None if ids is None else ids.detach().reshape(-1).cpu()

    def __enter__(self) -> FirstCallIds:
        from ambi_plugin.analysis.hooks import mark_owned

        def hook(module, args, kwargs):
            self._hook(module, args, kwargs)

        self._handle = self.model.register_forward_pre_hook(mark_owned(hook), with_kwargs=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
