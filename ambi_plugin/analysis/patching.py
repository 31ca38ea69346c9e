"""Causal check of the switch heads: activation patching and attribution patching (AtP, AtP*) on switched images.

For a switched image the model gave interpretation A under prompt 1 and B under prompt 2. Run A is prompt 1 with
the image, run B prompt 2 with the image; ``b`` is B's first answer token (its greedy next token after the prompt).
Patching a set of heads copies their outputs (the o_proj input, per head) at **one token position** from run B into
run A (**one direction**) and asks how much of B's **first answer token** comes back (nothing later in the answer):

* ``effect = (logp_patched(b) - logp_A(b)) / (logp_B(b) - logp_A(b))``: 1 = the patch alone brings B's log-prob of
  ``b`` back, 0 = nothing; ``flip``: the patched run's greedy next token is ``b``;
* which heads are patched one by one: the union of the top-k heads by switching score ``s`` and the top-k by AtP
  (default; with AtP* on, its top-k too), every head (``all_heads``; the cost is said first), or a given list; each
  head's row says which ranking brought it (``s``, ``atp``, ``both``, ``atp*``, ``all``, ``given``);
* the switch set against **layer-matched** random sets (as many heads per layer, outside the switch set): a
  permutation test of the mean effect (:mod:`ambi_plugin.analysis.patch_stats`);
* AtP (first order): ``grad(logp_A(b)) . (x_B - x_A)`` per head, divided by the same denominator as the effect;
  AtP* (``atp_star``): GradDrop's magnitude ``1/(L-1) sum_l |AtP with layer l's gradient dropped|`` divided by
  ``|logp_B(b) - logp_A(b)|`` (no sign);
* bootstrap intervals over images for every mean, Spearman rank agreement (AtP vs exact, s vs exact, ...) with its
  interval; NaN/inf head activations counted per head.

The model inputs are the backend's own (:mod:`ambi_plugin.analysis.patch_model`): a re-run must give the backend's
first-step logits, or **the item is refused** (listed with the reason under ``refused``) and the others go on; so is
an item whose position is not the same token in both prompts, or whose logits are not finite. Only positions that
name one token can be patched: ``last_prompt`` (the default) or a negative integer (from the end of each prompt;
:mod:`ambi_plugin.analysis.positions`); ``mean_prompt`` / ``mean_generated`` cannot.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ambi_plugin.analysis.heads import DEFAULT_PATTERN, HeadLayout, head_layout
from ambi_plugin.analysis.patch_model import (
    NonFiniteError,
    Patcher,
    PatchingError,
    Run,
    attribution,
    grad_drop,
    logp,
    patched_logits,
    run_prompt,
    values_from,
)
from ambi_plugin.analysis.patch_stats import layer_matched_sets, nanmean, spearman
from ambi_plugin.analysis.positions import PositionError, check_same_token, paired_position

__all__ = ["PatchItem", "PatchingError", "patch_items", "patch_position", "select_heads", "spearman"]

_MIN_GAP = 1e-3  # |logp_B(b) - logp_A(b)| below this: no switch in the first token to restore
SCOPE = ("one token position (the capture's), one direction (run B's head outputs written into run A), the first "
         "answer token only")  # fmt: skip


def patch_position(position: str | int) -> int:
    """The token index patched for a capture ``position``: ``last_prompt`` -> -1, a negative integer as is."""
    try:
        pos = paired_position(position)
    except ValueError as exc:
        raise PatchingError(str(exc)) from None
    if pos == "last_prompt":
        return -1
    if isinstance(pos, int):
        return pos
    raise PatchingError(
        f"activation patching needs one token position, but the capture used {pos!r}: pass --position last_prompt "
        "(or a negative position, counted from the end of the prompt)"
    )


@dataclass
class PatchItem:
    """One switched image: its id, images and the two prompts (as the capture asked them)."""

    id: str
    images: list[str]
    prompt_a: str
    prompt_b: str


@dataclass
class _State:
    item: PatchItem
    run_a: Run
    run_b: Run
    a: int
    b: int
    lp_a: float
    lp_b: float
    atp: np.ndarray  # [layers, heads], divided by the gap
    atp_star: np.ndarray | None
    nonfinite: np.ndarray  # [layers, heads] bool: x_A or x_B holds a NaN/inf
    results: dict[str, Any] = field(default_factory=dict)

    @property
    def gap(self) -> float:
        return self.lp_b - self.lp_a


def _prepare(lm, patcher: Patcher, item: PatchItem, layout: HeadLayout, with_star: bool) -> _State | str:
    """Runs A and B, the tokens, AtP (and AtP*); a string = the reason the image is skipped."""
    run_a = run_prompt(lm, patcher, item.prompt_a, item.images, "prompt 1")
    run_b = run_prompt(lm, patcher, item.prompt_b, item.images, "prompt 2")
    if run_a.ids is not None:  # a backend that passes embeddings passes no ids, for either prompt
        check_same_token(patcher.pos, run_a.ids, run_b.ids)
    b, a = int(run_b.logits.argmax()), int(run_a.logits.argmax())
    lp_a, lp_b = logp(run_a.logits, b), logp(run_b.logits, b)
    if a == b or abs(lp_b - lp_a) < _MIN_GAP:
        return "the two runs predict the same first answer token"
    gap = lp_b - lp_a
    atp = attribution(lm, patcher, run_a, run_b, b, layout) / gap
    star = grad_drop(lm, patcher, run_a, run_b, b, layout) / abs(gap) if with_star else None
    return _State(item, run_a, run_b, a, b, lp_a, lp_b, atp, star, run_a.nonfinite | run_b.nonfinite)


def _top(values: np.ndarray | None, k: int) -> list[tuple[int, int]]:
    """The ``k`` heads with the highest finite values (stable order), as ``(layer, head)``."""
    if values is None:
        return []
    v = np.asarray(values, dtype=float)  # a map read back from JSON: null (None) is NaN
    order = np.argsort(-v, axis=None, kind="stable")  # NaN sorts last
    flat = [int(f) for f in order if np.isfinite(v.flat[f])][: max(k, 0)]
    return [tuple(int(x) for x in np.unravel_index(f, v.shape)) for f in flat]


def select_heads(
    shape: tuple[int, int],
    *,
    k: int = 10,
    scores: np.ndarray | None = None,
    atp: np.ndarray | None = None,
    atp_star: np.ndarray | None = None,
    all_heads: bool = False,
    given: Sequence[tuple[int, int]] | None = None,
) -> list[tuple[tuple[int, int], str]]:
    """The heads patched one by one and the ranking each came from: ``given`` as is; every head (``all``); else the
    union of the top-``k`` by ``s`` (``scores``), by mean AtP and by mean AtP* (``s``, ``atp``, ``both`` = s and atp,
    ``atp*``, joined with ``+``), in (layer, head) order."""
    if given is not None:
        return [(tuple(map(int, h)), "given") for h in dict.fromkeys(tuple(map(int, h)) for h in given)]
    if all_heads:
        return [((layer, head), "all") for layer in range(shape[0]) for head in range(shape[1])]
    tags: dict[tuple[int, int], list[str]] = {}
    for tag, values in (("s", scores), ("atp", atp), ("atp*", atp_star)):
        for h in _top(values, k):
            tags.setdefault(h, []).append(tag)
    out = []
    for h in sorted(tags):
        t = tags[h]
        label = "+".join(["both", *t[2:]]) if t[:2] == ["s", "atp"] else "+".join(t)
        out.append((h, label))
    return out


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "unknown (no image was run)"
    return (
        f"{seconds:.1f} s"
        if seconds < 120
        else f"{seconds / 60:.1f} min"
        if seconds < 7200
        else f"{seconds / 3600:.1f} h"
    )


def patch_items(
    lm: Any,
    items: Sequence[PatchItem],
    *,
    switch_heads: Sequence[tuple[int, int]],
    position: str | int = "last_prompt",
    scores: np.ndarray | None = None,
    top_k: int = 10,
    all_heads: bool = False,
    per_head: Sequence[tuple[int, int]] | None = None,
    atp_star: bool = False,
    draws: int = 100,
    seed: int = 0,
    n_boot: int = 1000,
    confidence: float = 0.95,
    pattern: str = DEFAULT_PATTERN,
    progress: bool = True,
    say: Callable[[str], Any] = print,
) -> dict[str, Any]:
    """Patch every item (see the module docstring); returns the table's data (JSON-ready)."""
    from tqdm import tqdm

    from ambi_plugin.analysis.patch_summary import summarize

    pos = patch_position(position)
    layout = head_layout(lm, pattern=pattern)
    switch = sorted({tuple(map(int, h)) for h in switch_heads})
    if not switch:
        raise PatchingError("no switch heads to patch (the heads file names none)")
    named = [*switch, *(tuple(map(int, h)) for h in per_head or ())]
    outside = [h for h in named if not (0 <= h[0] < layout.n_layers and 0 <= h[1] < layout.n_heads)]
    if outside:
        raise PatchingError(f"head {outside[0]} is outside the model's {layout.n_layers} x {layout.n_heads} heads")
    if scores is not None and np.shape(scores) != layout.shape:
        raise PatchingError(f"the switching scores are {np.shape(scores)} (layers x heads), the model has "
                            f"{layout.shape}: scores of another model? Re-run `ambi switch-heads scores`")  # fmt: skip
    patcher = Patcher(lm, layout, pos, pattern)
    kept: list[_State] = []
    skipped: list[dict[str, str]] = []
    refused: list[dict[str, str]] = []
    seconds: list[float] = []
    refused_bad = np.zeros(layout.shape, dtype=int)  # NaN/inf heads of refused items: counted all the same
    for item in tqdm(items, desc="patching: runs, AtP", disable=not progress):
        try:
            state = _prepare(lm, patcher, item, layout, atp_star)
        except (PatchingError, PositionError) as exc:
            refused.append({"id": item.id, "reason": str(exc)})
            if isinstance(exc, NonFiniteError):
                refused_bad += exc.nonfinite
            continue
        if isinstance(state, str):
            skipped.append({"id": item.id, "reason": state})
            continue
        seconds += [state.run_a.seconds, state.run_b.seconds]
        kept.append(state)
    atp_mean = nanmean(np.stack([s.atp for s in kept]), 0) if kept else None
    star_mean = nanmean(np.stack([s.atp_star for s in kept]), 0) if kept and atp_star else None
    heads = select_heads(layout.shape, k=top_k, scores=scores, atp=atp_mean, atp_star=star_mean, all_heads=all_heads,
                         given=per_head)  # fmt: skip
    sets, set_info = layer_matched_sets(switch, layout.shape, draws, seed)
    passes = len(kept) * (1 + len(sets) + len(heads))
    per_pass = float(np.median(seconds)) if seconds else math.nan
    cost = {"forward_passes": passes, "seconds_per_pass": per_pass if seconds else None,
            "estimate_s": passes * per_pass if seconds else None}  # fmt: skip
    which = "every head" if all_heads else f"{len(heads)} heads"
    say(f"patching: {len(kept)} images x ({which} one by one + the switch set + {len(sets)} layer-matched random sets) "
        f"= {passes} forward passes x {per_pass:.3g} s per pass (measured on this model) = about {_duration(passes * per_pass)}")  # fmt: skip
    for state in tqdm(kept, desc="patching", disable=not progress):
        state.results["switch"] = _measure(lm, patcher, state, switch)
        state.results["heads"] = [_measure(lm, patcher, state, [h]) for h, _ in heads]
        state.results["sets"] = [_measure(lm, patcher, state, s) for s in sets]
    return summarize(
        kept, skipped=skipped, refused=refused, switch=switch, heads=heads, sets=sets, set_info=set_info,
        shape=layout.shape, scores=scores, position=position, cost=cost, n_boot=n_boot, seed=seed,
        confidence=confidence, atp_star=atp_star, mode="all" if all_heads else "given" if per_head is not None else "union",
        top_k=top_k, refused_nonfinite=refused_bad,
    )  # fmt: skip


def _measure(lm: Any, patcher: Patcher, state: _State, heads: Sequence[tuple[int, int]]) -> tuple[float, bool | None]:
    """(effect, flip) of patching ``heads`` from run B into run A; NaN and None when the patched logits are not
    finite (counted per head by the summary)."""
    logits = patched_logits(lm, patcher, state.run_a, values_from(state.run_b, heads))
    if not bool(logits.isfinite().all()):
        return math.nan, None
    return (logp(logits, state.b) - state.lp_a) / state.gap, int(logits.argmax()) == state.b
