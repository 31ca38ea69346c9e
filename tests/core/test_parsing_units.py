"""core/parsing/, rule by rule below the parsers' own docstrings: the helpers every parser shares (response_text,
clean-up, answer-marker segments, roman numerals, option labels), the order of the choice reader, the opening
words of a boolean reply, list splitting and the parser factory. Written against the mutants mutation testing
found no test for (bench/mutation.py); each assertion is a behaviour a user of the parsers relies on."""

from __future__ import annotations

import inspect
import math

import pytest

from ambi_plugin.core.parsing import (
    Parsed,
    extract_answer_marker,
    get_parser,
    option_label,
    parse_answer,
    parse_bool,
    parse_choice,
    parse_color,
    parse_layers,
    parse_letter_set,
    parse_list,
    parse_object,
    response_text,
)
from ambi_plugin.core.parsing.choice import _roman
from ambi_plugin.core.parsing.text import _segments, _total

# ----------------------------------------------------------------------------- response_text


def test_response_text_defaults_read_any_object():
    assert response_text("B") == "B"
    assert response_text(None) == ""
    assert response_text(12) == "12"
    assert response_text(b"caf\xc3\xa9 \xff") == "café \ufffd"  # UTF-8, undecodable bytes replaced
    assert response_text(bytearray(b"ok")) == "ok" and response_text(memoryview(b"ok")) == "ok"
    assert response_text(["A", "B"]) == "['A', 'B']"  # lists are text unless first_of_lists
    assert response_text(math.nan) == "nan"


def test_response_text_keywords():
    assert response_text([["A", "x"], "y"], first_of_lists=True) == "A"
    assert response_text([], first_of_lists=True) == "[]"  # an empty list has no first element
    assert response_text([None], first_of_lists=True, missing="?") == "?"
    assert response_text(math.nan, nan_is_missing=True, missing=None) is None
    assert response_text(1.5, nan_is_missing=True) == "1.5"
    assert response_text(None, missing=None) is None
    assert response_text(7, strings_only=True, missing="-") == "-" and response_text("s", strings_only=True) == "s"
    assert response_text(b"ab", binary=()) == "b'ab'"  # not read as binary: its str()
    assert response_text("abcdef", max_chars=3) == "def" and response_text("abc", max_chars=3) == "abc"
    assert response_text("abcdef", max_chars=None) == "abcdef"


def test_response_text_failing_str_gives_missing_or_raises():
    class Broken:
        def __str__(self):
            raise RuntimeError("no text")

    assert response_text(Broken()) == "" and response_text(Broken(), missing="?") == "?"
    with pytest.raises(RuntimeError, match="no text"):
        response_text(Broken(), on_error="raise")


# ----------------------------------------------------------------------------- clean-up and markers


def test_think_blocks_and_controls_are_removed():
    assert parse_choice("<think>A? maybe B</think> C", 3).value == 2
    assert parse_choice("<think>x</think><think>A</think> B", 3).value == 1  # the last closing tag
    assert parse_choice("</think>B", 3).value == 1  # a closing tag at the very start
    assert parse_list("cat,\x07dog").value == ["cat", "dog"]  # a control character is a space
    assert parse_object("</think>leopard").value == "leopard"  # a closing tag at the very start goes too


def test_markers_split_the_reply_last_first():
    s = "Answer: A. Final answer: B"
    assert _segments(s) == [" B", " A. "]
    assert _segments("no marker here") == []
    assert _segments("<answer>Answer: C") == [" C"]  # markers that touch: no empty segment between them
    assert _segments("Answer: Answer: C") == [" C", " "]
    assert _segments("The answer is:") == [""]  # a marker at the very end: an empty last segment
    assert _segments("x Answer: A y Answer: B z Answer: C") == [" C", " B z ", " A y "]
    assert extract_answer_marker("The answer is: cat") == "cat" and extract_answer_marker("cat") is None


