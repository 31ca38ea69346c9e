"""True/false statements: a reply read against the statement it judges when it has no word "true" or "false".

Used by :func:`ambi_plugin.core.parsing.parse_bool` (``kind="true_false"``) given the item's statement, on top of
the restatement rules of :mod:`ambi_plugin.core.restate` (content words, synonyms and antonyms, the last clause
that restates decides). What a statement adds:

* Its framing ("In the figure, ...") is not part of the claim, and a reply may conclude without its trailing
  qualifier ("along a vertical axis", "between 2004 and 2006"; of a statement read as subject and predicate).
* The reply is put in the statement's terms before it is compared (:func:`_in_statement_terms`):
  "meets the criteria for being a X" states "is a X", and "meets (all) the criteria" naming no term states it of
  the statement's term ("a radius"); "this property" is the statement's property ("has reflectional symmetry");
  "it", "this", "the figure", "the shape" (one thing) and "they", "these points" (several) heading a clause stand
  for the statement's subject when the reply names that subject (its point label, or its points one by one) and no
  other figure of as many points; points listed one by one ("N, A, M, and P") are the label NAMP; a term's
  definition in its place is the term ("a closed shape with four sides", "has four sides": a quadrilateral; "are
  mirror images": symmetric); a line "consistently above" another, or that "remains below" it, does not intersect
  it. A premise ("Since ...,", "Given that ...,", "..., because ...") is a clause apart from its conclusion, so that
  "Since AB does not pass through O, it cannot be a diameter" is one negation, not two. A decimal point ("T=0.25")
  ends no sentence.
* When the reply names another figure of as many points as the statement's ("CD" for "the line AB"), a clause about
  that figure, or headed by a pronoun that may stand for it ("Therefore, it is a diameter"), says nothing of the
  statement's.
* In a chain of thought, concluding sentences decide ("Therefore", "we can see that", "Since ...", "Given that
  ..."); else the last complete sentence, headings skipped (of a reply cut off by its output limit: the last one
  before the cut); else a cut-off last sentence that already names every word of the statement; else the first
  sentence when it names every word and is no heading. A heading ends with a colon, opens with "#" or "Step 4" (six
  words at most), or is a line without a full stop of at most three words or in title case ("Estonia and Lebanon
  Lines Intersecting"): the reply comes without its bold markers ("**"), which ``parse_bool`` drops.
* A reply cut off mid-word ("does not have reflection") is read with the word completed when it begins a word of
  the statement; one cut off right after the statement's subject and a negated auxiliary ("... it is evident that
  the lines for Estonia and Lebanon do not") denies the statement's predicate, elided as in the reply "They do
  not." (the one answer the words can give: a bare "They do" is left unread).
* A clause restates the statement only when it names the first word of its predicate ("diameter", "intersect",
  "symmetric"); a definition ("A diameter of a circle is ...", "the definition of a radius requires ..."), a clause
  about the term itself ("the diameter is a line segment ..."), a requirement ("for AB to be a diameter, it must
  ..."), a conditional or a plan ("If the molecule looks the same ...", "we need to check if ...") states nothing
  about the figure.

No rule reads a verdict from evidence alone: "the line CD does not pass through the center" (a diameter's defining
property, not the word) and "All three edges are explicitly connected" leave the reply unread.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from ambi_plugin.core.restate import _CONCLUDES, _QUESTION, _QUOTED, _last_restatement, _question_text, _read

# where to look, not what is claimed: "In the left chart in the figure, the two lines ..."
_FRAMING = frozenset("figure figures chart charts graph graphs diagram diagrams plot plots panel subplot along".split())
_FRAME_LEAD = re.compile(r"^\s*in\s+(?:the|a|an|this)\b[^,]{0,80},\s*", re.IGNORECASE)
# "meets the criteria for being a quadrilateral" states "is a quadrilateral"; "does not meet ..." denies it
_MEETS = re.compile(
    r"\b(?:meets?|meeting|satisf(?:y|ies)|fulfill?s?|matches|match)\s+(?:all\s+)?(?:of\s+)?the\s+"
    r"(?:criteria|criterion|definition|requirements?|conditions?)\s+(?:of|for)\s+(?:being\s+)?(?!being\W*$)(?=\w)",
    re.IGNORECASE,
)
# the same naming no term ("the figure meets all the criteria: ...", cut off at "meets the criteria for being")
_MEETS_BARE = re.compile(
    r"\b(?:meets?|meeting|satisf(?:y|ies)|fulfill?s?)\s+(?:all\s+)?(?:of\s+)?the\s+"
    r"(?:criteria|criterion|definition|requirements?|conditions?)\b(?:\s+for(?:\s+being)?\W*$)?(?!\s+(?:of|for)\b)",
    re.IGNORECASE,
)
# a statement's trailing qualifier: "... has reflectional symmetry | along a vertical axis", "... intersect | between"
_QUALIFIER = re.compile(r"\s(?:along|between|from|within|in\s+(?:this|the)\s+(?:figure|image|chart|graph|diagram))\b")

# a definition: "A diameter of a circle is ...", "**Definition of Diameter:** A diameter of a circle is ..."
_DEFINITION = re.compile(
    r"[\W_]*(?:[^:\n]{0,40}:[\W_]*)?(?:a|an)\s+\w+(?:\s+of\s+(?:a|an)\s+\w+)?\s+(?:is|are|has|have|means)\b",
    re.IGNORECASE,
)
# what a definition says: "the definition of a radius requires that ...", "is defined as"
_DEFINES = re.compile(
    r"\bdefinitions?\s+of\s+(?:an?\s+)?(?:\w+\s+){1,3}(?:requires?|is|are|states?|says?|means?|involves?)\b"
    r"|\b(?:is|are)\s+defined\s+(?:as|by)\b|\bby\s+definition\b",
    re.IGNORECASE,
)
# a conditional or a plan states nothing: "If the molecule looks the same ...", "we need to check if ..."
_CONDITIONAL = re.compile(
    r"\b(?:if|unless|would|suppose|imagine|need\s+to|needs\s+to|have\s+to|has\s+to|let's|let\s+us)\b"
    r"|\bto\s+(?:check|verify|test|confirm|assess|evaluate|analy[sz]e|examine)\b"
    r"|\bfor\s+(?:\w+\s+){1,3}to\s+(?:be|exist|form|qualify)\b",  # "For a triangle DBC to exist, there must be ..."
    re.IGNORECASE,
)
# a chain of thought's conclusion, besides _CONCLUDES: "Based on the definition, ...", "**Conclusion**: ...",
# "Since AB meets the criteria for a diameter ...", "Given that ..., it meets ...", "we observe that ..."
_CONCLUDES_TOO = re.compile(
    r"\bbased\s+on\s+(?:th(?:e|is|ese)|our|my)\b|\bconclusion\b|\bsince\b|\bgiven\s+(?:that|this|these)\b"
    r"|\b(?:we|i)\s+(?:observe|see|notice|find)\s+that\b",
    re.IGNORECASE,
)
# a heading's opening ("### Analysis", "Step 2: Analyze the Figure"), bold markers or not
_HEADING = re.compile(r"[*_]*\s*(?:#|step\s+\d+\b)", re.IGNORECASE)
# a sentence: up to its end mark or line end, a decimal point kept ("The brown line (T=0.25) never crosses ...")
_SENTENCE = re.compile(r"(?:[^.!?\n]|(?<=\d)\.(?=\d))+(?:[.!?]+|\n|$)")
# the words a title leaves in lower case: "Estonia and Lebanon Lines Intersecting", "Lines Intersecting near 2009"
_TITLE_LOWER = frozenset(
    "a an the and or nor but of in on at to by for with from into onto over near than as vs".split()
)
# an answer marker left empty at the end of a reply ("Final answer:", "*Answer*:", "**"): nothing follows it
_EMPTY_ANSWER = re.compile(r"(?:\n\s*[*_#]*\s*(?:final\s+)?answer\s*[*_]*\s*:?\s*[*_]*|\n\s*[*_#]+)\s*$", re.IGNORECASE)

# the statement: "There is (no) a quadrilateral ABCD", "<subject> is/has/do (not) <predicate>", "<subject> intersect"
_THERE = re.compile(
    r"^(?i:there\s+(?:is|are)\s+(?P<neg>no\s+|not\s+an?\s+)?(?:an?\s+)?(?P<term>[a-z]+))\s+(?P<label>[A-Z]{2,6})\b"
)
_VERB = re.compile(
    r"\s+(?:(?P<aux>is|are|was|were|has|have|does|do|did|can)\b(?:\s+not\b|n't)?"
    r"|(?=(?:intersect|cross|meet|overlap)\w*\b))",
    re.IGNORECASE,
)
_LABEL = re.compile(r"\b[A-Z]{2,6}\b")
_LISTED = re.compile(r"\b[A-Z](?:\s*,\s*[A-Z])+\s*,?\s*and\s+[A-Z]\b")  # "N, A, M, and P"

# a clause headed by a word standing for the statement's subject ("it meets", "the figure is", "these points form"):
# "it", "this" for one thing, "they", "these" for several
_ANAPHOR = {
    plural: re.compile(
        (
            r"\b(?:they|these(?:\s+(?:points|lines))?)"
            if plural
            else r"\b(?:it|this|th(?:e|is)\s+(?:shape|figure|structure|polygon))"
        )
        + r"(?=\s+(?:(?:indeed|clearly|also|therefore|thus|then)\s+)?"
        r"(?:(?:is|are|does|do|has|have|ca)(?:n't)?|can(?:not)?|meets?|matches|satisf(?:ies|y)|fulfill?s|forms?)\b"
        r"(?!\s+(?:\w+\s+)?(?:that|to|whether|because)\b))",  # not "it is evident that", "it is possible to"
        re.IGNORECASE,
    )
    for plural in (False, True)
}
_PROPERTY = re.compile(
    r"\b(?:this|that|the\s+same|such\s+a|said)\s+(?:property|characteristic|feature)\b", re.IGNORECASE
)
# a term's definition in its place
_SIDES = {"three": "triangle", "four": "quadrilateral"}
_SIDED = re.compile(
    r"\b(?:an?\s+)?(?:closed\s+)?(?:shape|figure|polygon)\s+(?:with|having|enclosed\s+by|bounded\s+by)\s+"
    r"(?:exactly\s+)?(?P<n>three|four)\s+(?:straight\s+)?(?:sides|edges|line\s+segments|lines)\b"
    r"|\b(?:an?\s+)?(?P<m>three|four)-sided\s+(?:closed\s+)?(?:shape|figure|polygon)\b",
    re.IGNORECASE,
)
# "are (not) mirror images", "does not have any reflections or mirror images": (not) symmetric
_MIRROR = re.compile(
    r"\b(?P<be>are|is|be|being|were|has|have|had)(?P<neg>\s+(?:not|no))?(?:\s+any)?(?:\s+\w+\s+or)?"
    r"\s+(?:exact\s+|perfect\s+)?mirror\s+images?\b",
    re.IGNORECASE,
)
_STAYS_APART = re.compile(
    r"\b(?:(?:is|are|lies|lie|runs|run|stays?|remains?)\s+(?:consistently|always|entirely|completely|strictly)"
    r"|stays?|remains?)\s+(?:above|below|higher\s+than|lower\s+than)\b",
    re.IGNORECASE,
)
_UNTIL = re.compile(r"\b(?:until|except|before|after|then|cross\w*|intersect\w*|meet\w*|touch\w*)\b", re.IGNORECASE)
# a premise ("Since ...", "Given that ...") up to its comma (commas inside brackets kept): a clause of its own
_PREMISE = re.compile(r"(\b(?:since|given\s+that|because)\b[^,()\n.]*(?:\([^()\n]*\)[^,()\n.]*)*),", re.IGNORECASE)
# ... or after it: "AB is not a diameter, since it does not pass through O", "... does not have reflectional symmetry
# because the hydrogen atoms are not identical"
_PREMISE_AFTER = re.compile(r",?(?=\s*\b(?:since|given\s+that|because)\b)", re.IGNORECASE)
# a reply cut off right after a negated auxiliary: "... the lines for Estonia and Lebanon do not"
_ELIDED = re.compile(r"\b(?:do|does|did|is|are|was|were|has|have|can)\s*(?:\s+not|n't)\W*$", re.IGNORECASE)


class _Statement(NamedTuple):
    subject: str  # "the lines for Estonia and Lebanon", "AECB" (of "There is a quadrilateral AECB")
    predicate: str  # without its auxiliary and negation: "intersect between 2008 and 2010", "a quadrilateral"
    term: str  # the noun the statement predicates: "quadrilateral", "diameter"; "" when none
    label: str  # the subject's point label: "AECB", "CD"; "" when none
    has: bool  # the predicate is a property ("has reflectional symmetry")


def _parse_statement(text: str) -> _Statement | None:
    """The statement's subject, predicate, term, point label and whether it states a property; None when it has no
    verb to split it at."""
    s = _FRAME_LEAD.sub("", text.strip()).rstrip(" .")
    m = _THERE.match(s)
    if m:
        return _Statement(
            m.group("label"), f"a {m.group('term').lower()}", m.group("term").lower(), m.group("label"), False
        )
    m = _VERB.search(s)  # never at 0: it opens with a space, and s is stripped
    if m is None:
        return None
    subject, predicate = s[: m.start()].strip(), s[m.end() :].strip()
    term = re.match(r"(?:an?\s+)(\w+)", predicate, re.IGNORECASE)
    label = _LABEL.search(subject)
    return _Statement(
        subject,
        predicate,
        term.group(1).lower() if term else "",
        label.group(0) if label else "",
        (m.group("aux") or "").lower() in ("has", "have"),
    )


# cached (many replies share one statement) by a call, not a decorator: mutmut leaves decorated functions unmutated
_statement = functools.lru_cache(maxsize=1024)(_parse_statement)


def _figures(text: str, st: _Statement) -> list[str]:
    """The figures of as many points as the statement's label that ``text`` names: labels ("ANC") and points listed
    one by one ("A, B, and C" -> "ABC")."""
    groups = _LABEL.findall(text) + ["".join(re.findall(r"[A-Z]", m.group(0))) for m in _LISTED.finditer(text)]
    return [g for g in groups if len(g) == len(st.label)]


def _other_figure(text: str, st: _Statement) -> bool:
    """Whether ``text`` names a figure of as many points as the statement's, other than it ("CD" for "AB")."""
    return bool(st.label) and any(set(g) != set(st.label) for g in _figures(text, st))


