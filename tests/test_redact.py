"""``ambi_plugin.redact``: which variables hold secrets, and every written form of a secret masked in a log line.

The e2e runs (tests/e2e/test_faults.py, test_run_processes.py) check that a planted token reaches no file; these
check the rules themselves: the minimum length, overlapping secrets, and the encodings a program prints a secret in.
"""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus, urlencode

import pytest

from ambi_plugin.redact import MASK, MIN_LENGTH, redact, secret_values, written_forms

# ----------------------------------------------------------------------------- which values are secrets


def test_secret_names_are_recognised_and_others_are_not():
    env = {
        "HF_TOKEN": "hf_aaaaaaaa",
        "HUGGING_FACE_HUB_TOKEN": "hf_bbbbbbbb",
        "OPENAI_API_KEY": "sk-cccccccc",
        "AMBI_JUDGE_API_KEY": "sk-dddddddd",
        "MY_APIKEY": "eeeeeeee",
        "DB_PASSWORD": "ffffffff",
        "FTP_PASSWD": "gggggggg",
        "AWS_SECRET_ACCESS_KEY": "hhhhhhhh",
        "AWS_ACCESS_KEY_ID": "iiiiiiii",
        "SSH_PRIVATE_KEY": "jjjjjjjj",
        "GOOGLE_APPLICATION_CREDENTIALS": "kkkkkkkk",
        "hf_token": "llllllll",  # case does not matter
        "HOME": "/root/somewhere",
        "PATH": "/usr/bin:/bin",
        "AMBI_JUDGE_MODEL": "gpt-4o-mini",
        "KEYBOARD": "layout-us",
    }
    found = set(secret_values(env))
    assert found == {v for k, v in env.items() if k not in ("HOME", "PATH", "AMBI_JUDGE_MODEL", "KEYBOARD")}


def test_a_value_of_exactly_the_minimum_length_is_a_secret_one_shorter_is_not():
    assert MIN_LENGTH == 6
    exact, short = "a1b2c3", "a1b2c"
    assert secret_values({"HF_TOKEN": exact, "OPENAI_API_KEY": short}) == [exact]
    assert redact(f"token={exact} key={short}", secret_values({"HF_TOKEN": exact, "OPENAI_API_KEY": short})) == (
        f"token={MASK} key={short}"
    )


def test_settings_and_padding_do_not_count_as_secrets():
    # "1", "true", an empty value: settings; a short value padded with whitespace is still short
    env = {"HF_TOKEN": "", "USE_AUTH_TOKEN": "1", "TOKENIZERS_PARALLELISM": "false", "X_TOKEN": "  abc  \n"}
    assert secret_values(env) == []


def test_secret_values_are_longest_first_and_unique():
    env = {"A_TOKEN": "zzzzzz", "B_TOKEN": "abcdefghij", "C_TOKEN": "mmmmmmmm", "D_TOKEN": "mmmmmmmm"}
    assert secret_values(env) == ["abcdefghij", "mmmmmmmm", "zzzzzz"]  # by length, not alphabetically


def test_the_environment_is_read_when_no_secrets_are_given(monkeypatch):
    for key in [k for k in __import__("os").environ if "TOKEN" in k.upper() or "KEY" in k.upper()]:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HF_TOKEN", "hf_fromtheenvironment")
    assert "hf_fromtheenvironment" in secret_values()
    assert redact("token: hf_fromtheenvironment.") == f"token: {MASK}."


# ----------------------------------------------------------------------------- masking


def test_every_occurrence_is_masked_and_the_rest_kept():
    secret = "hf_abcdef123456"
    line = f"{secret} and again {secret}{secret}, end\n"
    assert redact(line, [secret]) == f"{MASK} and again {MASK}, end\n"  # touching occurrences: one mask
    assert redact("nothing secret here\n", [secret]) == "nothing secret here\n"


def test_a_longer_secret_holding_a_shorter_one_leaks_nothing():
    short, long = "hf_abcdef", "hf_abcdef_TAIL99"
    for order in ([short, long], [long, short]):  # whatever order the caller gives
        out = redact(f"a={long} b={short}", order)
        assert out == f"a={MASK} b={MASK}", order
        assert "TAIL" not in out and "_TAIL99" not in out


def test_overlapping_secrets_are_masked_together():
    """Neither holds the other, they share a stretch: the union is masked, no tail of either survives."""
    first, second = "xxAAAAyyyy", "yyyyBBBBzz"
    line = "before xxAAAAyyyyBBBBzz after"
    for order in ([first, second], [second, first]):
        assert redact(line, order) == f"before {MASK} after"
    # and apart, each masked on its own
    assert redact(f"{first} | {second}", [first, second]) == f"{MASK} | {MASK}"


def test_the_mask_never_reveals_the_length_or_the_edges():
    for secret in ("abcdef", "sk-" + "x" * 60):
        out = redact(f"[{secret}]", [secret])
        assert out == f"[{MASK}]"