# ----------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("n", "numeral"),
    [(1, "i"), (4, "iv"), (9, "ix"), (14, "xiv"), (39, "xxxix"), (40, "xl"), (49, "xlix"), (90, "xc"),
     (150, "cl"), (400, "cd"), (444, "cdxliv"), (500, "d"), (900, "cm"), (1000, "m"), (1994, "mcmxciv"),
     (3888, "mmmdccclxxxviii"), (3999, "mmmcmxcix")],
)  # fmt: skip
def test_roman_numerals(n, numeral):
    assert _roman(n) == numeral


def test_option_labels_and_their_errors():
    assert [option_label(i, "roman") for i in (0, 3, 8)] == ["i", "iv", "ix"]
    assert option_label(25, "letter") == "Z" and option_label(2, "letter_lower") == "c"
    with pytest.raises(ValueError, match=r"^Expected argument `i` to be a non-negative int but got -1$"):
        option_label(-1, "letter")
    with pytest.raises(ValueError, match="non-negative int but got '1'"):
        option_label("1", "letter")
    with pytest.raises(ValueError, match="at most 26 options"):
        option_label(26, "letter")


# ----------------------------------------------------------------------------- the choice reader

OPTS = ["red apple", "green pear", "blue plum"]


def test_a_roman_token_of_mixed_case_is_skipped_not_the_end():
    assert parse_choice("Ii or iii", 3, style="roman") == Parsed(2, True, "")


def test_a_bracketed_label_is_strong():
    assert parse_choice("It is (b), c is wrong.", 3) == Parsed(1, True, "")
    assert parse_choice("It is b, c is wrong.", 3).reason == "ambiguous"


def test_a_negated_label_is_not_a_candidate():
    assert parse_choice("(B), not A.", 3) == Parsed(1, True, "")
    assert parse_choice("Not A; (c).", 3) == Parsed(2, True, "")


def test_an_opening_label_needs_to_stand_alone_or_be_strong():
    assert parse_choice("B. The upper line", 3) == Parsed(1, True, "")  # strong
    assert parse_choice("B\nbecause of the shading", 3) == Parsed(1, True, "")  # alone on its line
    assert parse_choice("B - the upper line", 3) == Parsed(1, True, "")
    assert parse_choice("B or C", 3).reason == "ambiguous"  # neither, and another label follows
    assert parse_choice("Option: B, surely not C", 3).value == 1  # the keyword makes it strong
    assert parse_choice("'B' it is", 3) == Parsed(1, True, "")  # leading junk before the label
    assert parse_choice("x B", 3) == Parsed(1, True, "")  # not opening: the one label in the text
    assert parse_choice("The letter (C) fits", 3) == Parsed(2, True, "")


def test_the_option_text_is_read_exact_before_an_out_of_range_label_and_contained_last():
    assert parse_choice("green pear", 3, options=OPTS) == Parsed(1, True, "option_text")
    assert parse_choice("'Green  Pear'.", 3, options=OPTS) == Parsed(1, True, "option_text")  # light normalisation
    assert parse_choice("I would say the green pear, clearly", 3, options=OPTS) == Parsed(1, True, "option_text")
    assert parse_choice("D", 3, options=OPTS) == Parsed(-1, True, "out_of_range")
    # an option's exact text wins over an out-of-range opening label ("E" is the text of option 0)
    assert parse_choice("E", 2, options=["E", "F"]) == Parsed(0, True, "option_text")
    # exact only at the second step: an option's text inside the reply is read last, after the labels
    assert parse_choice("pear, (c)", 3, options=OPTS) == Parsed(2, True, "")
    assert parse_choice("green pear or (c)", 3, options=OPTS) == Parsed(2, True, "")
    # equal after alphanumeric normalisation, though made of weak words only
    assert parse_choice("To be", 2, options=["to-be", "or not"]) == Parsed(0, True, "option_text")