def _names_subject(body: str, st: _Statement) -> bool:
    """Whether the reply names the statement's subject, and no other figure of as many points ("A, B, and C" when
    the statement is about ANC: "it" is that other triangle)."""
    if not st.label:
        return set(_read(st.subject)[0]) <= set(_read(body)[0])
    return bool(_figures(body, st)) and not _other_figure(body, st)


def _in_statement_terms(body: str, st: _Statement) -> str:
    """The reply with its references, lists of points and paraphrases put in the statement's words."""
    if len(st.label) >= 3:  # "N, A, M, and P" -> "NAMP"
        body = _LISTED.sub(
            lambda m: st.label if set(re.findall(r"[A-Z]", m.group(0))) == set(st.label) else m.group(0), body
        )
    body = _MEETS.sub("is a ", body)
    if st.term:
        body = _MEETS_BARE.sub(f"is a {st.term}", body)
    if st.has:
        body = _PROPERTY.sub(st.predicate, body)
    body = _SIDED.sub(lambda m: f"a {_SIDES[(m.group('n') or m.group('m')).lower()]}", body)
    body = re.sub(
        r"\b(?:has|have)\s+(?:exactly\s+)?(three|four)\s+(?:sides|edges)\b",
        lambda m: f"is a {_SIDES[m.group(1).lower()]}",
        body,
        flags=re.I,
    )
    body = _MIRROR.sub(r"\g<be>\g<neg> symmetric", body)  # a group that did not match writes nothing
    body = _SENTENCE.sub(
        lambda m: m.group(0) if _UNTIL.search(m.group(0)) else _STAYS_APART.sub("does not intersect", m.group(0)), body
    )
    if st.subject and _names_subject(body, st):
        plural = " and " in st.subject or re.search(r"s\W*$", st.subject) is not None
        body = _ANAPHOR[plural].sub(st.subject, body)
    return body


