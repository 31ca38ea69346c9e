"""Answer parsers: tables of real-looking replies, and a seeded fuzz proving they never raise."""

from __future__ import annotations

import random
import time

import pytest

from ambi_plugin.core.parsing import (
    Parsed,
    extract_answer_marker,
    format_options,
    get_parser,
    option_label,
    parse_answer,
    parse_bool,
    parse_boxes,
    parse_choice,
    parse_free,
    parse_layers,
    parse_letter_set,
    parse_list,
    parse_object,
)
from ambi_plugin.core.schema import ANSWER_FORMATS

# ----------------------------------------------------------------------------- single choice

LETTER_CASES = [
    ("B", 1),
    ("b", 1),
    ("b.", 1),
    ("(B)", 1),
    ("B)", 1),
    ("[B]", 1),
    ("**B**", 1),
    ("Answer: B", 1),
    ("'Answer': B", 1),
    ("**Answer**: B", 1),
    ("The answer is B", 1),
    ("The answer is: (B).", 1),
    ("The correct option is (b)", 1),
    ("I think it is B.", 1),
    ("B. The upper line", 1),
    ("B - the upper line", 1),
    ("Option B", 1),
    ("option (c) is right", 2),
    ("B is correct", 1),
    ("It's B", 1),
    ("e.g. B", 1),
    ("The correct one is (B), not A.", 1),
    ("A", 0),
    ("a.", 0),
    ("(a)", 0),
    ("Ｂ", 1),  # full-width letter (NFKC)
    ("<think>A or B? The shading says A.</think>\nC", 2),
    ("Looking at the image, A seems plausible, but B is wrong too.\nAnswer: A. Wait.\nAnswer: C", 2),  # last marker
    ("Step 1: compare the lines. 'Answer': D", 3),
]


@pytest.mark.parametrize(("text", "index"), LETTER_CASES)
def test_choice_letter(text, index):
    got = parse_choice(text, 4, style="letter")
    assert got == Parsed(index, True, got.reason), got
    assert got.reason in ("", "option_text")


@pytest.mark.parametrize("text", ["F", "Answer: F", "(Z)", "The answer is G."])
def test_choice_out_of_range_is_parsed_and_wrong(text):
    assert parse_choice(text, 4, style="letter") == Parsed(-1, True, "out_of_range")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I think it is false", "no_label"),  # "I" is the pronoun
        ("A cat is hiding in the leaves", "no_label"),  # "A" is the article
        ("The answer is a bit unclear", "no_label"),
        ("Both lines are the same", "no_label"),  # no options given: "Both" is not "B"
        ("A or B", "ambiguous"),
        ("A is wrong, B is right", "ambiguous"),
        ("B because A is shorter", "ambiguous"),
        ("Answer: I don't know", "no_label"),
        ("", "empty"),
        (None, "empty"),
        ("   \n  ", "empty"),
    ],
)
def test_choice_unparseable(text, reason):
    assert parse_choice(text, 4, style="letter") == Parsed(None, False, reason)


ROMAN_CASES = [
    ("II", 1),
    ("ii.", 1),
    ("iii", 2),
    ("Answer: IV", 3),
    ("(iii)", 2),
    ("i", 0),
    ("I.", 0),
    ("I think ii", 1),
    ("iv) the first one", 3),
]


@pytest.mark.parametrize(("text", "index"), ROMAN_CASES)
def test_choice_roman(text, index):
    assert parse_choice(text, 4, style="roman") == Parsed(index, True)


def test_choice_roman_vs_letter_confusion():
    assert not parse_choice("I think it is false", 4, style="roman").ok
    assert not parse_choice("The answer is B", 4, style="roman").ok  # a letter is not a numeral
    assert parse_choice("V", 4, style="roman") == Parsed(-1, True, "out_of_range")
    assert parse_choice("ii", 4, style="letter").ok is False  # a numeral is not a letter
    assert parse_choice("Answer: I", 10, style="letter") == Parsed(8, True)  # I is a letter with 9+ options


