"""bench/bench_judge_extraction.py counts what it claims: sent, read, agreement, and answers read into non-answers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from support.chat_server import LoopbackChatServer

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_judge_extraction.py"
OPTS = ["the upper one", "the lower one", "both are the same length"]
ROWS = [
    {"format": "letter", "question": "Which line?", "options": OPTS, "response": "I cannot tell.", "label": None},
    {"format": "letter", "question": "Which line?", "options": OPTS, "response": "~ 17 ~", "label": 1},
    {"format": "letter", "question": "Which line?", "options": OPTS, "response": "The answer is (B).", "label": 1},
    {"format": "yes_no", "question": "Is it?", "options": [], "response": "Hard to say.", "label": None},
]
REPLIES = {"I cannot tell.": "A", "~ 17 ~": "B", "Hard to say.": "NONE"}  # the first: an answer read into a null
_RESPONSE = re.compile(r"\nResponse: (.*)\n\nReply with only", re.DOTALL)


def test_bench_against_an_openai_compatible_server(tmp_path, offline_env):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in ROWS))

    def respond(prompt, n, payload):
        m = _RESPONSE.search(prompt)
        return REPLIES.get(m.group(1) if m else "", "garbage")

    with LoopbackChatServer(respond) as srv:
        out = subprocess.run([sys.executable, str(BENCH), str(corpus), "--base-url", srv.url, "--model", "m"],
                             env=offline_env, capture_output=True, text=True, timeout=300)  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert srv.requests == 3  # the rules read "(B)": never sent
    assert "| letter | 3 | 2 | 2 | 1 (50.0%) | 1 | 1 |" in out.stdout
    assert "| yes_no | 1 | 1 | 0 | 1 (100.0%) | 1 | 0 |" in out.stdout


def test_bench_reads_the_real_corpus_and_sends_only_what_the_rules_leave(offline_env):
    """Without a corpus the bench reads ours: per format it sends exactly the replies our rules leave unread plus the
    null-labelled ones our rules (rightly) read as nothing, the counts tests/core/test_corpus_real.py tallies."""
    from support.corpus_real import load, ours, tally

    out = subprocess.run([sys.executable, str(BENCH)], env=offline_env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    counts = tally(load(), ours)
    for fmt in ("letter", "true_false", "yes_no"):
        t = counts[fmt]
        sent = t.counts["unread"] + t.null - t.counts["into_null"]
        row = re.search(rf"^\| {fmt} \| (\d+) \| (\d+) \| 0 \|", out.stdout, re.MULTILINE)
        assert row is not None, out.stdout
        assert (int(row.group(1)), int(row.group(2))) == (t.n, sent), (fmt, row.group(0))
