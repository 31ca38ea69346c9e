"""Opt-in debiasing variants (section 3.1), applied at run time: both are OFF by default (PROTOCOL: the
released questions were already permuted and flipped at annotation time).

* **Option permutation** (``$AMBI_VIABENCH_PERMUTE_SEED``): the options other than "Not Sure" are shuffled
  deterministically per (seed, record id); "Not Sure" keeps its place (last, as released). The gold index
  follows its option.
* **Polarity flipping** (``$AMBI_VIABENCH_FLIP_SEED``): a binary Yes/No record that carries
  ``question_negated`` (the same question with the opposite polarity, written by an annotator) is asked
  that way for half of the records (chosen per (seed, id)), with the gold Yes/No swapped. Records
  without ``question_negated`` or without a known answer are left as they are (``polarity: "kept"``):
  no question is negated by a rule.

Each transformed record carries ``variant`` (seeds, the permutation as original indices, the polarity),
which scoring copies into the item score.
"""

from __future__ import annotations

import os
import random
from typing import Any

from ambi_plugin.benchmarks.viabench import spec as S

PERMUTE_ENV = "AMBI_VIABENCH_PERMUTE_SEED"
FLIP_ENV = "AMBI_VIABENCH_FLIP_SEED"


def _seed(env: str) -> int | None:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"${env} must be an integer seed, got {raw!r}") from None


def settings() -> dict[str, int | None]:
    """The run's variant seeds from the environment (None = off)."""
    return {"permute_seed": _seed(PERMUTE_ENV), "flip_seed": _seed(FLIP_ENV)}


def not_sure_index(rec: dict) -> int | None:
    idx = rec.get("not_sure_index")
    if idx is not None:
        return int(idx)
    hits = [i for i, o in enumerate(rec.get("options") or []) if str(o).strip().lower() == S.NOT_SURE.lower()]
    return hits[-1] if hits else None


def permute_options(rec: dict, seed: int) -> dict:
    """The record with its non-"Not Sure" options shuffled by ``seed`` (deterministic per record id)."""
    out = dict(rec)
    ns = not_sure_index(rec)
    movable = [i for i in range(len(rec["options"])) if i != ns]
    shuffled = list(movable)
    random.Random(f"viabench-permute:{seed}:{rec['id']}").shuffle(shuffled)
    order = list(range(len(rec["options"])))
    for slot, src in zip(movable, shuffled):
        order[slot] = src
    out["options"] = [rec["options"][i] for i in order]
    if rec.get("answer_index") is not None:
        out["answer_index"] = order.index(int(rec["answer_index"]))
    out["not_sure_index"] = ns
    out["variant"] = {**(rec.get("variant") or {}), "permute_seed": seed, "permutation": order}
    return out


def _yes_no(rec: dict) -> tuple[int, int] | None:
    words = {str(o).strip().lower(): i for i, o in enumerate(rec.get("options") or [])}
    ns = not_sure_index(rec)
    if set(words) - {S.NOT_SURE.lower()} != {"yes", "no"} or len(rec["options"]) != 2 + (ns is not None):
        return None
    return words["yes"], words["no"]


def flip_polarity(rec: dict, seed: int) -> dict:
    """Ask half of the binary records (those with ``question_negated``) the other way round."""
    out = dict(rec)
    pair = _yes_no(rec)
    chosen = random.Random(f"viabench-flip:{seed}:{rec['id']}").random() < 0.5
    can = pair is not None and bool(rec.get("question_negated")) and rec.get("answer_index") is not None
    polarity = "kept"
    if can and chosen:
        yes, no = pair
        out["question"] = str(rec["question_negated"])
        out["answer_index"] = no if int(rec["answer_index"]) == yes else yes
        polarity = "flipped"
    out["variant"] = {**(rec.get("variant") or {}), "flip_seed": seed, "polarity": polarity}
    return out


def apply_variants(rec: dict, *, permute_seed: int | None = None, flip_seed: int | None = None) -> dict:
    """Flip (if asked and possible), then permute (if asked). Without seeds the record is unchanged."""
    if flip_seed is not None:
        rec = flip_polarity(rec, flip_seed)
    if permute_seed is not None:
        rec = permute_options(rec, permute_seed)
    return rec


def prepare(rec: dict, env: dict[str, Any] | None = None) -> dict:
    """The record as this run presents it (variants from the environment, or ``env`` when given)."""
    cfg = settings() if env is None else env
    return apply_variants(rec, permute_seed=cfg.get("permute_seed"), flip_seed=cfg.get("flip_seed"))