OPTIONS = ["The upper line", "The lower line", "Both lines are the same"]


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("Both lines are the same", 2),  # exact option text beats the letter-like "Both"
        ("both lines are the same.", 2),
        ("the upper line.", 0),
        ("upper", 0),  # response inside exactly one option
        ("I believe the lower line is longer", 1),  # exactly one option inside the response
        ("Answer: The lower line", 1),
        ("B", 1),
    ],
)
def test_choice_option_text(text, index):
    got = parse_choice(text, 3, options=OPTIONS)
    assert got.ok and got.value == index


def test_choice_option_text_ambiguous():
    assert not parse_choice("line", 3, options=OPTIONS).ok  # inside two options
    assert not parse_choice("the upper line or the lower line", 3, options=OPTIONS).ok


def test_choice_bad_configuration_is_unparseable_not_raised():
    assert parse_choice("B", 0).reason == "bad_n_options"
    assert parse_choice("B", 4, style="greek").reason.startswith("bad_style")
    assert parse_choice("B", 0, options=["x", "y"]) == Parsed(1, True)  # n taken from options


# ----------------------------------------------------------------------------- letter sets


@pytest.mark.parametrize(
    ("text", "value", "reason"),
    [
        ("A, C", {0, 2}, ""),
        ("A and C", {0, 2}, ""),
        ("A,C", {0, 2}, ""),
        ("(A) (C)", {0, 2}, ""),
        ("Answer: A, C", {0, 2}, ""),
        ("a, c", {0, 2}, ""),
        ("A, B", {0, 1}, ""),
        ("E", {4}, ""),  # the None option
        ("None", {4}, "none"),
        ("A, E", {0, 4}, ""),  # None with others: kept, scored wrong
        ("A, F", {0, 5}, "out_of_range"),  # letter list: F kept as index 5 -> wrong
        ("The image shows a car (A) and a face (B)", {0, 1}, ""),
        ("I can see A and C. X marks nothing.", {0, 2}, ""),  # prose: out-of-range X ignored
    ],
)
def test_letter_set(text, value, reason):
    assert parse_letter_set(text, 5, none_index=4) == Parsed(frozenset(value), True, reason)


def test_letter_set_without_none_option_and_unparseable():
    assert parse_letter_set("None", 4, none_index=None) == Parsed(frozenset(), True, "none")
    assert parse_letter_set("I am not sure", 5, none_index=4) == Parsed(None, False, "no_letters")
    assert parse_letter_set("", 5, none_index=4).reason == "empty"


# ----------------------------------------------------------------------------- booleans


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("True", True),
        ("true.", True),
        ("FALSE", False),
        ("I think it is false", False),
        ("The description is correct", True),
        ("The description is incorrect.", False),
        ("Answer: False", False),
        ("not true", False),
        ("It's not true.", False),
        ("True or False: False", False),
        ("The statement says the lines are equal. Answer: True", True),
        ("Yes", True),  # fallback vocabulary
    ],
)
def test_bool_true_false(text, value):
    assert parse_bool(text, kind="true_false") == Parsed(value, True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Yes", True),
        ("yes.", True),
        ("No, it is not", False),
        ("No.", False),
        ("Yes. There is no illusion.", True),
        ("There is no motion", False),
    ],
)
def test_bool_yes_no(text, value):
    assert parse_bool(text, kind="yes_no") == Parsed(value, True)


@pytest.mark.parametrize(
    ("text", "kind", "reason"),
    [
        ("I don't know", "true_false", "no_verdict"),
        ("I don't know", "yes_no", "no_verdict"),
        ("True and False", "true_false", "ambiguous"),
        ("Yes and no", "yes_no", "ambiguous"),
        ("No answer.", "yes_no", "no_verdict"),  # "no answer", "no idea" are not verdicts
        ("~~ (no answer) ~~", "true_false", "no_verdict"),
        ("", "yes_no", "empty"),
    ],
)
def test_bool_unparseable(text, kind, reason):
    assert parse_bool(text, kind=kind) == Parsed(None, False, reason)


# ----------------------------------------------------------------------------- open answers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Object: 'butterfly'", "butterfly"),
        ('Object: "Butterfly"', "butterfly"),
        ("Object: butterfly", "butterfly"),
        ("object: 'sea horse'.", "sea horse"),
        ("Butterfly.", "butterfly"),
        ("'moth'", "moth"),
        ("The camouflaged object in this image is hidden among leaves; it is a moth.", "moth"),
    ],
)
def test_object(text, value):
    got = parse_object(text)
    assert got.ok and got.value == value


