"""Our answer parsers next to lmms-eval's and VLMEvalKit's extractors, on the real-reply corpus.

    python bench/bench_parsing_real.py            # print the table
    python bench/bench_parsing_real.py --write    # and replace the marked section of docs/tasks-and-metrics.md

Runs every reply of ``tests/core/corpus_real/`` (1,242 replies released by other benchmarks' authors, each labelled
by hand with what it commits to) through three readers and counts, per answer format, the replies read as
labelled, the answers left unread, and the non-answers read as an answer (a score taken from a reply that gave
none). The peers' functions are imported from the installed packages (lmms-eval 0.7.3, ms-vlmeval), never copied:

* lmms-eval: ``tasks._task_utils.mcq_extract.extract_mcq_answer`` (letters), ``tasks.cmmmu.utils.
  get_multi_choice_prediction`` (letter sets; it returns a random letter when it finds none, seeded here per item),
  ``tasks.mme.utils.parse_pred_ans`` (yes/no), ``tasks.illusionbench.utils._parse_tf_answer`` (true/false, its
  built-in IllusionBench reader);
* VLMEvalKit: ``utils.matching_util.can_infer`` (letters), ``dataset.cmmmu.get_multi_choice_prediction`` (letter
  sets), ``dataset.utils.yorn.YOrN_Extraction`` (yes/no; for true/false, which it has no reader for, the reply's
  words "true"/"false" are read as "yes"/"no" first).

Each peer gets the labels the benchmark printed ("a".."e" for VisOnlyQA and IllusionVQA) wherever its API takes
them; ``can_infer`` only takes upper-case labels, so it is given those. Neither peer reads object names.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # tests/support: the corpus and our reading of it

from support.corpus_real import FORMATS, load, markdown_row, n_options, ours, tally  # noqa: E402

DOC = ROOT / "docs" / "tasks-and-metrics.md"
BEGIN = "<!-- bench_parsing_real: begin (python bench/bench_parsing_real.py --write) -->"
END = "<!-- bench_parsing_real: end -->"


def _labels(item: dict) -> list[str]:
    letters = [chr(ord("A") + i) for i in range(n_options(item))]
    return [x.lower() for x in letters] if item.get("style") == "letter_lower" else letters


def _letter(x: Any, n: int) -> Any:
    """A peer's letter in the label's terms: upper case; a letter not on offer is "out_of_range"."""
    if not isinstance(x, str) or len(x) != 1 or not x.isalpha():
        return None
    i = ord(x.upper()) - ord("A")
    return x.upper() if i < n else "out_of_range"


def lmms_eval_reader(item: dict) -> Any:
    fmt, resp = item["fmt"], item["response"]
    if fmt == "letter":
        from lmms_eval.tasks._task_utils.mcq_extract import extract_mcq_answer

        return _letter(extract_mcq_answer(resp, choices=_labels(item)) or None, n_options(item))
    if fmt == "letter_set":
        from lmms_eval.tasks.cmmmu.utils import get_multi_choice_prediction

        labels = _labels(item)
        random.seed(item["id"])  # its fallback is a random letter: reproducible here
        got = get_multi_choice_prediction(resp, labels, dict(zip(labels, item.get("options") or [""] * len(labels))))
        return sorted({c.upper() for c in got}) if got else None
    if fmt == "yes_no":
        from lmms_eval.tasks.mme.utils import parse_pred_ans

        return {"yes": True, "no": False}.get(parse_pred_ans(resp))
    if fmt == "true_false":
        from lmms_eval.tasks.illusionbench.utils import _parse_tf_answer

        return {"true": True, "false": False}.get(_parse_tf_answer(resp))
    return None


def vlmevalkit_reader(item: dict) -> Any:
    fmt, resp = item["fmt"], item["response"]
    n = n_options(item)
    if fmt == "letter":
        from vlmeval.utils.matching_util import can_infer

        texts = item.get("options") or [""] * n
        got = can_infer(resp, {chr(ord("A") + i): texts[i] for i in range(n)})
        return None if got in (False, "Z") else _letter(got, n)
    if fmt == "letter_set":
        from vlmeval.dataset.cmmmu import get_multi_choice_prediction

        labels = _labels(item)
        random.seed(item["id"])
        got = get_multi_choice_prediction(resp, labels, dict(zip(labels, item.get("options") or [""] * len(labels))))
        return sorted({c.upper() for c in got}) if got else None
    if fmt in ("yes_no", "true_false"):
        from vlmeval.dataset.utils.yorn import YOrN_Extraction

        if fmt == "true_false":
            resp = re.sub(r"\btrue\b", "yes", re.sub(r"\bfalse\b", "no", resp, flags=re.I), flags=re.I)
        return {"Yes": True, "No": False}.get(YOrN_Extraction(resp))
    return None


OURS = "ours (ambi-plugin)"
READERS = {OURS: ours, "lmms-eval 0.7.3": lmms_eval_reader, "VLMEvalKit": vlmevalkit_reader}


def table() -> str:
    items = load()
    results = {name: tally(items, reader) for name, reader in READERS.items()}
    lines = [
        "| format | replies (no answer) | reader | read as labelled | answers left unread | wrong answers | "
        "non-answers read as an answer |",
        "|---|---|---|---|---|---|---|",
    ]
    for fmt in FORMATS:
        for k, (name, res) in enumerate(results.items()):
            t = res.get(fmt)
            if t is None:
                continue
            if fmt == "object" and name != OURS:
                lines.append(f"| | {name} | n/a (no object-name reader) | | | |")
                continue
            lines.append(markdown_row(fmt, name, t, first=k == 0))
    return "\n".join(lines)


def write(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    block = f"{BEGIN}\n{text}\n{END}"
    if BEGIN in doc and END in doc:
        doc = doc[: doc.index(BEGIN)] + block + doc[doc.index(END) + len(END) :]
    else:
        doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(doc, encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"replace the marked section of {DOC.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    text = table()
    print(text)
    if args.write:
        write(text)
        print(f"\nwritten to {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
