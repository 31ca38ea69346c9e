"""Reference responses for a record: the gold answer, a deliberately wrong one, and garbage.

They are written in the format the task's prompt asks for, so feeding them back through a
harness (``ambi_replay``) checks the whole chain: gold must score best on every metric, the wrong
answer worst, garbage must be counted as unparseable.
"""

from __future__ import annotations

from typing import Literal

from ambi_plugin.core.parsing import option_label
from ambi_plugin.core.scoring import answer_format

Mode = Literal["gold", "wrong", "garbage"]
MODES: tuple[str, ...] = ("gold", "wrong", "garbage")

# A word no lexicon relates to any label of ours, and text no parser can read.
UNRELATED_WORD = "xylophone"
GARBAGE = "~~ (no answer) ~~"


def _first_alt(label: str) -> str:
    return label.split("|")[0].strip()


def _label(record: dict, index: int) -> str:
    style = record.get("option_style") or answer_format(record)
    if style == "roman":
        return option_label(index, "roman").upper()
    return option_label(index, style)


def _letters(record: dict, indices: list[int]) -> str:
    return ", ".join(option_label(i, "letter") for i in sorted(indices))


def _open_text(record: dict, views: list[list[str]]) -> str:
    fmt = answer_format(record)
    if fmt == "object":
        return f"Object: '{views[0][0]}'"
    if fmt == "layers":
        return "; ".join(", ".join(v) for v in views)
    return ", ".join(term for v in views for term in v)


def gold_response(record: dict) -> str:
    t = record["task_type"]
    if t in ("choice", "perception"):
        return _label(record, record["answer_index"])
    if t == "multi_choice":
        gold = record["answer_indices"] or [record["none_index"]]
        return _letters(record, gold)
    if t == "true_false":
        return "True" if record["answer_bool"] else "False"
    if t == "yes_no":
        return "Yes" if record["answer_bool"] else "No"
    if t in ("open", "region"):
        return _open_text(record, [[_first_alt(lbl) for lbl in v["labels"]] for v in record["views"]])
    if t == "color_naming":
        return (record["human_colors"] if record.get("prompt_kind") == "human" else record["pixel_colors"])[0]
    if t == "localization":
        return "[" + ", ".join("({:g}, {:g}, {:g}, {:g})".format(*b["box"]) for b in record["boxes"]) + "]"
    if t == "description":
        return record["description"]
    raise ValueError(f"unknown task_type {t!r}")


def wrong_response(record: dict) -> str:
    t = record["task_type"]
    if t == "choice":
        return _label(record, (record["answer_index"] + 1) % len(record["options"]))
    if t == "perception":
        n = len(record["options"])
        taken = {record["pixel_answer_index"], record["human_answer_index"], record["answer_index"]}
        taken |= set(record.get("pixel_answer_indices") or []) | set(record.get("human_answer_indices") or [])
        free = [i for i in range(n) if i not in taken]
        return _label(record, free[0] if free else (record["answer_index"] + 1) % n)
    if t == "multi_choice":
        none = record.get("none_index")
        gold = set(record["answer_indices"] or [none])
        others = [i for i in range(len(record["options"])) if i not in gold and i != none]
        if gold == {none} or not others:
            return _letters(record, [0] if gold == {none} else [none])
        return _letters(record, others)
    if t == "true_false":
        return "False" if record["answer_bool"] else "True"
    if t == "yes_no":
        return "No" if record["answer_bool"] else "Yes"
    if t in ("open", "region"):
        return _open_text(record, [[UNRELATED_WORD] for _ in record["views"]])
    if t == "localization":
        return "[(0, 0, 1, 1)]"
    if t == "color_naming":
        from ambi_plugin.core.colors import BASIC_COLORS, ColorTerm, color_matches

        listed = [*record["pixel_colors"], *record["human_colors"]]
        return next(c for c in BASIC_COLORS if not color_matches(ColorTerm(c), listed))
    if t == "description":
        conflicts = record.get("conflict_terms") or []
        return _first_alt(conflicts[0]) if conflicts else UNRELATED_WORD
    raise ValueError(f"unknown task_type {t!r}")


def reference_response(record: dict, mode: Mode) -> str:
    if mode == "gold":
        return gold_response(record)
    if mode == "wrong":
        return wrong_response(record)
    if mode == "garbage":
        return GARBAGE
    raise ValueError(f"Expected argument `mode` to be one of {MODES} but got {mode!r}")
