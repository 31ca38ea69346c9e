"""The real-reply corpus's true/false replies (``tests/core/corpus_real/``), one by one: each is read as labelled.

``test_corpus_real.py`` holds every format to its floor (97%); here a single true/false reply read otherwise than
its label fails, so that a change to ``core/statements.py`` that costs one reply is seen (and mutation testing,
``bench/mutation.py``, runs this file alone: 260 replies, not the corpus's 1,242). The only replies allowed to stay
unread are the seven the corpus README lists as left unread on purpose (a verdict given only through evidence, or
cut off before it); they must never be read wrong either.
"""

from __future__ import annotations

import re

import pytest
from support.corpus_real import CORPUS_DIR, load, ours


def _unread_on_purpose() -> set[str]:
    """The item ids of the README's table under "The seven the parsers still leave unread"."""
    readme = (CORPUS_DIR / "README.md").read_text(encoding="utf-8")
    start = readme.index("The seven the parsers still leave unread")
    table = readme[start:].split("\n\n")[1]  # the paragraph, then the table
    return set(re.findall(r"^\| `([\w/-]+)` \|", table, re.MULTILINE))


ITEMS = load("true_false")
UNREAD = _unread_on_purpose()


def test_the_readme_lists_seven_true_false_replies_left_unread():
    ids = {i["id"] for i in ITEMS}
    assert len(UNREAD) == 7 and UNREAD <= ids, UNREAD - ids


@pytest.mark.parametrize("label", [True, False, None], ids=["true", "false", "null"])
def test_each_true_false_reply_is_read_as_labelled(label):
    wrong = []
    for item in (i for i in ITEMS if i["label"] is label):
        reading = ours(item)
        allowed = {label, None} if item["id"] in UNREAD else {label}
        if reading not in allowed:
            wrong.append(f"{item['id']} ({item['_file']}): label {label!r}, read {reading!r}")
    assert not wrong, "\n".join(wrong)