def test_labels_negated_led_by_a_keyword_bracketed_or_alone():
    assert parse_choice("not A but B", 3) == Parsed(1, True, "")  # "not A" from the reply's first character
    assert parse_choice("option B or c", 3) == Parsed(1, True, "")  # the keyword makes the opening label strong
    assert parse_choice("(a) the cat", 3) == Parsed(0, True, "")  # bracketed: "a" is a label, not the article
    assert parse_choice("B\nC is wrong", 3) == Parsed(1, True, "")  # alone on its line, whatever follows
    assert parse_choice("> B\nC is wrong", 3) == Parsed(1, True, "")  # after leading junk
    assert parse_choice("B. C. was my second guess", 3) == Parsed(1, True, "")  # a strong opening label wins
    assert parse_choice("ii because iii is smaller", 3, style="roman").reason == "ambiguous"
    # another label out of range does not make the opening one ambiguous
    assert parse_choice("B because (D) is not offered", 3) == Parsed(1, True, "")


def test_the_text_after_an_opening_label_is_its_first_line_naming_another_option_exactly():
    opts = ["A", "B", "C", "All would be equally stable", "Impossible to tell"]
    reply = "(E) C\nIt is the most stable.\nThe others are not."  # the label's line gives option C's text
    assert parse_choice(reply, 5, options=opts) == Parsed(None, False, "ambiguous")
    xy = ["X > Y", "X < Y", "X = Y"]  # options told apart by their symbols only
    assert parse_choice("A: X = Y", 3, options=xy) == Parsed(None, False, "ambiguous")
    assert parse_choice("A: X > Y", 3, options=xy) == Parsed(0, True, "")
    # a text that only mentions another option contradicts nothing
    circles = ["The red circle", "The blue circle"]
    assert parse_choice("(A) It is larger than the blue circle.", 2, options=circles) == Parsed(0, True, "")


def test_option_text_normalisation():
    assert parse_choice("Green-Pear", 2, options=["green pear", "blue plum"]) == Parsed(0, True, "option_text")
    # light normalisation keeps symbols: quotes and end punctuation go, in either order
    for reply in ('"1 > 2".', '1 > 2."', "'1 > 2'", '" 1 > 2 "'):
        assert parse_choice(reply, 2, options=["1 > 2", "1 = 2"]) == Parsed(0, True, "option_text"), reply
    assert parse_choice("ox", 2, options=["ox cart", "horse cart"]) == Parsed(0, True, "option_text")  # two letters
    assert parse_choice("7", 2, options=["7 cats", "8 dogs"]).ok is False  # one character is too little
    assert parse_choice("STRASSE", 2, options=["Straße", "Gasse"]) == Parsed(0, True, "option_text")  # case folded
    # a bare number inside one option's statement is no answer, its thousands written with a space too
    shares = [
        "Employees owned 40 % of the shares",
        "The largest dealing was 1 440 shares",
        "Directors held 4 870 shares",
    ]
    assert not parse_choice("4 870", 3, options=shares).ok


def test_a_label_alone_on_the_last_line():
    assert parse_choice("It is not as small as (a) or (c) suggest.\nb", 5) == Parsed(1, True, "")  # two lines suffice
    assert parse_choice("Not (i) or (iii).\n\nii", 4, style="roman") == Parsed(1, True, "")
    # a label not offered that is an option's text is that option
    got = parse_choice("Looking at the figure closely:\n\ne", 4, options=["x", "y", "z", "e"])
    assert got == Parsed(3, True, "option_text")


def test_option_text_containment_rules():
    same = ["cat", "Cat!", "dog"]  # two options equal after normalisation: only an exact light match counts
    assert parse_choice("cat!", 3, options=same) is not None and parse_choice("a cat", 3, options=same).ok is False
    nested = ["red", "red apple", "pear"]  # "red" inside "red apple": the longer option is the one named
    assert parse_choice("It is the red apple.", 3, options=nested) == Parsed(1, True, "option_text")
    assert parse_choice("an apple", 3, options=["apple pie", "apple tart", "plum"]).ok is False  # in two
    assert parse_choice("the", 2, options=["the cat", "a dog"]).ok is False  # too weak to be contained
    assert parse_choice("pie", 2, options=["apple pie", "plum"]) == Parsed(0, True, "option_text")


