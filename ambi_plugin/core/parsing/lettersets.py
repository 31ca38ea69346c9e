"""Multi-label choice answers (``parse_letter_set``): which letters a reply chooses.

Part of :mod:`ambi_plugin.core.parsing` (its module docstring states the rules); import from there.

Where the answer is looked for, in order: a reply that is only a list of letters ("A, C", "(b), (d)"); the text
after the last answer marker ("Final answer: b, d"), read to the end of its first line that names letters; the
last concluding sentence ("Therefore, the figures that satisfy the condition are (a) and (c)."), with the lines
that follow it up to a blank line; a verdict for every option ("(a) does not meet the condition ... (b) meets
it ..."); a reply of one short sentence. A long reply with none of these (a description, a walk through the
options cut off before its end) has no reading.

Inside the span: an eliminating sentence ("A and B are incorrect", "Grids C and D do not follow this rule")
removes its letters instead of choosing them; a sentence saying none qualifies ("None of the figures (a, b, c, d)
satisfy the conditions.", "All figures ... do not satisfy the conditions.") is the None answer; a line opening
with a label ("(c) A and B") chooses that label only, the rest being the option's text; questions (an echoed
prompt) choose nothing; a list joined by "or" ("A, B, C, or D") is undecided.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ambi_plugin.core.parsing.choice import _candidates, _start_label
from ambi_plugin.core.parsing.text import Parsed, _clean, _fail, _segments, _total

# letter sets are labelled with letters ("A"-"Z" or "a"-"z", read alike)
_letters = functools.partial(_candidates, style="letter")
_opening_letter = functools.partial(_start_label, style="letter")

_NONE_ANSWER = re.compile(
    r"\bnone\s+of\b|\bnone\b|\bneither\b|\bno\s+(?:figures?|options?|choices?|structures?|graphs?|images?|ones?)\b",
    re.IGNORECASE,
)
_NEGATIVE = re.compile(
    r"\b(?:not|no|never|none|neither|nor|incorrect|wrong|false|cannot|fails?|excluded?|eliminated?|"
    r"ruled?\s+out)\b|n't\b",
    re.IGNORECASE,
)
# a sentence that concludes: "Therefore, ...", "the figures that satisfy the condition are ...", "the correct
# answers are ..."; "... satisfy the conditions" concludes when it names several options, all or none of them
_CONCLUSION = re.compile(
    r"\b(?:therefore|thus|hence|consequently|in\s+conclusion|in\s+summary|to\s+summari[sz]e|overall|so,|"
    r"the\s+(?:correct|right)\s+(?:answers?|options?|choices?)|"
    r"(?:figures?|options?|choices?|structures?|graphs?|images?|grids?|ones?|molecules?)\s+(?:that|which)\s+"
    r"(?:satisf|meet|fulfil|follow|belong|fit|match|include|contain|ha(?:s|ve)|show)\w*)",
    re.IGNORECASE,
)
_CONDITION = re.compile(
    r"\b(?:satisf|meet|fulfil)\w*\s+(?:the|this|these|all|both)\s+(?:conditions?|criteri(?:a|on)|requirements?)",
    re.IGNORECASE,
)
# a verdict on one option: "... meets the condition", "(b) is correct", "(c) is not correct"; its negations turn it
_VERDICT = re.compile(
    r"\b(?:satisf(?:y|ies|ied)|meets?|fulfil+s?|qualif(?:y|ies)|"
    r"is(?:\s+not|n't)?\s+(?:correct|right|true|incorrect|wrong|false))\b",
    re.IGNORECASE,
)
_INTENT = re.compile(
    r"\W*(?:to\s+\w+|in\s+order\s+to|let(?:'s|\s+us|\s+me)|we\s+(?:need|must|will|can|should)|i\s+(?:will|'ll|need))\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?![.!?]*(?:\s|$)))*(?:[.!?]+|\n|$)")  # "0.5" stays in its sentence


def _list_like(s: str) -> bool:
    """Only single letters and separators ("A, F", "a and c", "(A) (C)")."""
    words = re.findall(r"[^\W_]+", s)
    return bool(words) and all((len(w) == 1 and w.isalpha()) or w.lower() in ("and", "or") for w in words)


def _sentences(span: str) -> list[str]:
    return [m.group(0) for m in _SENTENCE.finditer(span) if m.group(0).strip()]


def _labels(sentence: str, n: int) -> set[int]:
    """The option labels of one sentence; a line opening with a label ("(c) A and B") counts only the labels
    written as labels, the rest being the option's text."""
    cands = [c for c in _letters(sentence) if c.index < n]
    first = _opening_letter(sentence)
    if first is not None and first.strong:  # "(e) A and B" with four options: option e's text, not A and B
        return {c.index for c in cands if c.strong}
    return {c.index for c in cands}


