"""Agreement between two judges' verdicts on the same items: raw agreement and Cohen's kappa.

``ambi judge-agreement A.jsonl B.jsonl`` reads two JSONL files. A line is either

* a verdict: ``{"id": ..., "value": true | false | 0 | 1 | 2 | null}`` (``task`` optional; ``verdict``,
  ``correct`` or ``score`` are read when ``value`` is absent), or
* an lmms-eval logged sample (``--log_samples``; has ``doc_id``): the item score of our tasks is read,
  ``score`` for descriptions, else ``correct``, and ``null`` when its judge verdict errored.

So two runs of the same answers (``--model ambi_replay``) under two judges compare directly.
Items are matched on (task, id); a ``null`` value (a judge error) is left out and counted.

Cohen's kappa: ``(p_o - p_e) / (1 - p_e)`` with ``p_e`` from each judge's marginal distribution over
the categories seen; NaN when ``p_e = 1`` (both judges used one and the same category throughout).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ambi_plugin.core.jsonl import Line, read_lines

Key = tuple[str, str]


class AgreementInputError(ValueError):
    """A verdict file cannot be read (names file and line)."""


def _norm_value(val: Any) -> Hashable | None:
    if val is None:
        return None
    if isinstance(val, bool):
        return val
    if isinstance(val, (int, float)):
        return None if isinstance(val, float) and math.isnan(val) else float(val)
    text = str(val).strip().lower()
    if text in ("true", "yes", "correct"):
        return True
    if text in ("false", "no", "incorrect"):
        return False
    try:
        return float(text)
    except ValueError:
        return text or None


def _from_sample(obj: Mapping[str, Any]) -> tuple[str, Any]:
    doc = obj.get("doc") or {}
    rid = doc.get("id", obj.get("doc_id")) if isinstance(doc, Mapping) else obj.get("doc_id")
    items = [v for v in obj.values() if isinstance(v, Mapping) and ("correct" in v or "score" in v)]
    if not items:
        return str(rid), None
    item = items[0]
    if (item.get("judge") or {}).get("error"):
        return str(rid), None
    return str(rid), item["score"] if item.get("task_type") == "description" and "score" in item else item.get(
        "correct"
    )


def read_verdicts(path: str | Path) -> dict[Key, Hashable | None]:
    """(task, id) -> normalised value (None = the judge errored) for every line of a verdict file."""
    path = Path(path)
    try:
        return _read_lines(path, read_lines(path, what="verdict file"))
    except OSError as exc:
        raise AgreementInputError(f"cannot read {path}: {exc}") from None


def _read_lines(path: Path, lines: Iterable[Line]) -> dict[Key, Hashable | None]:
    out: dict[Key, Hashable | None] = {}
    for line in lines:
        if line.bad:
            raise AgreementInputError(f"{line.where}: {line.reason}")
        obj, no = line.value, line.lineno
        if not isinstance(obj, Mapping):
            raise AgreementInputError(f"{path}:{no}: expected an object per line")
        task = str(obj.get("task", ""))
        if "doc_id" in obj:
            rid, val = _from_sample(obj)
        elif "id" in obj:
            rid = str(obj["id"])
            val = next((obj[k] for k in ("value", "verdict", "correct", "score") if k in obj), None)
        else:
            raise AgreementInputError(
                f"{path}:{no}: expected 'id' and 'value' (a verdict) or an lmms-eval logged sample with 'doc_id'"
            )
        key = (task, rid)
        if key in out:
            raise AgreementInputError(f"{path}:{no}: item {rid!r} (task {task!r}) appears twice")
        out[key] = _norm_value(val)
    return out


def cohen_kappa(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    """Cohen's kappa of two paired label sequences (NaN when chance agreement is 1 or no pairs)."""
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"paired labels needed, got {len(a)} and {len(b)}")
    n = len(a)
    if n == 0:
        return math.nan
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return math.nan if math.isclose(pe, 1.0) else (po - pe) / (1 - pe)


def agreement(a: Mapping[Key, Hashable | None], b: Mapping[Key, Hashable | None]) -> dict[str, Any]:
    common = sorted(set(a) & set(b))
    pairs = [(a[k], b[k]) for k in common if a[k] is not None and b[k] is not None]
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    table = Counter((repr(x), repr(y)) for x, y in pairs)
    return {
        "items": len(pairs),
        "agreement": (sum(x == y for x, y in pairs) / len(pairs)) if pairs else math.nan,
        "kappa": cohen_kappa(xs, ys),
        "only_in_a": len(set(a) - set(b)),
        "only_in_b": len(set(b) - set(a)),
        "errors_a": sum(1 for k in common if a[k] is None),
        "errors_b": sum(1 for k in common if b[k] is None),
        "table": {f"{x} / {y}": n for (x, y), n in sorted(table.items())},
    }


def agreement_files(path_a: str | Path, path_b: str | Path) -> dict[str, Any]:
    a, b = read_verdicts(path_a), read_verdicts(path_b)
    if not set(a) & set(b):
        raise AgreementInputError(
            f"{path_a} and {path_b} share no item (matched on task and id); are they verdicts on the same items?"
        )
    return agreement(a, b)


def format_agreement(res: Mapping[str, Any]) -> str:
    lines = [
        f"items compared   {res['items']}",
        f"agreement        {res['agreement']:.4f}",
        f"Cohen's kappa    {res['kappa']:.4f}",
        f"judge errors     A: {res['errors_a']}  B: {res['errors_b']} (left out)",
        f"unmatched items  only in A: {res['only_in_a']}  only in B: {res['only_in_b']}",
        "verdicts (A / B):",
    ]
    lines += [f"  {cell:<20} {n}" for cell, n in res["table"].items()]
    return "\n".join(lines)