def test_strong_and_weak_labels_in_the_text():
    assert parse_choice("I think the answer might be (B) rather than C", 3) == Parsed(1, True, "")
    assert parse_choice("Either (A) or (B).", 3).reason == "ambiguous"
    assert parse_choice("maybe b or maybe c", 3).reason == "ambiguous"
    assert parse_choice("Option E.", 3) == Parsed(-1, True, "out_of_range")  # a strong label out of range
    assert parse_choice("so that is d", 3).ok is False  # a weak label out of range is not a candidate


def test_letter_sets():
    assert parse_letter_set("A and C", 4) == Parsed(frozenset({0, 2}), True, "")
    assert parse_letter_set("a AND c", 4) == Parsed(frozenset({0, 2}), True, "")  # "and" in any case
    assert not parse_letter_set("a AND c OR d", 4).ok  # an "or" offers alternatives: no choice (issue 31's rules)
    assert parse_letter_set("A, F", 4) == Parsed(frozenset({0, 5}), True, "out_of_range")  # list-like: kept
    assert parse_letter_set("Shapes A and F are shown", 4) == Parsed(
        frozenset({0}), True, ""
    )  # a sentence: offered only
    assert parse_letter_set("None of them", 4, none_index=3) == Parsed(frozenset({3}), True, "none")
    for reply in ("A and F", "a AND f"):  # "and" keeps a reply list-like
        assert parse_letter_set(reply, 4) == Parsed(frozenset({0, 5}), True, "out_of_range"), reply
    assert not parse_letter_set("A or F", 4).ok  # alternatives, not a choice


def test_letter_sets_need_a_number_of_options():
    assert parse_letter_set("A, C", 0) == Parsed(None, False, "bad_n_options")
    assert parse_letter_set("A, C", None) == Parsed(None, False, "bad_n_options")
    assert parse_letter_set("A", 1) == Parsed(frozenset({0}), True, "")


RED = "Figures A and B are drawn in red. Which figures have two rings?"


@pytest.mark.parametrize(
    "reply",
    [
        f"USER: {RED}\nASSISTANT: C",
        f"<|im_start|>user\n{RED}<|im_end|>\n<|im_start|>assistant\nC",
        f"[INST] {RED} [/INST] C",
        f"USER: {RED} ASSISTANT: A\nUSER: Look again. ASSISTANT: C",  # the last turn is the reply
    ],
)
def test_a_reply_echoing_its_chat_prompt_is_read_after_the_assistant_turn(reply):
    assert parse_letter_set(reply, 4) == Parsed(frozenset({2}), True, "")


def test_letter_set_sentences_questions_and_eliminations():
    assert parse_letter_set("Which figures have two rings? (a) and (c).", 4).value == frozenset({0, 2})
    assert not parse_letter_set("None?", 4).ok  # a question chooses nothing, "none" neither
    # "none" said once stands although a later sentence eliminates without saying it; the next line is not read
    reply = "Answer: None of them qualify. Figure (a) does not have a ring.\nFigures (b) and (d) have one."
    assert parse_letter_set(reply, 4) == Parsed(frozenset(), True, "none")
    assert parse_letter_set(reply, 5, none_index=4) == Parsed(frozenset({4}), True, "none")  # E: "None"
    # every option eliminated is the None answer, with two options or one
    assert parse_letter_set("Answer: Both (a) and (b) are wrong.", 2) == Parsed(frozenset(), True, "none")
    assert parse_letter_set("Answer: (a) is wrong.", 1) == Parsed(frozenset(), True, "none")
    assert not parse_letter_set("Answer: (a) is wrong.", 2).ok  # one of two eliminated: no choice yet
    assert parse_letter_set("Answer: (a) is wrong.\n(b) is right.", 2).value == frozenset({1})  # the next line


WALK = "Figure (a) has two rings.\nFigure (b) has one ring.\n"


