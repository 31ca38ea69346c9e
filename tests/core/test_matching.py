"""Offline matcher: AmbiBench A.5/A.10 examples, synonym/hypernym/unrelated tables, lexicon checks."""

from __future__ import annotations

import pytest

from ambi_plugin.core.matching import (
    LEXICON_PATH,
    Matcher,
    OfflineMatcher,
    default_matcher,
    lemmatize,
    match_terms,
    matches,
)


@pytest.fixture(scope="module")
def m() -> OfflineMatcher:
    return OfflineMatcher()


# ----------------------------------------------------------------------------- the paper's examples

# A.5 judge examples ("Predicted: X; Ground Truth: Y; Response: ..."), word level, either direction.
A5_EXAMPLES = [("Insect", "Insect", True), ("Insect", "Spider", True), ("Insect", "Leaves", False)]


@pytest.mark.parametrize(("a", "b", "expected"), A5_EXAMPLES)
def test_a5_judge_examples(m, a, b, expected):
    assert m.matches(a, b) is expected
    assert m.matches(b, a) is expected


# The A.10 example outputs, position by position, are tested through the offline judge (which uses this
# matcher) in tests/judge/test_offline.py, and item by item through score_item in
# tests/benchmarks/test_ambibench_examples.py.


# ----------------------------------------------------------------------------- pair tables

SYNONYMS = [
    ("car", "automobile"),
    ("rabbit", "bunny"),
    ("sea horse", "seahorse"),
    ("square", "box"),
    ("cross", "plus sign"),
    ("diamond", "rhombus"),
    ("crescent", "crescent moon"),
    ("up arrow", "arrow pointing up"),
    ("six", "6"),
    ("6", "six"),
    ("woman", "lady"),
    ("old woman", "old lady"),
    ("young woman", "girl"),
    ("skull", "cranium"),
    ("sand dune", "dunes"),
    ("ladybug", "ladybird"),
    ("couch", "sofa"),
    ("tv", "television"),
    ("sea", "ocean"),
]
HYPERNYMS = [  # (broader, narrower): both directions match (A.5 rule 2)
    ("insect", "butterfly"),
    ("insect", "bee"),
    ("insect", "moth"),
    ("insect", "ant"),
    ("bird", "eagle"),
    ("bird", "owl"),
    ("fish", "shark"),
    ("animal", "butterfly"),  # transitive: animal > insect > butterfly
    ("animal", "panda"),
    ("mammal", "cat"),
    ("plant", "cactus"),
    ("plant", "rose"),
    ("fruit", "apple"),
    ("vehicle", "car"),
    ("person", "woman"),
    ("woman", "old woman"),
    ("woman", "young woman"),
    ("landscape", "desert"),
    ("landscape", "forest"),
    ("landscape", "mountain"),
    ("shape", "hexagon"),
    ("shape", "star"),
    ("polygon", "pentagon"),
    ("moon", "crescent"),
    ("arrow", "up arrow"),
]
UNRELATED = [
    ("insect", "leaf"),
    ("panda", "mushroom"),
    ("sea", "seal"),
    ("sea", "sea lion"),
    ("horse", "sea horse"),
    ("old woman", "young woman"),
    ("up arrow", "down arrow"),
    ("circle", "square"),
    ("cat", "bat"),
    ("bee", "mountain"),
    ("face", "vase"),
    ("butterfly", "butter"),
    ("skull", "abstract shapes"),
    ("duck", "rabbit"),
    ("6", "9"),
    ("a", "b"),
]
PHRASES = [  # (gold, predicted, expected): head-noun and phrase rules
    ("skull", "cow skull", True),
    ("desert", "desert scene", True),
    ("desert", "desert landscape", True),
    ("mountain", "Grayscale painting of a mountain", True),
    ("bee", "A bee painting", True),
    ("cat in a garden", "a white cat", True),
    ("insect", "bee painting", True),
    ("old woman", "old woman's face", True),
    ("young woman", "old woman's face", False),  # antonym modifier
    ("old cat", "young cat", False),
    ("skull", "no skull", False),  # negated
    ("a", "the letter A", True),
    ("6", "the number six", True),
    ("heart", "heart-shaped", True),
    ("The Butterflies!", "butterfly", True),
    ("seal", "sea", False),
]


@pytest.mark.parametrize(("a", "b"), SYNONYMS)
def test_synonyms(m, a, b):
    assert m.matches(a, b) and m.matches(b, a)