def _read_set(span: str, n: int) -> tuple[set[int], bool] | None:
    """(chosen letters, "none of them" said) of one span; None when it names neither."""
    chosen: set[int] = set()
    none_said = False
    for sentence in _sentences(span):
        if "?" in sentence:
            continue  # a question, echoed or asked, chooses nothing
        labels = _labels(sentence, n)
        if _NEGATIVE.search(sentence):  # its letters are eliminated, not chosen; every option eliminated = none
            none_said |= bool(_NONE_ANSWER.search(sentence)) or labels >= set(range(n))
        else:
            chosen |= labels
    if chosen:
        return chosen, False
    return (set(), True) if none_said else None


def _conclusion_spans(s: str, n: int) -> list[str]:
    """Each concluding sentence's paragraph, or the first paragraph after it that names a letter or says none,
    last first (the last twenty, each read at most 600 characters on: a conclusion and its answer lines are
    short)."""
    spans = []
    for m in _SENTENCE.finditer(s):
        sentence = m.group(0)
        if not _CONCLUSION.search(sentence):
            named = {c.index for c in _letters(sentence) if c.index < n}
            if not (_CONDITION.search(sentence) and (len(named) > 1 or _NONE_ANSWER.search(sentence))):
                continue
        if _INTENT.match(sentence):
            continue  # "To find the figures that satisfy ...": what the reply sets out to do
        spans.append(m.start())
    out = []
    for start in spans[::-1][:20]:
        paragraphs = re.split(r"\n\s*\n", s[start : start + 600])
        span = next((p for p in paragraphs if _letters(p) or _NONE_ANSWER.search(p)), None)
        if span is not None:  # the paragraphs before it name nothing: reading them too would add nothing
            out.append(span)
    return out


def _option_verdicts(s: str, n: int) -> set[int] | None:
    """Per-option verdicts covering every option ("(a) does not meet ... (b) meets ..."): the options found
    right. Each verdict is one complete sentence naming one option; a walk cut off before its end has none."""
    verdicts: dict[int, bool] = {}
    for sentence in _sentences(s):
        labels = {c.index for c in _letters(sentence) if c.index < n}
        if len(labels) != 1 or not _VERDICT.search(sentence) or not re.search(r"[.!?\n]\s*$", sentence):
            continue
        flips = len(re.findall(r"\b(?:not|no|never|cannot|incorrect|wrong|false|fails?)\b|n't\b", sentence, re.I))
        verdicts[labels.pop()] = flips % 2 == 0  # "meets", "does not meet", "is incorrect", "is not incorrect"
    if set(verdicts) != set(range(n)):
        return None
    return {i for i, right in verdicts.items() if right}


def _result(chosen: set[int], none_said: bool, reason: str, n: int, none_index: int | None) -> Parsed:
    if none_said:
        return Parsed(frozenset() if none_index is None else frozenset({none_index}), True, "none")
    return Parsed(frozenset(chosen), True, "out_of_range" if any(i >= n for i in chosen) else reason)


def _after_assistant(s: str) -> str:
    """A reply that echoes its chat prompt: the text after the last assistant turn."""
    turns = list(re.finditer(r"\bASSISTANT\s*:|<\|im_start\|>\s*assistant\b|\[/INST\]", s))
    return s[turns[-1].end() :] if turns else s


def _reading(s: str, n: int) -> tuple[set[int], bool, str] | str:
    """(letters chosen, "none of them" said, reason) of a cleaned reply, in the order of the module docstring;
    why it has none (a str) when it has none."""
    head = s.splitlines()[0]
    for listed in (s, head):  # a reply that is a list of letters, or opens with one ("A, B\nThe beak ...")
        if _list_like(listed):
            if re.search(r"\bor\b", listed, re.IGNORECASE):
                return "alternatives"  # "A, B, C, or D": undecided
            idx = {c.index for c in _letters(listed)}
            if idx:
                return idx, False, ""
    for seg in _segments(s):
        for line in seg.splitlines():  # the marker's own line first, then each line after it
            got = _read_set(line, n)
            if got is not None:
                return *got, ""
    for span in _conclusion_spans(s, n):
        got = _read_set(span, n)
        if got is not None:
            return *got, ""
    verdicts = _option_verdicts(s, n)
    if verdicts is not None:
        return verdicts, not verdicts, "verdicts"
    if len(_sentences(s)) <= 2:  # a short reply: "(a) and (d) are two hexagonal structures."
        got = _read_set(s, n)
        if got is not None:
            return *got, ""
    return "no_letters"


def _parse_letter_set(text: Any, n_options: int, *, none_index: int | None = None) -> Parsed:
    """Multi-label choice -> frozenset of 0-based indices ("A, C", "A and C", "(A) (C)", "E" = None)."""
    if not (isinstance(n_options, int) and n_options > 0):
        return _fail("bad_n_options")
    s = _after_assistant(_clean(text)).strip()
    if not s:
        return _fail("empty")
    found = _reading(s, n_options)
    return _fail(found) if isinstance(found, str) else _result(*found, n_options, none_index)


parse_letter_set = _total(_parse_letter_set)