def test_letter_set_conclusions():
    # a sentence meeting the conditions concludes when it names two offered options; one offered is no conclusion
    assert parse_letter_set(WALK + "Figures (a) and (c) satisfy the conditions.", 4) == Parsed(
        frozenset({0, 2}), True, ""
    )
    assert not parse_letter_set(WALK + "Figures (a) and (e) satisfy the conditions.", 4).ok
    # a sentence setting out the task is passed over, not the end of the search
    intent = "To find the figures that satisfy the conditions, we check each one.\n"
    assert parse_letter_set(intent + WALK + "Therefore, figures (a) and (c) qualify.", 4).value == frozenset({0, 2})
    # the last conclusion wins
    reply = "Thus (a) qualifies.\nLooking again, (c) has two rings as well.\nTherefore, (a) and (c) qualify."
    assert parse_letter_set(reply, 4).value == frozenset({0, 2})
    # a conclusion runs to the paragraph naming letters, not into the explanation after it
    reply = "Therefore, the figures that satisfy the condition are:\n\n(a) and (c)\n\nFigure (b) has one ring; (d) too."
    assert parse_letter_set(reply, 4).value == frozenset({0, 2})
    # "none" concluded: the None option when there is one
    reply = WALK + "Therefore, none of the figures satisfy the condition."
    assert parse_letter_set(reply, 5, none_index=4) == Parsed(frozenset({4}), True, "none")
    # a line opening with an option not offered gives that option's text, not its letters
    assert not parse_letter_set("Therefore, the figures that satisfy the condition are:\n\n(e) A and B", 4).ok


def test_letter_set_conclusions_are_the_last_twenty_each_read_600_characters_on():
    nothing = "Therefore, nothing more.\n"
    assert parse_letter_set("Therefore, (a) qualifies.\n" + nothing * 19, 4).value == frozenset({0})
    assert not parse_letter_set("Therefore, (a) qualifies.\n" + nothing * 20, 4).ok
    head = "Therefore, the figures that satisfy the condition are:"
    assert parse_letter_set(head + " " * (599 - len(head)) + "c.\n" + WALK, 4).value == frozenset({2})
    assert not parse_letter_set(head + " " * (600 - len(head)) + "c.\n" + WALK, 4).ok


def test_a_verdict_for_every_option():
    walk = "Not every figure meets it.\n(a) meets the condition.\n(b) is not incorrect.\n(c) does not meet it.\n"
    assert parse_letter_set(walk, 3) == Parsed(frozenset({0, 1}), True, "verdicts")  # "not incorrect": right
    for wrong in ("is not correct", "isn't correct", "is wrong"):  # a negation inside the verdict turns it
        walk = f"(a) is correct.\n(b) {wrong}.\n(c) is not wrong.\n"
        assert parse_letter_set(walk, 3) == Parsed(frozenset({0, 2}), True, "verdicts"), wrong
    # an option's sentence without a verdict word leaves the walk incomplete: no answer
    assert not parse_letter_set("(a) meets the condition.\n(b) has two rings.\n(c) meets the condition.", 3).ok
    two = "Figure (a) has two rings.\nFigure (a) meets the condition.\nFigure (b) does not meet it."
    assert parse_letter_set(two, 2) == Parsed(frozenset({0}), True, "verdicts")
    # a mention of an option not offered leaves the sentence one option's verdict
    walk = "(a) meets the condition.\n(b) does not meet it.\n(c) does not meet it, unlike (e).\n(d) is wrong."
    assert parse_letter_set(walk, 4) == Parsed(frozenset({0}), True, "verdicts")
    wrong = "(a) does not meet the condition.\n(b) does not meet it.\n(c) is wrong."
    assert parse_letter_set(wrong, 3) == Parsed(frozenset(), True, "none")  # every option wrong
    one = "Figure (a) has two rings.\nIt has a long tail.\nFigure (a) meets the condition."
    assert parse_letter_set(one, 1) == Parsed(frozenset({0}), True, "verdicts")


# ----------------------------------------------------------------------------- booleans


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("Not true, though it looks true.", False),
        ("It is true, though it looks false.", True),
        ("It is not true, though it looks true.", False),
        ("It's true, though it looks false.", True),
        ("It's not true, though it looks true.", False),
    ],
)
def test_an_opening_verdict_wins_over_later_words(reply, value):
    assert parse_bool(reply, kind="true_false") == Parsed(value, True, "")


