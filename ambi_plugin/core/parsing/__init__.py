"""Answer parsers: a model's reply -> a typed value, or an explicit "unparseable" marker.

Every parser is a *total* function: it accepts any object (``None``, bytes, numbers, huge strings),
never raises, and returns a :class:`Parsed`. ``ok=False`` means the reply could not be read and
``reason`` says why; scoring counts such items as wrong and reports them as unparsed.

Decisions the rest of the project relies on:

* Answer markers ("Answer:", "'Answer':", "**Answer**:", "The answer is", "the correct option is",
  ``<answer>``, ``\\boxed{``, a table cell "| Answer | B |", JSON ``"answer": "B"``, "答案：B", ...): the LAST
  marker wins, so a chain of thought ending in "Answer: C" reads as C. Markdown emphasis, code-fence
  backticks and closing tags (``</answer>``) are dropped; full-width letters read as letters (NFKC).
* Choice labels: a letter or numeral the options do not have (``F`` of 4 options) in a strong position
  (alone, after a marker, bracketed, "F.") gives ``Parsed(-1, True, "out_of_range")``: parsed, wrong.
  Two different labels with no marker and no single strong one are ``ambiguous`` (unparseable), and so is a
  label followed by another option's exact text ("(E) C"). A label alone on the last line answers. Not labels:
  letters joined by "&" ("R&D"), an echoed instruction ("select from a, b, c, and d"), a repeated option list
  (two or more labels each followed by its own text). An option's value matches without thousands separators
  ("2483,000" = "2,483,000"); a bare number inside one option's sentence is no answer.
  The English words "a"/"A" (article) and "I" (pronoun) are not read as labels when a lower-case word
  follows them ("I think", "a cat", "A bit"). In roman style only numerals count (a letter "B" is not
  read); in letter style roman numerals are not read.
* Letter sets (``lettersets``): a list of letters, the marker's own line, else the last concluding sentence
  ("Therefore, the figures that satisfy the condition are (a) and (c).") or a verdict for every option; eliminating
  sentences remove their letters, "None of the figures ..." is the None answer, "A, B, C, or D" and questions
  choose nothing. The option "None" (``none_index``) alone, or the word "None", gives ``{none_index}``
  (``frozenset()`` when the task has no None option); together with other letters it is kept in the
  set, so exact-set scoring marks it wrong. Letters outside the options: when the answer is a bare
  list of letters ("A, F") they are kept as indices >= ``n_options`` (reason ``out_of_range``, the item
  scores wrong); inside prose they are ignored (a stray capital is more likely a word than a label).
* Booleans: the first verdict after the last marker, else a verdict opening the reply ("No, it is
  not"), else a hedge opening it ("Not really", "Of course", 是 / 否), else, given the item's question, a
  restatement of it or of its negation (``core/restate.py``; "no motion" is then a negation, not a verdict),
  else all verdicts in the reply if they agree; "not true" / "not correct" read as False. A reply that says it
  cannot tell ("I cannot say for certain", "it is not clear") answers only with a verdict opening a sentence; a
  question-and-answer turn the model invents after its verdict is cut off; in a chain of thought only concluding
  sentences restate the question (a true/false item's statement: the text before "True or False?", read by
  ``core/statements.py``: references back, a term's definition in its place, a predicate elided at the cut).
* Objects: the last "Object:" marker wins (a quoted value, else up to the sentence's end); else, after the last
  answer marker ("Answer Choice: [house]"), a short first line, unless it is a sentence naming the object ("The
  hidden animal is a leopard."); else the last object a sentence names ("I can see an owl blending into the
  bark" -> "owl"). A leading article is dropped.
* Boxes: ``(x1, y1, x2, y2)`` / ``[x1, y1, x2, y2]`` groups of exactly four numbers, coordinates sorted
  so that x1 <= x2 and y1 <= y2; when no such group exists, ``(x1, y1), (x2, y2)`` point pairs, then
  ``x1=.., y1=.., x2=.., y2=..``; "None" or ``[]`` is ``Parsed([], True, "none")``, a sentence saying the
  object is absent ("There is no giraffe visible here.") ``Parsed([], True, "absent")``.
* Replies longer than ``MAX_CHARS`` are cut to their last ``MAX_CHARS`` characters (answers sit at the
  end); reasoning models' ``<think>...</think>`` blocks are dropped.

The parsers live in one module per answer kind (``text``: clean-up, markers and :func:`response_text`;
``choice``: option labels and single choice; ``lettersets``; ``booleans``; ``lists``; ``objects``; ``boxes``); this
package re-exports every name, private ones included, and dispatches by answer format (``parse_answer``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ambi_plugin.core.parsing.booleans import (  # noqa: F401 - re-exported
    _BOOL_VOCAB,
    _DETERMINER_NO,
    _NEGATABLE,
    _NEGATION,
    _VERDICT,
    _VERDICT_END,
    _determiner_no,
    _read_bool,
    _verdicts,
    parse_bool,
)
from ambi_plugin.core.parsing.boxes import (  # noqa: F401 - re-exported
    _ABSENT,
    _BARE4,
    _BOX4,
    _NAMED4,
    _NONE_BOX,
    _NUM,
    _POINTS,
    _box,
    parse_boxes,
)
from ambi_plugin.core.parsing.choice import (  # noqa: F401 - re-exported
    _AMBIGUOUS_WORDS,
    _KEYWORD_BEFORE,
    _LABEL_AFTER_WORD_OK,
    _LEADING_JUNK,
    _NEGATED_BEFORE,
    _ROMAN_ALT,
    _ROMAN_MAX,
    _ROMAN_VALUE,
    _WEAK_WORDS,
    _Cand,
    _candidates,
    _choice_result,
    _informative,
    _label_index,
    _label_re,
    _light_norm,
    _norm_option,
    _option_by_text,
    _read_choice,
    _roman,
    _start_label,
    _unique,
    format_options,
    option_label,
    parse_choice,
)
from ambi_plugin.core.parsing.lettersets import (  # noqa: F401 - re-exported
    _list_like,
    parse_letter_set,
)
from ambi_plugin.core.parsing.lists import (  # noqa: F401 - re-exported
    _BULLET_LINE,
    _EDGE_JUNK,
    _ITEM_LABEL,
    _LEAD_IN,
    _NUMBERED,
    _REFUSALS,
    _answer_span,
    _clean_item,
    _numbered_split,
    _split_items,
    parse_layers,
    parse_list,
)
from ambi_plugin.core.parsing.objects import (  # noqa: F401 - re-exported
    _ARTICLE,
    _GENERIC,
    _IN_SENTENCE,
    _OBJECT,
    _PHRASE_STOP,
    _QUOTED,
    _SENTENCE_END,
    _noun_phrase,
    _object_in_sentence,
    parse_free,
    parse_object,
)
from ambi_plugin.core.parsing.text import (  # noqa: F401 - re-exported
    _BOOL_MARKER,
    _CLOSING_TAG,
    _CTRL,
    _MARKER,
    _QUOTES,
    MAX_CHARS,
    OPTION_STYLES,
    OptionStyle,
    Parsed,
    _clean,
    _fail,
    _segments,
    _to_text,
    _total,
    extract_answer_marker,
    response_text,
)

# ----------------------------------------------------------------------------- dispatch


def _style(kw: dict[str, Any], default: str) -> str:
    """The record's ``option_style`` when valid (labels shown are the labels read), else the format's."""
    style = kw.get("style")
    return style if style in OPTION_STYLES else default


def parse_color(text: Any) -> Parsed:
    """An open color answer -> the first color term it names (after the last answer marker when there is
    one), as a :class:`ambi_plugin.core.colors.ColorTerm`; unparseable when it names none."""
    from ambi_plugin.core.colors import answer_color

    term = answer_color(_clean(text))
    return Parsed(term, True) if term is not None else _fail("no_color_term")


_BY_FORMAT: dict[str, Callable[..., Parsed]] = {
    "letter": lambda t, **kw: parse_choice(
        t, kw.get("n_options", 0), style=_style(kw, "letter"), options=kw.get("options")
    ),
    "roman": lambda t, **kw: parse_choice(
        t, kw.get("n_options", 0), style=_style(kw, "roman"), options=kw.get("options")
    ),
    "letter_set": lambda t, **kw: parse_letter_set(t, kw.get("n_options", 0), none_index=kw.get("none_index")),
    "true_false": lambda t, **kw: parse_bool(t, kind="true_false", question=kw.get("question")),
    "yes_no": lambda t, **kw: parse_bool(t, kind="yes_no", question=kw.get("question")),
    "object": lambda t, **kw: parse_object(t),
    "comma_list": lambda t, **kw: parse_list(t, sep=kw.get("sep", ",")),
    "layers": lambda t, **kw: parse_layers(t),
    "boxes": lambda t, **kw: parse_boxes(t),
    "free": lambda t, **kw: parse_free(t),
    "color": lambda t, **kw: parse_color(t),
}


def get_parser(fmt: str, **kw: Any) -> Callable[[Any], Parsed]:
    """A one-argument parser for answer format ``fmt``; raises ValueError now for a bad configuration.

    ``letter``/``roman`` need ``n_options`` or ``options``; ``letter_set`` needs ``n_options``.
    """
    if fmt not in _BY_FORMAT:
        raise ValueError(f"Expected argument `fmt` to be one of {tuple(_BY_FORMAT)} but got {fmt!r}")
    if fmt in ("letter", "roman", "letter_set") and not (kw.get("n_options") or kw.get("options")):
        raise ValueError(
            f"answer format {fmt!r} needs `n_options` (or `options`), e.g. get_parser({fmt!r}, n_options=4)"
        )
    if kw.get("style") is not None and kw["style"] not in OPTION_STYLES:
        raise ValueError(f"Expected argument `style` to be one of {OPTION_STYLES} but got {kw['style']!r}")
    if fmt == "letter_set" and not kw.get("n_options"):
        kw["n_options"] = len(kw["options"])
    return functools.partial(parse_answer, fmt=fmt, **kw)


def _parse_answer(text: Any, fmt: str, **kw: Any) -> Parsed:
    """Parse ``text`` with the parser of answer format ``fmt`` (one of ``schema.ANSWER_FORMATS``)."""
    fn = _BY_FORMAT.get(fmt) if isinstance(fmt, str) else None
    if fn is None:
        return _fail(f"unknown_format: {fmt!r}")
    return fn(text, **kw)


parse_answer = _total(_parse_answer)
