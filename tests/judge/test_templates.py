"""The judge prompts are the papers' text: checked against the papers in ../shared/seeds/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ambi_plugin.judge import templates as T

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def _paper(prefix: str) -> str:
    files = sorted(SEEDS.glob(f"{prefix}_*.txt")) if SEEDS.is_dir() else []
    if not files:
        pytest.skip(f"the papers are absent (looked for {SEEDS}/{prefix}_*.txt)")
    return files[0].read_text(encoding="utf-8")


def _flat(text: str) -> str:
    """Whitespace collapsed, LaTeX escapes and the PDF's line layout undone."""
    return re.sub(r"\s+", " ", text.replace("\\_", "_")).strip()


@pytest.mark.parametrize(
    ("name", "paper", "slots"),
    [
        (
            "illusionbench_true_false",
            "001",
            {
                "question": "[true-or-false question]",
                "correct_answer": "[correct answer]",
                "response": "[VLM\u2019s answer]",
            },
        ),
        (
            "illusionbench_multiple_choice",
            "001",
            {
                "question_and_options": "[multiple-choice question and options]",
                "correct_option": "[correct answer]",
                "response": "[VLMs answer]",
            },
        ),
        (
            "illusionbench_description",
            "001",
            {"response": "[VLM description]", "golden": "[Golden description]"},
        ),
    ],
)
def test_illusionbench_prompts_are_verbatim(name, paper, slots):
    filled = T.TEMPLATES[name].format(**slots)
    assert _flat(filled) in _flat(_paper(paper))


def test_mc_prompt_keeps_the_stray_bracket():
    assert T.ILLUSIONBENCH_MULTIPLE_CHOICE.endswith("single digit.]")


def test_ambibench_prompt_is_verbatim_with_protocol_direction():
    text = _flat(_paper("000"))
    body, _, tail = T.AMBIBENCH_SET_MATCH.partition("Set 1: {ground_truth}")
    # everything before the sets, the "Notes:" list included, is the paper's text
    assert _flat(body) in text
    assert _flat(tail.replace("{predicted}", "ground_truth")).startswith("Set 2: ground_truth")
    assert "Set 2: ground_truth Answer with only one word: True or False." in text
    # PROTOCOL: the ground truth fills Set 1, the prediction Set 2
    prompt = T.set_match_prompt(["desert", "skull"], ["desert scene", "cow skull"])
    assert "Set 1: desert, skull\nSet 2: desert scene, cow skull\n" in prompt


def test_alternatives_are_rendered_as_one_entry():
    assert T.render_set(["rabbit|bunny", " ", "six | 6"]) == "rabbit/bunny, six/6"


def test_viabench_prompt_is_marked_ours_and_lists_options():
    assert T.OURS == {"viabench_mcq_match", "answer_extraction"}  # our two prompts; the papers print the others
    prompt = T.mcq_prompt("How many fingers?", ["5", "6", "Not Sure"], "B")
    assert "A. 5\nB. 6\nC. Not Sure" in prompt and prompt.endswith("or None.")


def test_hashes_are_stable_and_distinct():
    hashes = T.template_hashes()
    assert set(hashes) == set(T.TEMPLATES)
    assert len(set(hashes.values())) == len(hashes) and all(len(h) == 12 for h in hashes.values())
    assert hashes == T.template_hashes()
