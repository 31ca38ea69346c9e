"""One hostile reply must not stall a run: every verdict reader and VIA-Bench's Match read 1 MB in < 1.5 s of CPU.

A regular expression restarting at each of many ``<think>`` tags (or reading the rest of a long line at each
of many answer markers) takes time quadratic in the reply: minutes at 1 MB before the fix. Each call below runs
under an alarm (2 s), so a quadratic reader fails here in seconds rather than hanging the suite. The bound is CPU
time with room for a crowded machine (a linear reader takes about 0.1-0.3 s idle, and up to 0.8 s was seen with ten
jobs on two cores, where CPU time also stretches), far under what a quadratic one needs.
"""

from __future__ import annotations

import signal
import time
from contextlib import contextmanager

import pytest

from ambi_plugin.benchmarks.viabench.match import match_label
from ambi_plugin.core.thinking import drop_think_blocks
from ambi_plugin.judge.verdicts import clean_reply, read_binary_digit, read_option, read_rating, read_true_false

MB = 1_000_000
OPTIONS = ["Six fingers", "Five fingers", "Not Sure", "b"]
READERS = {
    "read_true_false": read_true_false,
    "read_binary_digit": read_binary_digit,
    "read_rating": read_rating,
    "read_option": lambda reply: read_option(reply, 4),
    "match_label (option texts)": lambda reply: match_label(reply, OPTIONS),
    "match_label (count)": lambda reply: match_label(reply, 4),
}
SHAPES = {
    "unclosed <think>": "<think>",
    "<THINK> and a word": "<THINK>x ",
    "closed <think> blocks": "<think>a</think>",
    "answer markers on one line": "Answer: x ",
    "answer markers, lower-case label": "answer: a b ",
    "marker then option text": "Answer: Six fingers x ",
    "template echoed": "Answer: A/",
    "final answer is": "final answer is ",
    "markers one per line": "Answer: x\n",
    "brackets": "[ ",
    "digits and dots": "1.",
}


class Stalled(BaseException):  # not caught by the readers' own last-resort guard
    pass


@contextmanager
def alarm(seconds: float):
    def stalled(signum, frame):
        raise Stalled(f"still running after {seconds} s")

    # CPU time, not wall time: a busy machine (CI's 2 cores, other test workers) must not fail a linear reader
    old = signal.signal(signal.SIGVTALRM, stalled)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, old)


@pytest.mark.parametrize("shape", SHAPES)
def test_every_reader_reads_a_megabyte_in_linear_time(shape):
    unit = SHAPES[shape]
    body = unit * (MB // len(unit))
    for name, reader in READERS.items():
        for reply in (body, body + " B", "Answer: " + body):
            start = time.process_time()
            with alarm(2.0):
                reader(reply)
            took = time.process_time() - start  # CPU seconds: the quadratic readers took minutes of them
            assert took < 1.5, f"{name} took {took:.2f} s of CPU on 1 MB of {shape!r}"


def test_long_replies_are_still_read_right():
    think = "<think>" * (MB // 7)
    assert read_true_false(think + "</think> True") is True  # the first <think> runs to the one </think>
    assert read_rating("<think>1 2 0</think>" * 50_000 + "Rating: 2") == 2.0
    assert read_option("Answer: x " * 100_000 + "\nAnswer: (C)", 4) == 2
    assert match_label("Answer: x " * 100_000 + "\nAnswer: [B]", OPTIONS).index == 1
    assert match_label("Answer: x " * 100_000 + "\nAnswer: Not Sure.", OPTIONS).index == 2
    assert match_label(think + "</think>Answer: [D]", 4).index == 3
    assert len(clean_reply(think)) <= 4000


@pytest.mark.parametrize(
    "text",
    [
        "a <think>x</think> b",
        "<THINK>x</Think>y<think>z</think>",
        "<think>open <think>inner</think> after</think> end",
        "no tags",
        "<think>unclosed",
        "x</think>y<think>",
        "<think></think><think>",
    ],
)
def test_drop_think_blocks_is_the_lazy_expression(text):
    import re

    assert drop_think_blocks(text) == re.sub(r"<think>.*?</think>", " ", text, flags=re.IGNORECASE | re.DOTALL)
