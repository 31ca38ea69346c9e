"""Benchmark: how far the optional extraction step (``--extract-with-judge``) agrees with hand labels.

    python bench/bench_judge_extraction.py                                   # our real-reply corpus, offline judge
    python bench/bench_judge_extraction.py CORPUS.jsonl                      # the offline default
    python bench/bench_judge_extraction.py CORPUS.jsonl --base-url http://HOST:PORT/v1 --model NAME [--api-key-env VAR]

CORPUS is a labelled JSONL file, one response a line: ``format`` (letter, roman, letter_set, yes_no, true_false),
``question``, ``options`` (a list; may be empty for yes/no), ``response`` and ``label`` (what the response commits
to, written by hand before any parser ran: a 0-based option index, a list of indices, true/false, or null for a
response that commits to nothing). Extraction runs only where our rules leave the answer unread, as in a run, so
the table shows, per format: the responses the rules left unread, how many of those the judge read, how many it read
as the label says, and how many it read INTO a null-labelled response (the worst error: an answer read into a
non-answer). Figures go into docs/judges.md. Without CORPUS it reads our real-reply corpus
(``tests/core/corpus_real/``: its ``fmt`` field is the format, its labels are option letters, which are turned into
indices here).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path


def _label_text(fmt: str, label):
    if label is None:
        return None
    if fmt in ("yes_no", "true_false"):
        return ("yes" if label else "no") if fmt == "yes_no" else ("true" if label else "false")
    if fmt == "letter_set":
        return ",".join(sorted(chr(ord("A") + int(i)) for i in label))
    return chr(ord("A") + int(label))


def _real_corpus() -> list[dict]:
    """The real-reply corpus in this bench's terms (``format``; a label as option indices)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.corpus_real import load

    def index(x):
        return ord(str(x)) - ord("A") if isinstance(x, str) and len(x) == 1 and x.isupper() else None

    rows = []
    for item in load():
        label = item["label"]
        if item["fmt"] == "letter" and label is not None:
            label = index(label)
        elif item["fmt"] == "letter_set" and label is not None:
            label = [index(x) for x in (label if isinstance(label, list) else [label])]
        if label is not None and (label == [] or None in (label if isinstance(label, list) else [label])):
            continue  # a label outside the offered letters ("out_of_range") has no index: not sent
        rows.append({**item, "format": item["fmt"], "label": label})
    return rows


def _rules_read(fmt: str, row: dict) -> bool:
    from ambi_plugin.core.parsing import parse_answer

    options = row.get("options") or []
    n = row.get("n_options") or len(options)  # the real corpus gives the count where the text lists no options
    kw: dict = {}
    if fmt in ("letter", "roman"):
        kw = {"n_options": n, "style": row.get("style") or fmt, "options": options}
    elif fmt == "letter_set":
        kw = {"n_options": n}
    elif fmt in ("yes_no", "true_false"):
        kw = {"question": row.get("question")}
    return bool(parse_answer(row.get("response"), fmt, **kw).ok)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path, nargs="?", help="a labelled JSONL file (default: our real-reply corpus)")
    ap.add_argument("--base-url", default=None, help="an OpenAI-compatible server (default: the offline judge)")
    ap.add_argument("--model", default=None)
    ap.add_argument("--api-key-env", default="AMBI_JUDGE_API_KEY", help="the variable holding the server's key")
    ap.add_argument("--all", action="store_true", help="send every response, also those the rules read")
    ap.add_argument("--cache", default=None, help="the judge cache file (default: none, every reply asked afresh)")
    args = ap.parse_args()

    from ambi_plugin.judge import JudgeSettings, make_judge

    if args.base_url:
        settings = JudgeSettings(backend="openai", model=args.model or "judge", base_url=args.base_url,
                                 api_key=os.environ.get(args.api_key_env) or None, cache=args.cache is not None,
                                 cache_path=args.cache)  # fmt: skip
    else:
        settings = JudgeSettings(backend="offline")
    judge = make_judge(settings)
    stats: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    if args.corpus is None:
        rows = _real_corpus()
    else:
        rows = [json.loads(line) for line in args.corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        fmt = row.get("format")
        if fmt not in ("letter", "roman", "letter_set", "yes_no", "true_false"):
            continue
        s = stats[fmt]
        s["items"] += 1
        if not args.all and _rules_read(fmt, row):
            continue
        s["sent"] += 1
        got = judge.extract_answer(fmt, row.get("question") or "", row.get("options") or [], str(row.get("response")))
        said = None if got.error or got.value in (None, "none") else got.value
        want = _label_text(fmt, row.get("label"))
        if said is not None:
            s["read"] += 1
        if said == want:
            s["agree"] += 1
        if want is None and said is not None:
            s["read_into_null"] += 1
        if want is None:
            s["null_labelled"] += 1
    name = f"openai {settings.model} at {args.base_url}" if args.base_url else f"offline ({judge.model})"
    print(f"judge: {name}; corpus: {args.corpus or 'tests/core/corpus_real'} ({len(rows)} rows)\n")
    print(
        "| format | items | sent to the judge | read by it | agrees with the label | null-labelled sent | read into a null |"
    )
    print("|---|---|---|---|---|---|---|")
    for fmt, s in sorted(stats.items()):
        agree = f"{s['agree']} ({100 * s['agree'] / s['sent']:.1f}%)" if s["sent"] else "0"
        print(f"| {fmt} | {s['items']} | {s['sent']} | {s['read']} | {agree} | {s['null_labelled']} | "
              f"{s['read_into_null']} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