def test_verdict_words_not_opening_must_agree():
    assert parse_bool("Maybe true, maybe false.", kind="true_false").reason == "ambiguous"
    assert parse_bool("The statement is false.", kind="true_false") == Parsed(False, True, "")
    assert parse_bool("Yes, the statement is false.", kind="true_false") == Parsed(False, True, "")  # primary words
    assert parse_bool("True, though some would say false.", kind="yes_no") == Parsed(True, True, "")  # fallback pair


def test_a_negation_counts_within_thirty_characters_before_the_word():
    near = "It is not " + "x" * 25 + " true."  # "not" 30 characters before "true"
    far = "It is not " + "x" * 26 + " true."  # 31
    assert parse_bool(near, kind="true_false").value is False
    assert parse_bool(far, kind="true_false").value is True


def test_an_uncertain_reply_answers_only_by_a_verdict_opening_a_sentence():
    assert parse_bool("It is hard to tell.\nNo, the lines are not equal.", kind="yes_no") == Parsed(
        False, True, "hedged"
    )
    assert parse_bool("It is hard to tell, maybe no.", kind="yes_no") == Parsed(None, False, "uncertain")
    assert parse_bool("I cannot say for certain, but probably yes.", kind="yes_no") == Parsed(None, False, "uncertain")


# ----------------------------------------------------------------------------- lists and objects


def test_list_splitting_rules():
    assert parse_list(" \n ") == Parsed(None, False, "empty")
    assert parse_list("- cat\n- dog").value == ["cat", "dog"]  # two bullet lines
    assert parse_list("- cat").value == ["cat"]
    assert parse_list("- cat, black\n- dog").value == ["cat, black", "dog"]  # two bullet lines win over commas
    assert parse_list("Intro line\n- cat\n- dog").value == ["cat", "dog"]  # bullets among other lines
    assert parse_list("1. cat 2. dog").value == ["cat", "dog"]
    assert parse_list("1. cat 3. dog").value == ["1. cat 3. dog"]  # numbers must run 1, 2, ...
    assert parse_list("see: 1. cat 2. dog").value == ["see: 1. cat 2. dog"]  # and open the text
    assert parse_list("1. cat 2. dog 3. owl").value == ["cat", "dog", "owl"]
    assert parse_list("cat\ndog").value == ["cat", "dog"]  # short lines
    assert parse_list("a cat with six words here\ndog").value == ["a cat with six words here", "dog"]
    # a line of seven words: not a list of lines, and no comma: one item
    assert parse_list("a cat with seven words right here\ndog").value == ["a cat with seven words right here dog"]
    assert parse_list("cat; dog", sep=";").value == ["cat", "dog"]
    assert parse_list("cat, dog", sep="").value == ["cat", "dog"]  # an empty separator: the comma
    # a long first line without the separator: the whole reply is split on it
    assert parse_list("a long first line with many words in it\ncat, dog").value == [
        "a long first line with many words in it cat",
        "dog",
    ]


def test_list_items_are_cleaned():
    assert parse_list('"cat", (dog)!').value == ["cat", "dog"]
    assert parse_list("Object1: cat, Object 2: dog").value == ["cat", "dog"]
    assert parse_list("Object1: 'cat'").value == ["cat"]  # quotes inside the label's value too
    assert parse_list("cat, no answer").value == ["cat"]
    assert parse_layers("sand, dunes; skull;").value == [["sand", "dunes"], ["skull"]]


def test_objects_from_sentences():
    assert parse_object("The hidden animal is a leopard.").value == "leopard"
    assert parse_object("Object: 'butterfly'").value == "butterfly"
    assert parse_object("I can see an owl peeking out of the bark.").value == "owl"  # cut at a participle
    assert parse_object("I can see a king hiding in the grass.").value == "king"  # but not the first word
    assert parse_object("I can see a big fat grey tabby cat.").value == "big fat grey tabby"  # four words at most
    # a generic word ("illusion") is not the object, whatever the order
    assert parse_object("There is a leopard in this picture, which is an illusion.").value == "leopard"
    # a sentence whose object phrase is empty ("a camouflaged ...": cut at once) is passed over, not an error
    assert not parse_object("It is a camouflaged leopard.").reason.startswith("parser_error")
    # a first line too long to be the answer, a later sentence naming the object
    got = parse_object("The camouflaged object in this image is hidden among leaves; it is a moth.")
    assert got == Parsed("moth", True, "from_sentence")