def test_object_unparseable():
    assert parse_object("").reason == "empty"
    assert parse_object("Object: 'none'").reason == "refusal"
    assert not parse_object("~~ (no answer) ~~").ok
    assert (
        parse_object("I cannot tell what this picture shows because it is very blurry and dark").reason == "not_short"
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("shark, mushroom", ["shark", "mushroom"]),
        ("Object1: shark, Object2: mushroom", ["shark", "mushroom"]),
        ("1. shark 2. mushroom", ["shark", "mushroom"]),
        ("1. shark\n2. mushroom", ["shark", "mushroom"]),
        ("- shark\n- panda", ["shark", "panda"]),
        ("['shark', 'panda']", ["shark", "panda"]),
        ("'A white cat, a blue bat'.", ["A white cat", "a blue bat"]),
        ("shark, panda\n\nThe fine details show a shark.", ["shark", "panda"]),
        ("Answer: cat, dog", ["cat", "dog"]),
    ],
)
def test_list(text, value):
    assert parse_list(text) == Parsed(value, True)


def test_list_unparseable_and_separator():
    assert parse_list("").ok is False
    assert parse_list(" , ,").reason == "no_items"
    assert parse_list("~~ (no answer) ~~").reason == "no_items"  # refusals are not items
    assert parse_list("I don't know, unknown").reason == "no_items"
    assert parse_layers("~~ (no answer) ~~").reason == "no_items"
    assert parse_list("a; b", sep=";").value == ["a", "b"]
    assert parse_layers(" \n ") == Parsed(None, False, "empty")
    assert parse_layers(";") == parse_layers(" ; ; ") == Parsed(None, False, "no_items")  # separators, no layer


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "desert scene, sand dunes, cacti, mountains, sunset; cow skull",
            [["desert scene", "sand dunes", "cacti", "mountains", "sunset"], ["cow skull"]],
        ),
        ("desert plants; abstract shapes", [["desert plants"], ["abstract shapes"]]),
        ("layer1 objects: desert; layer2 objects: skull", [["desert"], ["skull"]]),
        ("desert\nskull", [["desert"], ["skull"]]),
        ("desert;", [["desert"]]),
        ("desert;;", [["desert"]]),  # every trailing empty layer dropped
        ("desert;; skull", [["desert"], [], ["skull"]]),  # an empty layer between two stays: the order counts
        ("\n desert, sand dunes \n\n", [["desert", "sand dunes"]]),  # one line between blank ones: one layer
        ("only one layer, here", [["only one layer", "here"]]),
    ],
)
def test_layers(text, value):
    assert parse_layers(text) == Parsed(value, True)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[(10, 20, 30, 40)]", [(10, 20, 30, 40)]),
        ("[(10,20,30,40), (1.5, 2, 3, 4)]", [(10, 20, 30, 40), (1.5, 2, 3, 4)]),
        ("[[10, 20, 30, 40]]", [(10, 20, 30, 40)]),
        ("The skull is at [(10, 20, 30, 40)] in the image.", [(10, 20, 30, 40)]),
        ('```json\n[{"bbox_2d": [30, 20, 10, 40], "label": "skull"}]\n```', [(10, 20, 30, 40)]),  # x2 < x1 sorted
        ("[(1, 2, 3), (5, 6, 7, 8)]", [(5, 6, 7, 8)]),  # fewer than 4 numbers ignored
        ("(10, 20), (30, 40)", [(10, 20, 30, 40)]),  # point pairs
        ("10, 20, 30, 40", [(10, 20, 30, 40)]),
    ],
)
def test_boxes(text, value):
    got = parse_boxes(text)
    assert got.ok and got.value == [tuple(float(v) for v in b) for b in value]


@pytest.mark.parametrize("text", ["None", "'None'", "None.", "[]"])
def test_boxes_none(text):
    assert parse_boxes(text) == Parsed([], True, "none")


def test_boxes_unparseable():
    assert parse_boxes(" \n ") == Parsed(None, False, "empty")
    assert parse_boxes("I cannot find it").reason == "no_boxes"
    assert parse_boxes("[(1, 2, 3)]").reason == "no_boxes"


