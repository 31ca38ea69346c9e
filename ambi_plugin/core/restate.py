"""Yes/no and true/false verdicts that need more than the words "yes", "no", "true", "false".

Used by :func:`ambi_plugin.core.parsing.parse_bool` when a reply holds no verdict word it can use:

* :func:`hedge_verdict`: a reply that opens with a hedge or an emphatic word, "Not really", "Hardly",
  "Absolutely not", "I don't think so", "Negative" (False) and "Definitely", "Of course", "That's right",
  "Indeed", "I believe so" (True); Chinese 是 / 否 / 不是 / 对 / 不对 / 正确 / 错误 as well. A short
  auxiliary reply ("It is.", "They aren't.", "It does not.") also counts.
* :func:`restated_verdict`: a reply that restates the question instead of answering it. Asked "Are the two
  bars the same length?", "The bars are not the same length." is False and "They are equal in length." is
  True: the reply's sentences are compared with the question's content words (a small table maps synonyms,
  "equal" ~ "same", and antonyms, "different" = not "same"); a sentence that covers at least half of them
  (and at least one) is a restatement, and its verdict is whether its negations and antonyms cancel out.
  Sentences are cut into clauses at "but", "however", "although"; the last clause that restates the
  question wins (a chain of thought ends with its conclusion). A question the reply echoes and a clause that
  doubts ("I can't tell whether ...", "might", "not sure") state nothing. No clause covers the question: no
  verdict (unparseable), never a guess.
  A true/false statement is read by :mod:`ambi_plugin.core.statements`, which builds on these rules.

Both are linear in the reply (precompiled patterns, token sets), so parsing stays fast.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

# ----------------------------------------------------------------------------- hedges

_NEG_HEDGE = re.compile(
    r"""^(?:
        (?:absolutely|certainly|definitely|surely|of\s+course|probably|clearly|obviously|most\s+likely|
           almost\s+certainly|hell|heck)\s+not\b
      | not\s+(?:really|at\s+all|quite|exactly|in\s+the\s+slightest|so|likely|necessarily)\b
      | hardly\b | barely\b | scarcely\b | negative\b | nah\b | nay\b | nope\b | never\b | unlikely\b
      | no\s+way\b | by\s+no\s+means\b | i\s+doubt\s+(?:it|that|so)\b | doubtful\b
      | i\s+(?:don't|do\s+not)\s+(?:think|believe)\s+so\b | i\s+(?:don't|do\s+not)\s+(?:think|believe)\s+(?:it|they|that)\b
      | that(?:'s|\s+is)\s+(?:wrong|not\s+right|not\s+the\s+case)\b | wrong\b | false\b
      | (?:不是|不对|不正确|错误|错|否|没有|不(?!确定|知道|清楚|好说|一定|能确定|太确定))
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_POS_HEDGE = re.compile(
    r"""^(?:
        (?:definitely|of\s+course|absolutely|certainly|indeed|sure(?:ly)?|affirmative|exactly|precisely|
           right|correct|true|totally|undoubtedly|without\s+(?:a\s+)?doubt|yup|yeah|yea|aye|ok(?:ay)?|
           that(?:'s|\s+is)\s+(?:right|correct|true|the\s+case)|it\s+(?:certainly|definitely|indeed)\s+(?:is|does)|
           i\s+(?:think|believe|guess|would\s+say)\s+so|very\s+much\s+so|most\s+(?:likely|probably))\b
        (?!\s*,?\s*(?:not|n't)\b)
      | (?:是的|是(?!否)|对的|对|正确|有的|有(?!点|些|可能))
    )""",
    re.IGNORECASE | re.VERBOSE,
)
# "It is.", "They aren't.", "It does not.", "There are.": a short reply made of a subject and an auxiliary
_AUX_REPLY = re.compile(
    r"^(?:it|they|he|she|this|that|there|these|those|both|the\s+\w+(?:\s+\w+)?)\s+"
    r"(?:is|are|was|were|does|do|did|can|could|has|have|will|would|appears?\s+to|seems?\s+to)"
    r"(?P<neg>n't|\s+not)?(?:\s+(?:be|do|move|so))?\s*[.!]?$",
    re.IGNORECASE,
)
_HEDGE_END = re.compile(r"\s*(?:$|[.,;:!\n\u2013\u2014-]|\s+(?:the|it|they|that|this|there|i|as|because|since)\b)")
_CJK = re.compile(r"[\u3400-\u9fff]")
# a chat opener, not an answer: "Sure, here is my analysis", "Certainly! Let me look at the image."
_OPENER = re.compile(
    r"[\s,.!:;\u2013\u2014-]*(?:let\s+me|let's|here|i\s*(?:'ll|will|can|'d|would\s+be|am\s+happy|'m\s+happy)|happy\s+to|"
    r"glad\s+to|i'm\s+glad|to\s+answer|looking\s+at)\b",
    re.IGNORECASE,
)


def hedge_verdict(span: str) -> bool | None:
    """The verdict of a reply opening with a hedge ("Not really", "Of course") or a short auxiliary
    reply ("It is."); None when it has neither."""
    s = span.strip().lstrip("\"'*#>-:( ").strip()
    if not s:
        return None
    m = _AUX_REPLY.match(s) or _AUX_REPLY.match(re.split(r"(?<=[.!])\s", s, maxsplit=1)[0])  # "It is not. The ..."
    if m:
        return m.group("neg") is None
    for pattern, value in ((_NEG_HEDGE, False), (_POS_HEDGE, True)):
        m = pattern.match(s)
        if m and (_CJK.match(s) or _HEDGE_END.match(s, m.end())) and not _OPENER.match(s, m.end()):
            return value
    return None


# ----------------------------------------------------------------------------- restatements

_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
# clauses: sentences, and the parts of a sentence around "but", "however", "although" (the last one concludes)
_CLAUSE_SPLIT = re.compile(r"[.!?;\n]+|,?\s*\b(?:but|however|although|though|yet|whereas|while)\b", re.IGNORECASE)
_QUESTION = re.compile(r"(?:^|(?<=[.!?\n]))[^.!?\n]*\?")  # anchored at a sentence start: linear in the text
# a clause that doubts or asks rather than states: "I can't tell whether the bars are the same length"
_UNSURE = re.compile(
    r"\b(?:whether|tell|sure|unsure|unclear|uncertain|determine|determined|know|hard\s+to\s+say|ambiguous|"
    r"might|may|could|perhaps|possibly|maybe)\b",
    re.IGNORECASE,
)
_CHOICE_WORDS = re.compile(r"\b(?:yes\s*(?:or|/)\s*no|true\s*(?:or|/)\s*false)\b", re.IGNORECASE)
_NEGATORS = frozenset(
    {"not", "no", "never", "neither", "nor", "none", "nothing", "nowhere", "without", "cannot", "nobody"}
)
_STOP = frozenset(
    """a an the is are was were be been being am do does did doing done has have had having can could will would
    should shall may might must it its it's they them their there here this that these those he she his her i me my
    we our you your of in on at to for from by with as into onto over about than then so and or but if whether
    what which who whom whose how why where when both two each either any some all also just only very really
    quite rather more most image picture photo photograph shown shows show depicted depict depicts visible
    appear appears appeared seem seems seemed look looks looked actually indeed clearly obviously question
    statement answer based provided given yes no true false correct incorrect think believe respond response reply
    word words explanation explanations concise short sentence one between""".split()
)
# word -> (concept, flipped): "different" is "same" flipped; "equal" is "same"
_CONCEPTS: dict[str, tuple[str, bool]] = {}
_TABLE = (
    ("same", "same equal equally identical equivalent similar alike match matching congruent", "different differ differs unequal distinct dissimilar"),
    ("moving", "moving move moves motion movement moved rotating rotate rotates spinning spin spins animated flowing drifting", "static stationary still motionless immobile frozen"),
    ("straight", "straight parallel", "curved bent bending crooked wavy bowed tilted slanted converging diverging"),
    ("longer", "longer", "shorter"),
    ("larger", "larger bigger greater", "smaller lesser"),
    ("taller", "taller higher", "lower"),
    ("brighter", "brighter lighter", "darker"),
    ("left", "left", "right"),
    ("top", "top upper above", "bottom below"),
    ("present", "present exist exists existing contain contains containing", "absent missing"),
    ("intersect", "intersect intersects intersecting intersection cross crosses crossing crossed", ""),
    ("real", "real genuine possible", "impossible fake"),
    ("symmetric", "symmetric symmetrical symmetry symmetrically reflectional", "asymmetric asymmetrical asymmetry"),
)  # fmt: skip
_COMPARATIVES = frozenset({"longer", "larger", "taller", "brighter"})  # "the same" denies each of them
_PREDICATES = frozenset(row[0] for row in _TABLE)
for _concept, _syn, _ant in _TABLE:
    for _w in _syn.split():
        _CONCEPTS[_w] = (_concept, False)
    for _w in _ant.split():
        _CONCEPTS[_w] = (_concept, True)


def _stem(word: str) -> str:
    """A plural's singular ("bodies" -> "body", "bars" -> "bar", "ties" -> "tie"); a Latin plural and its singular
    share one stem ("vertices", "vertex" -> "vertic"; "matrices", "matrix" -> "matric"; "devices", "device" ->
    "devic"). The question and the reply are stemmed alike, so a word that is not a plural losing its "s" ("glass"
    -> "glas") changes nothing."""
    if word.endswith("ices") and len(word) > 5:
        return word[:-2]
    if word.endswith("ice") and len(word) > 4:
        return word[:-1]
    if word.endswith(("ex", "ix")) and len(word) > 4:
        return word[:-2] + "ic"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") else word


def _read(text: str) -> tuple[dict[str, bool], int]:
    """A text's content words as {concept: flipped} and its count of negations."""
    concepts: dict[str, bool] = {}
    negations = 0
    for word in _WORD.findall(text.lower()):
        if word.endswith("n't") or word in _NEGATORS:
            negations += 1
            continue
        if word in _STOP or len(word) < 2:  # "x", "t": axis and variable names
            continue
        concept, flipped = _CONCEPTS.get(word) or _CONCEPTS.get(_stem(word)) or (_stem(word), False)
        concepts.setdefault(concept, flipped)
    return concepts, negations


def _read_question(question: str) -> tuple[dict[str, bool], int]:
    """The question's content words and negations."""
    return _read(_question_text(question))


# cached (many replies share one question) by a call, not a decorator: mutmut leaves decorated functions unmutated
_question_concepts = functools.lru_cache(maxsize=4096)(_read_question)


def _question_text(question: str) -> str:
    """The question itself: its sentences ending in "?" when it has any (a prompt's "Respond ONLY with Yes or
    No." dropped), without "yes or no" / "true or false"; the statement before "True or False?" when that is all
    the question asks."""
    asked = _QUESTION.findall(question)
    text = _CHOICE_WORDS.sub(" ", " ".join(asked) if asked else question)
    if asked and not re.search(r"[a-z]{2}", text, re.IGNORECASE):  # "<statement>. True or False? <instructions>"
        text = question[: question.find(asked[0])]
    return text


# a sentence that concludes a chain of thought: "Therefore, ...", "we can see that ...", "this indicates that ..."
_CONCLUDES = re.compile(
    r"\b(?:therefore|thus|hence|consequently|so|in\s+conclusion|in\s+summary|overall|as\s+a\s+result|"
    r"(?:we|i)\s+can\s+(?:see|conclude|observe)|it\s+is\s+(?:evident|clear|apparent)|"
    r"(?:this|which)\s+(?:indicates|means|shows|suggests|confirms)|upon\s+(?:examining|examination|inspection))\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")
_QUOTED = re.compile(r"\"[^\"\n]*(?:\"|$)")
# the reply says it cannot tell: "I cannot say for certain", "it is not clear", "impossible to tell"
_UNCERTAIN = re.compile(
    r"\b(?:cannot|can't|can\s+not|could\s*(?:not|n't)|unable\s+to)\s+(?:\w+\s+){0,3}?"
    r"(?:tell|say|determine|confirm|know|be\s+(?:sure|certain|confirmed|determined))\b"
    r"|\b(?:not|n't)\s+(?:\w+\s+)?possible\s+(?:for\s+\w+\s+)?to\s+(?:tell|say|determine|know|confirm)\b"
    r"|\b(?:not|n't)\s+(?:entirely\s+|completely\s+|quite\s+|very\s+)?(?:clear|sure|certain)\b"
    r"|\bimpossible\s+to\s+(?:tell|say|determine|know)\b"
    r"|\b(?:unclear|uncertain)\b|\bno\s+way\s+to\s+(?:tell|know|determine)\b|\b(?:hard|difficult)\s+to\s+(?:tell|say|determine)\b"
    r"|\bwithout\s+(?:additional|more|further)\s+(?:information|context)\b|\breasonable\s+to\s+(?:assume|infer)\b",
    re.IGNORECASE,
)


def uncertain(span: str) -> bool:
    """Whether the reply says it cannot tell ("I cannot say for certain", "it is not clear", "no way to tell")."""
    return _UNCERTAIN.search(span) is not None


def restated_verdict(span: str, question: str, *, conclusions_only: bool = False) -> bool | None:
    """True when the reply restates ``question`` as it is, False when it restates its negation; None when no
    clause of the reply covers at least half of the question's content words. The last clause that does
    decides; "the same" in the reply denies a comparative ("larger") of the question, and "different" (or "not the
    same") states nothing about it: which one is larger is not said. A quoted sentence is mentioned, not stated; with
    ``conclusions_only`` (a chain of thought) only concluding sentences count ("Therefore, ...", "we can see that
    ..."): the sentences before them describe evidence. A true/false statement is read by
    :func:`ambi_plugin.core.statements.statement_verdict`, on top of these rules."""
    q_concepts, q_neg = _question_concepts(question)
    if not q_concepts:
        return None
    sentences = [m.group(0) for m in _SENTENCE.finditer(_QUOTED.sub(" ", _QUESTION.sub(" ", span)))]
    if conclusions_only:
        sentences = [x for x in sentences if _CONCLUDES.search(x)]
    return _last_restatement(sentences, q_concepts, q_neg, conclusions_only)


def _last_restatement(
    sentences: list[str],
    q_concepts: dict[str, bool],
    q_neg: int,
    conclusions_only: bool,
    *,
    core: frozenset | None = None,
    every_word: bool = False,
    skip: Callable[[str], bool] | None = None,
) -> bool | None:
    """The verdict of the last clause of ``sentences`` that restates the question (None when none does).
    ``core`` (a true/false statement, read in a chain of thought): the statement's words before its trailing
    qualifiers; a clause covering half of them counts too, as does one naming the statement's predicate
    ("intersect") and another of its words.
    ``every_word``: only a clause naming every content word of the question counts.
    ``skip``: clauses it holds to state nothing (a statement's definitions and conditionals)."""
    verdict = None
    for clause in (c for x in sentences for c in _CLAUSE_SPLIT.split(x)):  # an echoed question states nothing
        if _UNSURE.search(clause):
            continue
        a_concepts, a_neg = _read(clause)
        compared = [c for c in _COMPARATIVES & q_concepts.keys() if c not in a_concepts]
        if compared and "same" in a_concepts and "same" not in q_concepts:
            if a_concepts["same"] != (a_neg % 2 == 1):  # "different sizes", "not the same": which one is larger?
                continue
            for c in compared:  # "the same size" (or "not different"): not larger, whatever the negations
                a_concepts[c] = q_concepts[c] != (a_neg % 2 == 0)
        shared = [c for c in q_concepts if c in a_concepts]
        in_core = [c for c in core or () if c in a_concepts]
        if every_word and len(shared) < len(q_concepts):
            continue
        if skip is not None and skip(clause):
            continue
        names_predicate = core is not None and len(shared) >= 2 and any(c in _PREDICATES for c in shared)
        half = 2 * len(shared) >= len(q_concepts) or (core and 2 * len(in_core) >= len(core)) or names_predicate
        if not shared or not half:
            continue
        if conclusions_only and len(shared) < min(2, len(q_concepts)):
            continue  # in a chain of thought, "the line ... is above ..." restates no "the lines intersect"
        if any(c in _PREDICATES for c in q_concepts) and not any(c in _PREDICATES for c in shared):
            continue  # the question's predicate ("intersect", "same") is what a restatement must state
        flips = sum(1 for c in shared if a_concepts[c] != q_concepts[c])
        verdict = (a_neg + q_neg + flips) % 2 == 0
    return verdict
