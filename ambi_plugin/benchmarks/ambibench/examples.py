"""Appendix A.10 of the AmbiBench paper as data: each example's ground truth (as printed, in a
release-style row), its "Correct VLM Output" and every "Incorrect VLM Output", with the paper's label.

Used by the table-driven tests (every output must score as the paper labels it, through
``core.scoring.score_item`` and the offline judge) and by the fixtures, which carry one record per
(example, output) so the end-to-end run through lmms-eval checks the same labels.

The multi-scene localization example gives its ground truth and output only as pictures; it has
no row here (its prompt, with Width 802 and Height 470, is checked in the tests).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class A10Example:
    """One A.10 example: a release-style row and the printed outputs with the paper's verdicts."""

    key: str
    row: dict
    outputs: tuple[tuple[str, bool], ...]  # (VLM output as printed, correct?)
    note: str = ""


A10_EXAMPLES: tuple[A10Example, ...] = (
    A10Example(
        "camo",
        {"category": "Camouflaged", "question_type": "Camo", "ground_truth": "Insect"},
        (("Butterfly", True), ("Leaf", False)),
    ),
    A10Example(
        "bistable_choice",
        {
            "category": "Bistable",
            "question_type": "Choice",
            "choices": "A: car with snow, B: face, C: Motorcycle, D: Bus, E: None",
            "ground_truth": "A, B",
        },
        (("A, B", True), ("A, C", False), ("A", False)),
    ),
    A10Example(
        "hybrid",
        {"category": "Hybrid", "question_type": "", "ground_truth": "Near: A shark, Far: A panda"},
        (("shark, panda", True), ("shark, mushroom", False)),
    ),
    A10Example(
        "color",
        {
            "category": "Color",
            "question_type": "",
            "ground_truth": "the left image looks like lithograph style, a bee, but the right image looks like "
            "lithograph style, the grand canyon.",
            # The short canonical labels of this prose ground truth (PROTOCOL). A.10 accepts "Grayscale painting
            # of a mountain" for the grand canyon; the lexicon keeps canyon and mountain apart (siblings, not
            # synonyms or hypernyms), so the label lists "mountain" as an accepted reading of this picture.
            "labels": [["bee"], ["grand canyon|canyon|mountain"]],
        },
        (("A bee painting, Grayscale painting of a mountain", True), ("Mountain, mountain", False)),
        note="canonical label 'grand canyon|canyon|mountain' (our choice, see docs/ambibench.md)",
    ),
    A10Example(
        "multiview",
        {"category": "Multi-view", "question_type": "", "ground_truth": "cat in a garden, bat in a cave"},
        (("A white cat, a blue bat", True), ("Cat, triangle", False)),
    ),
    A10Example(
        "geometric",
        {
            "category": "Geometric",
            "question_type": "",
            "question": "Is the gray line in the image horizontal?",
            "ground_truth": "Yes",
        },
        (("Yes", True), ("No", False)),
    ),
    A10Example(
        "motion_image",
        {"category": "Motion", "question_type": "Image", "ground_truth": "Yes"},
        (("Yes", True), ("No", False)),
    ),
    A10Example(
        "multiscene_open",
        {"category": "Multi-scene", "question_type": "Open", "ground_truth": "desert; skull"},
        (
            ("desert scene, sand dunes, cacti, mountains, sunset; cow skull", True),
            ("desert plants; abstract shapes", False),
        ),
    ),
    A10Example(
        "multiscene_region",
        # the region is shown only in the picture; this box is the fixtures' (drawn green on a generated image)
        {
            "category": "Multi-scene",
            "question_type": "Region",
            "ground_truth": "bones; teeth of skull",
            "region": [40, 30, 150, 110],
        },
        (("bones; mouth with teeth", True), ("cactus; fence", False)),
    ),
)

# The A.10 localization prompt's example values (Prompt 1): the queried object and the image size.
A10_LOCALIZATION = {"object": "skull", "width": 802, "height": 470}


def example_id(example: A10Example, k: int) -> str:
    """The record id of output ``k`` of an example in the fixtures."""
    return f"a10_{example.key}_{k}"


def outputs_by_id() -> dict[str, tuple[str, bool]]:
    """{fixture record id: (printed output, paper's verdict)} over every example."""
    return {example_id(ex, k): out for ex in A10_EXAMPLES for k, out in enumerate(ex.outputs)}


__all__ = ["A10Example", "A10_EXAMPLES", "A10_LOCALIZATION", "example_id", "outputs_by_id"]
