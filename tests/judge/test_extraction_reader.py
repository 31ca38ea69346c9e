"""The extraction step's prompt (ours) and its strict reader (judge/templates.py, judge/verdicts.py)."""

from __future__ import annotations

import pytest

from ambi_plugin.judge import templates as T
from ambi_plugin.judge.verdicts import read_extraction


@pytest.mark.parametrize(
    ("reply", "fmt", "n", "expected"),
    [
        ("B", "letter", 4, "B"),
        ("(C)", "letter", 4, "C"),
        ("Answer: D.", "letter", 4, "D"),
        ("**A**", "letter", 4, "A"),
        ("NONE", "letter", 4, "none"),
        ("None.", "letter_set", 4, "none"),
        ("E", "letter", 4, None),  # out of range
        ("A, C", "letter", 4, None),  # two letters for a single choice
        ("A, C", "letter_set", 4, "A,C"),
        ("C and A", "letter_set", 4, "A,C"),
        ("The answer is B because the lines look equal", "letter", 4, None),  # chatty: not guessed
        ("B\nC", "letter", 4, None),
        ("YES", "yes_no", 0, "yes"),
        ("no", "yes_no", 0, "no"),
        ("TRUE", "yes_no", 0, None),  # the wrong vocabulary for the format
        ("False", "true_false", 0, "false"),
        ("yes, probably", "yes_no", 0, None),
        ("", "letter", 4, None),
        ("<think>A or B?</think>B", "letter", 4, "B"),
        ("B", "comma_list", 4, None),  # not an extractable format
    ],
)
def test_read_extraction(reply, fmt, n, expected):
    assert read_extraction(reply, fmt, n) == expected


def test_extraction_prompt_asks_what_the_answer_commits_to_not_to_solve():
    prompt = T.extraction_prompt("letter", "Which line is longer?", ["upper", "lower"], "hmm, I'd say the lower")
    assert "Do not solve the question yourself" in prompt
    assert "A. upper\nB. lower\n" in prompt and "Response: hmm, I'd say the lower" in prompt
    assert prompt.endswith("Reply with only the letter of the one option the response chooses, or NONE.")
    yn = T.extraction_prompt("yes_no", "Is it?", [], "It seems so")
    assert "Options:" not in yn and yn.endswith("Reply with only YES or NO, or NONE.")
    assert "answer_extraction" in T.OURS and T.template_hash("answer_extraction") in T.template_hashes().values()
