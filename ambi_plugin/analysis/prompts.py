"""The two capture prompts and the switch decision.

**The prompts are ours**: AmbiBench (4.3) describes them ("prompted to provide a single interpretation", then "a hint
that the input is bistable" asking for the alternative) but does not print them. Prompt 2 quotes the first answer so
the model knows which interpretation to leave.

**Switched** (our reading of 4.3): the second answer differs from the first (compared after lower-casing and
stripping punctuation) and the judge (:mod:`ambi_plugin.judge`, offline by default) matches it to one of the record's
expected interpretations (its ``views`` labels). The rule ``differs`` drops the judge and only asks for a different
answer; it is for smoke runs of random-weight models, whose answers never match anything.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ambi_plugin.core.parsing import parse_list, parse_object

__all__ = [
    "PROMPTS",
    "SwitchDecision",
    "both_named",
    "SwitchRule",
    "decide_switch",
    "expected_labels",
    "first_prompt",
    "second_prompt",
]

SwitchRule = Literal["judge", "differs"]

#: Ours (the paper does not print them): (first prompt, second prompt) per category.
PROMPTS: dict[str, tuple[str, str]] = {
    "bistable": (
        "What do you see in this image? Answer with one object word only.",
        "Hint: this is a bistable image, an image that can be perceived in more than one way. You answered "
        "'{first}'. What else can be perceived in it? Answer with one object word, different from your first answer.",
    ),
    "multiscene": (
        "What scene or object do you see in this image? Answer with one word only.",
        "Hint: this image contains more than one scene, one hidden in the other. You answered '{first}'. What other "
        "scene or object can be perceived in it? Answer with one word, different from your first answer.",
    ),
}


def _category(category: str) -> str:
    key = category.lower().replace("-", "").replace("_", "").replace(" ", "")
    if key not in PROMPTS:
        raise ValueError(f"Expected argument `category` to be one of {tuple(PROMPTS)} but got {category!r}")
    return key


def first_prompt(category: str) -> str:
    return PROMPTS[_category(category)][0]


def second_prompt(category: str, first_answer: str) -> str:
    first = " ".join(str(first_answer).split())[:200].replace("{", "(").replace("}", ")")
    return PROMPTS[_category(category)][1].format(first=first)


def expected_labels(record: dict[str, Any]) -> list[str]:
    """Every expected interpretation of a record (its views' labels; alternatives ``a|b`` kept whole)."""
    out: list[str] = []
    for view in record.get("views") or []:
        out.extend(str(label) for label in view.get("labels") or [])
    return out


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", str(text).lower()).split())


def _terms(answer: str) -> list[str]:
    parsed = parse_list(answer)
    if parsed.ok and parsed.value:
        return [str(t) for t in parsed.value]
    obj = parse_object(answer)
    return [str(obj.value)] if obj.ok else []


@dataclass(frozen=True)
class SwitchDecision:
    switched: bool
    differs: bool
    matched: str | None  # the expected interpretation the second answer matched (judge rule)
    reason: str


def decide_switch(
    first: str, second: str, labels: Sequence[str], *, rule: SwitchRule = "judge", judge: Any = None
) -> SwitchDecision:
    """Did the model switch? ``judge`` defaults to the configured one (:func:`ambi_plugin.judge.get_judge`)."""
    differs = bool(_norm(second)) and _norm(first) != _norm(second)
    if rule == "differs":
        return SwitchDecision(differs, differs, None, "second answer differs" if differs else "same or empty answer")
    if rule != "judge":
        raise ValueError(f"Expected argument `rule` to be one of ('judge', 'differs') but got {rule!r}")
    if not differs:
        return SwitchDecision(False, False, None, "same or empty answer")
    if judge is None:
        from ambi_plugin.judge import get_judge

        judge = get_judge()
    terms = _terms(second)
    for label in labels:
        for alt in str(label).split("|"):
            if judge.set_match([alt], terms).value:
                return SwitchDecision(True, True, alt, f"second answer matches {alt!r}")
    return SwitchDecision(False, True, None, "second answer matches no expected interpretation")


def both_named(
    first: str, second: str, labels: Sequence[str], *, rule: SwitchRule = "judge", judge: Any = None
) -> bool:
    """The item's "correct" flag for the ITI fit: the two answers together name every expected interpretation (judge
    rule); under the ``differs`` rule, the switch flag itself."""
    if rule == "differs":
        return decide_switch(first, second, labels, rule="differs").switched
    if judge is None:
        from ambi_plugin.judge import get_judge

        judge = get_judge()
    return bool(judge.set_match(list(labels), _terms(first) + _terms(second)).value)