def _states_nothing(clause: str) -> bool:
    """A definition, a conditional or a plan: no verdict on the figure."""
    return any(p.search(clause) for p in (_DEFINES, _CONDITIONAL)) or _DEFINITION.match(clause) is not None


def _term_pattern(term: str) -> re.Pattern:
    """A clause about the statement's term itself, not the figure: "the diameter is a line segment that ...", "a
    triangle has three edges"."""
    return re.compile(
        rf"\b(?:an?|the)\s+{re.escape(term)}s?(?:\s+of\s+(?:an?|the)\s+\w+)?\s+"
        r"(?:is|are|has|have|means|must|should|can|requires?|connects?|passes|consists?)\b",
        re.IGNORECASE,
    )


_about_term = functools.lru_cache(maxsize=256)(_term_pattern)  # by a call, as _statement


def _head(st: _Statement | None) -> str:
    """The first content word of the statement's predicate ("diameter" of "a diameter of a circle", "intersect"):
    a clause that does not name it restates nothing ("the line CD does not pass through the center of the circle"
    shares "line", "CD" and "circle" with "the line CD is not a diameter of a circle", and says nothing of a
    diameter)."""
    return next(iter(_read(st.predicate)[0]), "") if st is not None else ""


def _heading(sentence: str) -> bool:
    """A heading or an introduction ("Conclusion", "### Analysis", "Step 4: Conclusion.", "Counting the edges, we
    have:", "Estonia and Lebanon Lines Intersecting"). The reply comes without its bold markers (``parse_bool`` drops
    "**"): "**Step 4: Conclusion.**" is known by its "Step 4", a title by its capitals."""
    t, words = sentence.strip(), re.findall(r"[A-Za-z]+", sentence)
    if t.endswith(":") or (_HEADING.match(t) is not None and len(words) <= 6):
        return True
    title = all(w[0].isupper() for w in words if w.lower() not in _TITLE_LOWER)
    return t[-1:] not in ".!?" and (len(words) <= 3 or title)