def test_marker_and_free():
    assert extract_answer_marker("blah **Answer**: C and more") == "C and more"
    assert extract_answer_marker("Answer: A\n... The answer is D.") == "D."
    assert extract_answer_marker("'Answer': b") == "b"
    assert extract_answer_marker("no marker here") is None
    assert extract_answer_marker(None) is None
    assert parse_free("  The lines are equal.  ") == Parsed("The lines are equal.", True)
    assert parse_free(" ") == Parsed(None, False, "empty")


# ----------------------------------------------------------------------------- labels and dispatch


def test_option_labels_and_format():
    assert [option_label(i, "letter") for i in range(4)] == ["A", "B", "C", "D"]
    assert [option_label(i, "letter_lower") for i in range(3)] == ["a", "b", "c"]
    assert [option_label(i, "roman") for i in range(6)] == ["i", "ii", "iii", "iv", "v", "vi"]
    assert format_options(["x", "y"], "letter") == "A. x\nB. y"
    assert format_options(["x", "y"], "letter_lower") == "a. x\nb. y"
    assert format_options(["x", "y", "z", "w"], "roman") == "i. x\nii. y\niii. z\niv. w"
    with pytest.raises(ValueError, match="`style`"):
        option_label(0, "greek")
    with pytest.raises(ValueError, match="at most 26"):
        option_label(26, "letter")


@pytest.mark.parametrize("style", ["letter", "letter_lower", "roman"])
def test_labels_round_trip(style):
    for n in (2, 4, 8):
        for i in range(n):
            lab = option_label(i, style)
            for text in (lab, lab.upper(), f"({lab})", f"{lab}.", f"Answer: {lab}"):
                assert parse_choice(text, n, style=style) == Parsed(i, True), (text, style)


DISPATCH = {
    "letter": ("C", {"n_options": 4}, 2),
    "roman": ("iii", {"n_options": 4}, 2),
    "letter_set": ("A, C", {"n_options": 5, "none_index": 4}, frozenset({0, 2})),
    "true_false": ("False", {}, False),
    "yes_no": ("Yes", {}, True),
    "object": ("Object: 'bee'", {}, "bee"),
    "comma_list": ("shark, panda", {}, ["shark", "panda"]),
    "layers": ("desert; skull", {}, [["desert"], ["skull"]]),
    "boxes": ("[(1, 2, 3, 4)]", {}, [(1.0, 2.0, 3.0, 4.0)]),
    "free": ("anything", {}, "anything"),
    "color": ("It looks greenish-yellow to me.", {}, None),  # value: the ColorTerm answer_color finds (below)
}


def test_dispatch_covers_every_answer_format():
    assert set(DISPATCH) == set(ANSWER_FORMATS)


@pytest.mark.parametrize("fmt", ANSWER_FORMATS)
def test_parse_answer_dispatch(fmt):
    text, kw, value = DISPATCH[fmt]
    if fmt == "color":
        from ambi_plugin.core.colors import answer_color

        value = answer_color(text)
        assert value is not None
    assert parse_answer(text, fmt, **kw).value == value
    assert get_parser(fmt, **kw)(text).value == value


def test_dispatch_style_and_errors():
    assert parse_answer("b", "letter", n_options=4, style="letter_lower").value == 1
    assert parse_answer("II", "roman", n_options=4, style="roman").value == 1
    assert parse_answer("x", "klingon").reason.startswith("unknown_format")
    with pytest.raises(ValueError, match="one of"):
        get_parser("klingon")
    with pytest.raises(ValueError, match="n_options"):
        get_parser("letter")
    with pytest.raises(ValueError, match="`style`"):
        get_parser("letter", n_options=4, style="greek")


# ----------------------------------------------------------------------------- totality (seeded fuzz)

_ALPHABET = (
    "ABCDEFabcdefIiVvXx()[]{}<>.,;:!?'\"`*_-–—/\\|#@$%^&=+~ \t\n\r0123456789"
    "éüß汉字😀\u200b\u202e\ufeff\x00\x07Ⅳⅱ（）［］Ａｎｓｗｅｒ：\ud800"
)
_WORDS = ["Answer:", "'Answer':", "The answer is", "None", "True", "false", "yes", "No", "not", "Object:", "option",
          "(B)", "ii.", "[(1, 2, 3, 4)]", "(1,2),(3,4)", "1.", "2)", ";", ",", "</think>", "<think>", "**", "e.g.", "I"]  # fmt: skip


