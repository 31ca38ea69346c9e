"""How one answer was read and scored, stage by stage (``ambi score --explain ID``).

:func:`explain_item` returns the lines ``ambi score`` prints for one record and its response: the raw answer,
what each parser stage saw (clean-up, the answer markers, the span read, the format's own cues: labels,
verdict words, hedges, the question a restatement is compared with), the reading, the gold answer and the
item score. It only reads: the reading and the score are those of :func:`ambi_plugin.core.scoring.score_item`.
"""

from __future__ import annotations

import json
from typing import Any

from ambi_plugin.core import parsing as P
from ambi_plugin.core.answers import gold_response
from ambi_plugin.core.parsing.booleans import _own_turn, restatement
from ambi_plugin.core.restate import hedge_verdict
from ambi_plugin.core.scoring import _parse, answer_format, score_item

_SHOW = 400  # characters of a long text shown


def _short(text: str) -> str:
    text = str(text)
    return repr(text if len(text) <= _SHOW else text[: _SHOW // 2] + " [...] " + text[-_SHOW // 2 :])


def _stages(record: dict, cleaned: str, fmt: str) -> list[tuple[str, str]]:
    extra = P._BOOL_MARKER if fmt in ("yes_no", "true_false") else None
    segments = [seg.strip() for seg in P._segments(cleaned, extra=extra)]
    out = [("answer markers", f"{len(segments)} found" if segments else "none (the whole reply is read)")]
    span = next((seg for seg in segments if seg), cleaned)
    if segments:
        out.append(("after the last marker", _short(span)))
    if fmt in ("letter", "roman", "letter_set"):
        style = record.get("option_style") or ("letter" if fmt == "letter_set" else fmt)
        style = style if style in P.OPTION_STYLES else "letter"
        cands = P._candidates(span, style)
        labels = [f"{P.option_label(c.index, style) if c.index < 26 or style == 'roman' else '?'}"
                  f"{' (strong)' if c.strong else ''}" for c in cands]  # fmt: skip
        out.append(("labels seen", ", ".join(labels) if labels else "none"))
        if record.get("options"):
            by_text = P._option_by_text(span, record["options"], exact_only=False)
            out.append(("option text matched", "none" if by_text is None else repr(record["options"][by_text])))
    elif fmt in ("yes_no", "true_false"):
        words = [m.group(1) for m in P._VERDICT.finditer(span)]
        out.append(("verdict words", ", ".join(words) if words else "none"))
        hedge = hedge_verdict(span)
        out.append(("hedge at the opening", "none" if hedge is None else ("says yes" if hedge else "says no")))
        question = P._clean(record.get("question") or "")
        if question:  # compared as the parser compares it: the whole reply, a statement read as one
            restated = restatement(_own_turn(cleaned), question, fmt)
            out.append(("question compared", _short(question)))
            out.append(("restatement of it", "none" if restated is None else ("as asked" if restated else "negated")))
        else:
            out.append(("question compared", "none (the record has no question)"))
    elif fmt == "object":
        hits = [m.group(1).strip() for m in P._OBJECT.finditer(cleaned)]
        out.append(("'Object:' markers", ", ".join(repr(h) for h in hits) + " (the last wins)" if hits else "none"))
        named = P._object_in_sentence(span)
        out.append(("object named in a sentence", "none" if named is None else repr(named)))
    elif fmt == "boxes":
        out.append(("groups of four numbers", str(len(P._BOX4.findall(cleaned)))))
        out.append(("absence stated", "yes" if P._ABSENT.search(cleaned) or P._NONE_BOX.search(cleaned) else "no"))
    return out


def _value(v: Any) -> str:
    if isinstance(v, frozenset):
        return "{" + ", ".join(str(x) for x in sorted(v)) + "}"
    return repr(v) if isinstance(v, str) else str(v)


def explain_item(record: dict, response: Any, *, judge: Any = None, judge_provider: Any = None) -> list[str]:
    """The lines that show how ``response`` to ``record`` was read and scored."""
    fmt = answer_format(record)
    cleaned = P._clean(response)
    lines = [f"item: {record.get('id')}  (task type {record['task_type']}, answer format {fmt})"]
    if record.get("question"):
        lines.append(f"question: {_short(record['question'])}")
    if record.get("options"):
        style = record.get("option_style") or ("letter" if fmt == "letter_set" else fmt)
        style = style if style in P.OPTION_STYLES else "letter"
        opts = "; ".join(f"{P.option_label(i, style)}. {o}" for i, o in enumerate(record["options"]))
        lines.append(f"options: {opts}")
    lines.append(f"raw answer: {_short('' if response is None else str(response))}")
    lines.append(f"after clean-up: {_short(cleaned)}")
    lines += [f"  {stage}: {seen}" for stage, seen in _stages(record, cleaned, fmt)]
    parsed = _parse(record, response)
    if parsed.ok:
        reading = _value(parsed.value)
        if fmt in ("letter", "roman") and isinstance(parsed.value, int) and parsed.value >= 0:
            style = record.get("option_style") or fmt
            reading = f"{P.option_label(parsed.value, style if style in P.OPTION_STYLES else 'letter')} ({reading})"
        lines.append(f"reading: {reading}" + (f"  [{parsed.reason}]" if parsed.reason else ""))
    else:
        lines.append(f"reading: none, unparsed ({parsed.reason})")
    lines.append(f"gold: {gold_response(record)}")
    item = score_item(record, response, judge=judge, judge_provider=judge_provider)
    shown = {k: v for k, v in item.items() if k not in ("id", "task_type", "breakdown", "judge")}
    lines.append(f"score: {'correct' if item.get('correct') else 'wrong'}  {json.dumps(shown, default=str)}")
    return lines