@pytest.mark.parametrize(("broad", "narrow"), HYPERNYMS)
def test_hypernyms_either_direction(m, broad, narrow):
    assert m.matches(broad, narrow) and m.matches(narrow, broad)


@pytest.mark.parametrize(("a", "b"), UNRELATED)
def test_unrelated(m, a, b):
    assert not m.matches(a, b) and not m.matches(b, a)


@pytest.mark.parametrize(("gold", "pred", "expected"), PHRASES)
def test_phrases(m, gold, pred, expected):
    assert m.matches(gold, pred) is expected


# ----------------------------------------------------------------------------- set matching


@pytest.mark.parametrize(
    ("gold", "predicted", "expected"),
    [
        (["six|6"], ["6"], True),  # alternatives
        (["six|6"], ["nine"], False),
        (["cat", "dog"], ["dog", "kitten"], True),  # order free
        (["cat", "cat"], ["cat"], False),  # distinct predicted terms
        (["cat", "kitten"], ["cat", "kitten"], True),
        (["insect", "butterfly"], ["butterfly", "beetle"], True),  # needs the right assignment
        (["desert"], ["desert scene", "sand dunes", "cacti", "mountains", "sunset"], True),
        (["shark"], [], False),
        ([], ["anything"], True),
        (["", "cat"], ["cat"], True),  # blank gold concepts are ignored
        ("cat", "a cat", True),  # single strings are accepted
    ],
)
def test_match_terms(m, gold, predicted, expected):
    assert m.match_terms(gold, predicted) is expected


def test_module_level_helpers_and_protocol():
    assert isinstance(default_matcher(), Matcher)
    assert default_matcher() is default_matcher()
    assert matches("Insect", "Butterfly") and not matches("Insect", "Leaf")
    assert match_terms(["desert", "skull"], ["cow skull", "desert scene"])


# ----------------------------------------------------------------------------- lemmatiser and lexicon


@pytest.mark.parametrize(
    ("word", "lemma"),
    [
        ("cats", "cat"),
        ("boxes", "box"),
        ("foxes", "fox"),
        ("churches", "church"),
        ("butterflies", "butterfly"),
        ("leaves", "leaf"),
        ("wolves", "wolf"),
        ("knives", "knife"),
        ("waves", "wave"),
        ("glasses", "glass"),
        ("mice", "mouse"),
        ("geese", "goose"),
        ("people", "person"),
        ("women", "woman"),
        ("men", "man"),
        ("children", "child"),
        ("teeth", "tooth"),
        ("feet", "foot"),
        ("cacti", "cactus"),
        ("fungi", "fungus"),
        ("cactus", "cactus"),
        ("bus", "bus"),
        ("sheep", "sheep"),
        ("species", "species"),
        ("6", "6"),
    ],
)
def test_lemmatize(word, lemma):
    assert lemmatize(word) == lemma


def test_lemmatize_uses_vocabulary():
    assert lemmatize("horses", {"horse"}) == "horse"
    assert lemmatize("buses", {"bus"}) == "bus"
    assert lemmatize("glasses", {"glasses"}) == "glasses"  # a lexicon word stays as it is


def test_lexicon_ships_next_to_module_and_loads():
    assert LEXICON_PATH.name == "lexicon.yaml" and LEXICON_PATH.is_file()
    assert OfflineMatcher(LEXICON_PATH).matches("insect", "butterfly")


def test_custom_lexicon_mapping():
    lex = {"synonyms": [["gizmo", "widget"]], "hyponyms": {"tool": ["gizmo"]}}
    cm = OfflineMatcher(lex)
    assert cm.matches("widget", "gizmo") and cm.matches("tool", "widget")
    assert not cm.matches("insect", "butterfly")  # not in this lexicon


@pytest.mark.parametrize(
    ("lex", "message"),
    [
        ({"synonyms": [["a1", "b1"], ["b1", "c1"]]}, "two synonym groups"),
        ({"synonyms": ["notalist"]}, "non-empty list"),
        ({"hyponyms": {"tool": "hammer"}}, "must be a list"),
    ],
)
def test_bad_lexicon_errors(lex, message):
    with pytest.raises(ValueError, match=message):
        OfflineMatcher(lex)


def test_bad_lexicon_path(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        OfflineMatcher(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n")
    with pytest.raises(ValueError, match="expected a mapping"):
        OfflineMatcher(bad)


def test_shipped_lexicon_has_no_hypernym_cycles(m):
    for child in m._parents:
        assert child not in m._ancestors(child), child
