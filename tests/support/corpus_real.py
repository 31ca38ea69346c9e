"""The real-reply corpus (``tests/core/corpus_real/``): loading, our reading of an item, and the tally per format.

A reading is in the label's terms: an upper-case option letter, a sorted list of letters (``[]`` = none of them), a
bool, an object name, ``"out_of_range"`` (a label the item does not offer) or ``None`` (no answer read). The tally
counts, per answer format, the items read as labelled (``correct``), the answers left unread (``unread``: labelled
with an answer, read as nothing), the answers read wrong (``wrong``: both an answer, different) and the non-answers
read as an answer (``into_null``: labelled ``null``, read as something) -- the worst kind, a score taken from a reply
that gave none. ``tests/core/test_corpus_real.py`` and ``bench/bench_parsing_real.py`` share it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambi_plugin.core.parsing import parse_answer

CORPUS_DIR = Path(__file__).resolve().parents[1] / "core" / "corpus_real"
FORMATS = ("letter", "letter_set", "true_false", "yes_no", "object")
_ARTICLE = re.compile(r"^(?:an?|the)\s+")


def load(fmt: str | None = None) -> list[dict]:
    """Every item of every corpus file (sorted by file name), or those of one answer format."""
    items = []
    for path in sorted(CORPUS_DIR.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                item = json.loads(line)
                item["_file"] = f"{path.name}:{n}"
                items.append(item)
    return [i for i in items if fmt is None or i["fmt"] == fmt]


def n_options(item: dict) -> int:
    return item.get("n_options") or len(item.get("options") or []) or 0


def letter(i: int) -> str:
    return chr(ord("A") + i)


def norm_object(x: Any) -> str:
    return _ARTICLE.sub("", " ".join(str(x).lower().split())).strip(" .")


def ours(item: dict) -> Any:
    """Our parsers' reading of the item, called as the task route calls them (``core/scoring.py``)."""
    fmt, resp, n = item["fmt"], item["response"], n_options(item)
    if fmt == "letter":
        got = parse_answer(resp, "letter", n_options=n, options=item.get("options"), style=item.get("style"))
        if not got.ok:
            return None
        return "out_of_range" if got.value == -1 else letter(got.value)
    if fmt == "letter_set":
        got = parse_answer(resp, "letter_set", n_options=n)
        if not got.ok:
            return None
        if any(i >= n for i in got.value):
            return "out_of_range"
        return sorted(letter(i) for i in got.value)
    if fmt in ("true_false", "yes_no"):
        got = parse_answer(resp, fmt, question=item.get("question"))
        return got.value if got.ok else None
    if fmt == "object":
        got = parse_answer(resp, "object")
        return norm_object(got.value) if got.ok else None
    raise ValueError(f"corpus item {item.get('id')}: unknown format {fmt!r}")


def same(reading: Any, label: Any, fmt: str) -> bool:
    if label is None or reading is None:
        return label is None and reading is None
    if fmt == "object":
        return norm_object(reading) == norm_object(label)
    if fmt == "letter_set" and isinstance(label, list) and isinstance(reading, list):
        return sorted(reading) == sorted(label)
    return reading == label


def outcome(reading: Any, label: Any, fmt: str) -> str:
    """``correct``, ``unread``, ``wrong`` or ``into_null`` (a non-answer read as an answer)."""
    if same(reading, label, fmt):
        return "correct"
    if label is None:
        return "into_null"
    return "unread" if reading is None else "wrong"


@dataclass
class Tally:
    n: int = 0
    null: int = 0
    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("correct", "unread", "wrong", "into_null"), 0)
    )
    misses: list[tuple[dict, Any]] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return self.counts["correct"] / self.n if self.n else float("nan")

    @property
    def into_null_rate(self) -> float:
        return self.counts["into_null"] / self.null if self.null else 0.0


def tally(items: Iterable[dict], reader: Callable[[dict], Any]) -> dict[str, Tally]:
    """Per answer format: how ``reader`` reads the items against their labels."""
    out: dict[str, Tally] = {}
    for item in items:
        t = out.setdefault(item["fmt"], Tally())
        reading = reader(item)
        kind = outcome(reading, item["label"], item["fmt"])
        t.n += 1
        t.null += item["label"] is None
        t.counts[kind] += 1
        if kind != "correct":
            t.misses.append((item, reading))
    return out


def markdown_row(fmt: str, name: str, t: Tally, *, first: bool) -> str:
    """One row of the peers' table (``bench/bench_parsing_real.py``, docs/tasks-and-metrics.md)."""
    head = f"| {fmt} | {t.n} ({t.null}) " if first else "| | "
    c = t.counts
    return (
        f"{head}| {name} | {c['correct']} ({100 * t.accuracy:.1f}%) | {c['unread']} | {c['wrong']} | "
        f"{c['into_null']} of {t.null} ({100 * t.into_null_rate:.1f}%) |"
    )
