"""Our parsers on the real-reply corpus (``tests/core/corpus_real/``, its README: sources, licences, labelling rules).

1,242 replies that other benchmarks' authors released, labelled by hand with what each commits to. Per answer
format the parsers must read at least 97% of them as labelled, and read an answer into at most 2% of the replies
labelled ``null`` (a score taken from a reply that gave none is the worst error). True/false reads 253 of 260
(97.3%): the 7 left unread give their verdict only through evidence ("the line BC does not pass through the
center") or are cut off before it (README, "Relabels"); on the 200 replies sampled without skew it reads 199, and it
never reads a wrong answer.
``bench/bench_parsing_real.py`` puts the same counts next to lmms-eval's and VLMEvalKit's extractors.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.corpus_real import FORMATS, load, markdown_row, ours, tally

FLOOR = dict.fromkeys(("letter", "letter_set", "yes_no", "object", "true_false"), 0.97)


@pytest.fixture(scope="module")
def results():
    items = load()
    return items, tally(items, ours)


def test_the_corpus_is_what_its_readme_describes(results):
    items, _ = results
    assert len(items) >= 1000
    assert {i["fmt"] for i in items} == set(FORMATS)
    assert len({i["model"] for i in items}) >= 15
    for i in items:
        assert i["source"]["repo"] and len(i["source"]["commit"]) == 40 and i["licence"], i["id"]
    assert len({i["id"] for i in items}) == len(items)


def test_each_format_is_read_as_labelled(results, capsys):
    _, t = results
    with capsys.disabled():
        print("\nreal-reply corpus, ours per format:")
        for fmt, x in t.items():
            print(f"  {fmt:11s} {x.counts['correct']:4d}/{x.n:<4d} {100 * x.accuracy:5.1f}%  {x.counts}")
    low = {fmt: round(x.accuracy, 4) for fmt, x in t.items() if x.accuracy < FLOOR[fmt]}
    assert not low, "\n".join(f"{i['id']}: label {i['label']!r}, read {r!r}" for x in t.values() for i, r in x.misses)


def test_no_answer_is_read_into_a_reply_that_gives_none(results):
    _, t = results
    over = {fmt: x.counts["into_null"] for fmt, x in t.items() if x.into_null_rate > 0.02}
    assert not over, over


def test_true_false_without_the_skewed_sample(results):
    items, _ = results
    t = tally([i for i in items if i["fmt"] == "true_false" and not i.get("sampled")], ours)["true_false"]
    assert t.accuracy >= 0.995, [(i["id"], r) for i, r in t.misses]  # 199 of 200
    assert tally([i for i in items if i["fmt"] == "true_false"], ours)["true_false"].counts["wrong"] == 0


def test_the_docs_table_holds_our_current_counts(results):
    """docs/tasks-and-metrics.md is written by ``python bench/bench_parsing_real.py --write``; rerun it when this fails."""
    _, t = results
    doc = (Path(__file__).resolve().parents[2] / "docs" / "tasks-and-metrics.md").read_text(encoding="utf-8")
    for fmt in FORMATS:
        assert markdown_row(fmt, "ours (ambi-plugin)", t[fmt], first=True) in doc, fmt