def _nasty(rng: random.Random) -> object:
    kind = rng.randrange(8)
    if kind == 0:
        return rng.choice(
            [None, 0, -1, 3.5, float("nan"), True, b"\xff\xfeB", bytearray(b"Answer: C"), [1, 2], {"a": 1}, object()]
        )
    if kind == 1:
        return "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(0, 60)))
    if kind == 2:
        return " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(0, 30)))
    if kind == 3:
        return "".join(rng.choice(_ALPHABET) for _ in range(10_000))
    if kind == 4:
        return rng.choice(["(", "[", "(A", "[(1, 2", "A, " * 3000, "a and " * 2000, "(1,2),(" * 1500, "ii " * 3000])
    if kind == 5:
        return " ".join(rng.choice(_WORDS) for _ in range(2000))
    if kind == 6:
        return "".join(chr(rng.randrange(0, 0x2FFFF)) for _ in range(rng.randrange(0, 200)))
    return rng.choice(_WORDS) + "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(0, 40)))


class _BadStr:
    def __str__(self) -> str:
        raise RuntimeError("no str for you")


PARSERS = [
    lambda t: parse_choice(t, 4, style="letter"),
    lambda t: parse_choice(t, 4, style="roman", options=["x", "y", "z", "w"]),
    lambda t: parse_choice(t, 8, style="letter_lower", options=OPTIONS),
    lambda t: parse_letter_set(t, 5, none_index=4),
    lambda t: parse_bool(t, kind="true_false"),
    lambda t: parse_bool(t, kind="yes_no"),
    parse_object,
    parse_list,
    parse_layers,
    parse_boxes,
    parse_free,
    lambda t: parse_answer(t, "letter", n_options=4),
]


def test_parsers_are_total_on_nasty_inputs():
    rng = random.Random(20240607)
    inputs = [_nasty(rng) for _ in range(250)] + [_BadStr(), "x" * 250_000]
    start = time.process_time()  # CPU seconds: 46 s of wall time on a loaded 2-core machine, far less CPU
    for text in inputs:
        for parse in PARSERS:
            got = parse(text)
            assert isinstance(got, Parsed)
            assert not got.reason.startswith("parser_error"), (got, repr(text)[:200])
            assert got.ok or got.value is None
        assert extract_answer_marker(text) is None or isinstance(extract_answer_marker(text), str)
    assert time.process_time() - start < 60  # no catastrophic backtracking


# ----------------------------------------------------------------------------- real option lists (../shared/data)


def test_illusionvqa_answers_round_trip(shared_data):
    import json

    n = 0
    for name in ("comprehension_test_435.jsonl", "soft_localization_test_1000.jsonl"):
        path = shared_data / "illusionvqa" / name
        if not path.is_file():
            pytest.skip(f"{path} is absent")
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            opts, letter = rec["options"], rec["answer_letter"]
            gold = opts.index(rec["answer"])
            assert option_label(gold, "letter_lower") == letter
            replies = [rec["answer"], rec["answer"].lower().rstrip("."), letter, f"({letter})", f"'Answer': {letter}"]
            replies.append(f"{letter}. {rec['answer']}")
            for reply in replies:
                assert parse_choice(reply, len(opts), style="letter_lower", options=opts).value == gold, (
                    rec["id"],
                    reply,
                )
            n += 1
    assert n == 1435


def test_via_bench_options_round_trip(shared_data):
    import json
    import re

    path = shared_data / "via_bench_val" / "val.json"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    for rec in json.loads(path.read_text(encoding="utf-8")):
        labelled = re.findall(r"^([A-Z])\.\s*(.*)$", rec["option"], re.MULTILINE)
        texts = [t for _, t in labelled]
        assert len(texts) >= 2  # (one item, the clock with 11:00 ... 11:45, has no "Not Sure")
        for i, (letter, text) in enumerate(labelled):
            for reply in (letter, f"The answer is {letter}.", f"{letter}. {text}", text, f"Answer: {text}"):
                got = parse_choice(reply, len(texts), options=texts).value
                if text == "A" and reply in (text, f"Answer: {text}"):
                    assert got == 0  # an option whose text is "A": the reply reads as the label A
                else:
                    assert got == i, (rec["image_name"], reply, texts)