def test_an_explicit_short_secret_is_still_masked():
    """A value the caller names is masked whatever its length; only its derived forms must be long enough."""
    assert redact("pin=1234;", ["1234"]) == f"pin={MASK};"
    assert redact("anything", []) == "anything"
    assert redact("anything", [""]) == "anything"  # an empty value masks nothing (and does not loop)


# ----------------------------------------------------------------------------- encodings


SPECIAL = 'p@ss/w+rd =="q\\ü'  # characters each encoding writes differently (a space: quote_plus)


@pytest.mark.parametrize(
    "written",
    [
        pytest.param(quote(SPECIAL, safe=""), id="url-quote"),
        pytest.param(quote(SPECIAL), id="url-quote-keeping-slash"),
        pytest.param(quote_plus(SPECIAL), id="url-quote-plus"),
        pytest.param(urlencode({"api_key": SPECIAL}).split("=", 1)[1], id="urlencode"),
        pytest.param(json.dumps(SPECIAL)[1:-1], id="json-ascii"),
        pytest.param(json.dumps(SPECIAL, ensure_ascii=False)[1:-1], id="json-utf8"),
        pytest.param(repr(SPECIAL)[1:-1], id="python-repr"),
        pytest.param(SPECIAL, id="as-is"),
    ],
)
def test_a_secret_is_masked_in_every_form_it_is_printed_in(written):
    line = f"url=https://host/v1?api_key={written}&x=1 tracker={{'token': '{written}'}}\n"
    out = redact(line, [SPECIAL])
    assert out == f"url=https://host/v1?api_key={MASK}&x=1 tracker={{'token': '{MASK}'}}\n"


def test_the_printed_forms_differ_from_the_value_for_special_characters():
    """The parametrized forms above are really different strings (else that test would prove nothing)."""
    forms = written_forms(SPECIAL)
    assert {quote(SPECIAL, safe=""), quote(SPECIAL), quote_plus(SPECIAL), json.dumps(SPECIAL)[1:-1]} <= forms
    assert {json.dumps(SPECIAL, ensure_ascii=False)[1:-1], repr(SPECIAL)[1:-1], SPECIAL} <= forms
    assert len({quote(SPECIAL, safe=""), quote(SPECIAL), quote_plus(SPECIAL), SPECIAL}) == 4
    assert len({json.dumps(SPECIAL)[1:-1], json.dumps(SPECIAL, ensure_ascii=False)[1:-1], repr(SPECIAL)[1:-1]}) == 3


def test_a_value_with_a_line_break_is_masked_as_the_program_uses_it():
    """A token read from a file keeps its newline (``HF_TOKEN=$(cat f)`` strips it, an env file may not);
    huggingface_hub strips it before use and prints the stripped token."""
    env = {"HF_TOKEN": "hf_fromafile123\r\n"}
    secrets = secret_values(env)
    assert redact("Evaluation tracker args: {'token': 'hf_fromafile123'}", secrets) == (
        f"Evaluation tracker args: {{'token': '{MASK}'}}"
    )
    assert redact("raw: hf_fromafile123\r\n", secrets) == f"raw: {MASK}"


def test_derived_forms_shorter_than_the_minimum_are_not_masked():
    """The stripped form of " abcde " is five characters: masking it would hit ordinary text; six are masked."""
    assert " abcde " in written_forms(" abcde ") and "abcde" not in written_forms(" abcde ")
    assert redact("abcde and ' abcde '", [" abcde "]) == f"abcde and '{MASK}'"
    assert "abcdef" in written_forms(" abcdef ")
    assert redact("abcdef", [" abcdef "]) == MASK


def test_a_secret_that_overlaps_itself_is_masked_whole():
    """Occurrences of one secret that overlap ("aaaaaa" twice in seven a's) are all found, none skipped."""
    assert redact("<aaaaaaa>", ["aaaaaa"]) == f"<{MASK}>"
    assert redact("<abababab>", ["ababab"]) == f"<{MASK}>"


def test_bytes_are_masked_in_utf8():
    secret = "sk-ünïcode-123"
    data = f"key={secret}\n".encode() + b"\xff rest"  # not valid UTF-8 as a whole: never decoded
    out = redact(data, [secret])
    assert isinstance(out, bytes) and out == b"key=***\n\xff rest"
    escaped = json.dumps({"key": secret}).encode()  # ASCII JSON: \u00fc
    assert redact(escaped, [secret]) == b'{"key": "***"}'
    assert redact(b"no secret", [secret]) == b"no secret"


def test_a_plain_token_has_only_its_own_form_and_its_stripped_one():
    token = "hf_PlainToken0123"
    assert written_forms(token) == {token}
    assert written_forms(token + "\n") == {token + "\n", token, token + "%0A", token + "\\n"}