def statement_verdict(span: str, statement: str, *, conclusions_only: bool = False) -> bool | None:
    """True when the reply states ``statement``, False when it states its negation, None when it does neither.
    ``conclusions_only``: the reply is a chain of thought (see the module docstring for what decides)."""
    text = _question_text(statement)
    q_concepts, q_neg = _read(text)
    for w in _FRAMING:
        q_concepts.pop(w, None)
    if not q_concepts:
        return None
    claim = _FRAME_LEAD.sub("", text.strip())  # "In the left chart in the figure, " leads to the claim, ...
    cut = _QUALIFIER.search(claim)  # ... whose trailing qualifier ("between K=1024 and 2048") the core leaves out
    st = _statement(text)
    # only for a statement read as subject and predicate: without its verb ("All six chemical structures in the
    # figure include a black triangle ..."), half of "six chemical structures" is no restatement of it
    core = frozenset(_read(claim[: cut.start()])[0].keys() - _FRAMING) if cut and st is not None else frozenset()
    body = _EMPTY_ANSWER.sub("", _QUOTED.sub(" ", _QUESTION.sub(" ", span)))
    complete = re.search(r"[.!?]\s*$", body) is not None and body.count("(") <= body.count(")")
    if not complete:  # cut off: its last word may be the start of one of the statement's
        m = re.search(r"([a-z]{4,})\W*$", body, re.IGNORECASE)
        stub = m.group(1).lower() if m else ""
        full = next((w for w in re.findall(r"[a-z]+", text.lower()) if w.startswith(stub) and w != stub), None)
        if m and full:
            body = body[: m.start(1)] + full
        elif st is not None and (m := _ELIDED.search(body)) and _elides(body[: m.start()], st):
            body = body.rstrip() + " " + st.predicate
    if st is not None:
        body = _in_statement_terms(body, st)
    # "Since AB does not pass through O; it cannot be a diameter", "it cannot be a diameter; since ...": two clauses
    body = _PREMISE_AFTER.sub(";", _PREMISE.sub(r"\1;", body))
    sentences = [m.group(0) for m in _SENTENCE.finditer(body) if m.group(0).strip(" \t\n*#_-")]
    head = _head(st)
    term = _about_term(st.term) if st is not None and st.term else None

    # the reply names another figure of as many points ("The line CD passes through the center" for AB): a clause
    # about that figure, or headed by a pronoun that may stand for it ("Therefore, it is a diameter"), says nothing
    # of the statement's
    other = st is not None and _other_figure(body, st)

    def about_another(clause: str) -> bool:
        named = _figures(clause, st) if other else []
        if not other or any(set(g) == set(st.label) for g in named):
            return False
        return bool(named) or any(p.search(clause) for p in _ANAPHOR.values())

    def skip(clause: str) -> bool:
        return (
            _states_nothing(clause)
            or about_another(clause)
            or (head != "" and head not in _read(clause)[0])
            or (term is not None and term.search(clause) is not None)
        )

    kw = {"core": core, "skip": skip}
    if not conclusions_only:
        return _last_restatement(sentences, q_concepts, q_neg, False, **kw)
    concluding = [x for x in sentences if _CONCLUDES.search(x) or _CONCLUDES_TOO.search(x)]
    verdict = _last_restatement(concluding, q_concepts, q_neg, True, **kw)
    before_cut = [x for x in (sentences if complete else sentences[:-1]) if not _heading(x)]
    if verdict is None:  # a last sentence cut off ("intersects the pink line (T=0.") states nothing ...
        verdict = _last_restatement(before_cut[-1:], q_concepts, q_neg, True, **kw)
    if verdict is None and not complete:  # ... unless it already names every word of the statement
        verdict = _last_restatement(sentences[-1:], q_concepts, q_neg, True, every_word=True, **kw)
    if verdict is None:  # the first sentence, when it names every word (a premise is no answer), never a heading
        opening = [x for x in sentences[:1] if not _heading(x)]
        verdict = _last_restatement(opening, q_concepts, q_neg, True, every_word=True, **kw)
    return verdict


def _elides(head: str, st: _Statement) -> bool:
    """Whether ``head`` (the reply up to its last auxiliary) ends with the statement's subject, or a pronoun."""
    words = re.findall(r"[a-z0-9]+", head.lower())
    subject = [w for w in re.findall(r"[a-z0-9]+", st.subject.lower()) if w != "the"]
    return bool(subject) and (words[-len(subject) :] == subject or (bool(words) and words[-1] in ("they", "it")))