def test_the_object_after_an_object_marker():
    assert parse_object('Object: "St. Bernard"').value == "st. bernard"  # quoted: the quote, whatever it holds
    assert parse_object("Object: moth. It rests on the bark.").value == "moth"  # unquoted: up to the sentence's end
    assert parse_object("Object: moth (a tiger moth)").value == "moth"  # or an aside
    assert parse_object("Object: a butterfly").value == "butterfly"  # without its article


def test_a_short_first_line_is_the_answer_a_longer_one_is_not():
    assert parse_object("A moth resting on tree bark") == Parsed("moth resting on tree bark", True)  # six words
    assert parse_object("It is very hard to tell here") == Parsed(None, False, "not_short")  # seven
    assert parse_object("An unknown.") == Parsed(None, False, "refusal")  # a refusal once the article is gone
    got = parse_object("The image shows:")  # a lead-in and nothing after it: no object named
    assert not got.ok and not got.reason.startswith("parser_error")


# ----------------------------------------------------------------------------- dispatch


def test_the_record_style_is_used_when_valid():
    assert parse_answer("ii", "letter", n_options=3, style="roman") == Parsed(1, True, "")
    assert parse_answer("B", "letter", n_options=3, style="bogus") == Parsed(1, True, "")  # invalid: the format's
    assert parse_answer("ii", "roman", n_options=3, style=None) == Parsed(1, True, "")


def test_get_parser_checks_its_configuration():
    for fmt in ("letter", "roman", "letter_set"):
        with pytest.raises(ValueError, match=f"answer format '{fmt}' needs `n_options`"):
            get_parser(fmt)
    assert get_parser("roman", options=["x", "y"])("ii") == Parsed(1, True, "")
    assert get_parser("letter_set", options=["x", "y", "z"])("A, C") == Parsed(frozenset({0, 2}), True, "")
    # letter sets count their options: "D" of three is out of range
    assert get_parser("letter_set", options=["x", "y", "z"])("Shapes A and D") == Parsed(frozenset({0}), True, "")
    with pytest.raises(ValueError, match="`fmt` to be one of"):
        get_parser("bogus")
    with pytest.raises(ValueError, match="`style` to be one of"):
        get_parser("letter", n_options=2, style="greek")


def test_an_unknown_format_is_named_whatever_its_type():
    assert parse_answer("A", "bogus") == Parsed(None, False, "unknown_format: 'bogus'")
    assert parse_answer("A", ["letter"], n_options=2) == Parsed(None, False, "unknown_format: ['letter']")


def test_parse_color_reason():
    assert parse_color("no colour named") == Parsed(None, False, "no_color_term")
    assert str(parse_color("Answer: greenish yellow").value) == "greenish-yellow"


# ----------------------------------------------------------------------------- the total-parser guard


def test_the_guard_turns_a_parser_bug_into_an_unparseable_result_and_keeps_the_parser_s_face():
    def _parse_broken(text, n, *, style="letter"):
        """Reads nothing."""
        if text == "ok":
            return Parsed((n, style), True)
        raise KeyError(text)

    guarded = _total(_parse_broken)
    assert guarded("ok", 3, style="roman") == Parsed((3, "roman"), True)  # arguments passed through as given
    assert guarded("B", 2) == Parsed(None, False, "parser_error: KeyError")
    assert guarded.__name__ == guarded.__qualname__ == "parse_broken" and guarded.__doc__ == "Reads nothing."
    assert inspect.signature(guarded) == inspect.signature(_parse_broken)
    # the public parsers: their own names, signatures and docstrings
    assert parse_choice.__name__ == "parse_choice" and parse_choice.__doc__.startswith("Single choice")
    assert list(inspect.signature(parse_choice).parameters) == ["text", "n_options", "style", "options"]
