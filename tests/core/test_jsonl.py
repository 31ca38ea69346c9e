"""The one JSONL reader (``core/jsonl.py``): every line numbered, a bad line named with file, line and reason;
skipped and counted by a tolerant caller, fatal for a strict one; a line nested 10^5 deep or not UTF-8 names its
file and line (or is a bad row of a release)."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.core.jsonl import JsonlError, loads, numbered, read_jsonl, read_lines, too_deep
from ambi_plugin.core.schema import RecordError, read_records
from ambi_plugin.inputfiles import InputFileError

DEEP = "[" * 100_000 + "]" * 100_000  # Python's JSON reader raises RecursionError on it
RECORD = {"id": "r1", "benchmark": "b", "category": "c", "task_type": "yes_no", "answer_bool": True}


def _write(path, lines: list[str | bytes]):
    path.write_bytes(b"".join((ln if isinstance(ln, bytes) else ln.encode()) + b"\n" for ln in lines))
    return path


def test_tolerant_read_numbers_every_line_and_names_each_bad_one(tmp_path):
    path = _write(
        tmp_path / "a.jsonl",
        [
            '{"id": 1}',
            "",
            '{"id": 2',
            "[1, 2]",
            '{"deep": ' + "[" * 5 + "]" * 5 + "}",
            b'{"id": "caf\xff"}',
            DEEP,
            "  ",
        ],
    )
    got = [(ln.lineno, ln.value, ln.reason) for ln in read_lines(path, objects=True, max_depth=3, unreadable_rows=True)]
    assert got == [
        (1, {"id": 1}, None),  # line 2 is blank: no row
        (3, None, "not JSON: Expecting ',' delimiter (column 9)"),
        (4, None, "not JSON: the line is not an object"),
        (5, None, too_deep(3)),
        (6, None, "not UTF-8: byte 0xff at column 12 cannot be decoded (save the file as UTF-8 to keep this row)"),
        (7, None, too_deep(3)),
    ]
    lines = list(read_lines(path, name="a.jsonl", objects=True, max_depth=3, unreadable_rows=True))
    assert [ln.where for ln in lines if ln.bad] == [f"a.jsonl:{n}" for n in (3, 4, 5, 6, 7)]
    assert lines[1].error == "not valid JSON: Expecting ',' delimiter (column 9)"
    assert lines[2].error == "a JSON list, not an object"


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        (b'{"id": "caf\xff"}', ":2: not UTF-8 text (byte 0xff at column 12); save the file as UTF-8"),
        (DEEP.encode(), ":2: answers file nested too deeply to read (more than 500 levels of brackets)"),
    ],
)
def test_a_line_no_reader_can_read_stops_the_file_named_with_its_line(tmp_path, bad, words):
    path = _write(tmp_path / "a.jsonl", ['{"id": 1}', bad, '{"id": 3}'])
    with pytest.raises(InputFileError) as err:
        list(read_lines(path, what="answers file"))
    assert str(err.value).startswith(f"{path}{words}") and "\n" not in str(err.value)


def test_strict_read_stops_at_the_first_bad_line_in_the_callers_exception(tmp_path):
    path = _write(tmp_path / "s.jsonl", ['{"id": 1}', '{"id": 2}', "{oops", "[]"])
    with pytest.raises(JsonlError, match=rf"^{path}:3: not valid JSON: Expecting property name .* \(column 2\)$"):
        read_jsonl(path)
    with pytest.raises(KeyError, match=":4: a JSON list, not an object"):
        read_jsonl(_write(tmp_path / "t.jsonl", ['{"id": 1}', "", "", "[]"]), objects=True, error=KeyError)
    assert read_jsonl(_write(tmp_path / "u.jsonl", ["1", "", '"x"', "[]"])) == [1, "x", []]


def test_a_line_separator_inside_a_string_does_not_cut_the_line(tmp_path):
    """JSON strings may hold U+2028 / U+2029 unescaped (``ensure_ascii=False`` writes them so); lines end at \\n."""
    rows = [{"id": "a", "response": "one\u2028two\u2029three\x85four"}, {"id": "b", "response": "x"}]
    path = tmp_path / "l.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert read_jsonl(path) == rows
    assert [ln.value for ln in numbered(path.read_text(encoding="utf-8").split("\n"), "l.jsonl")] == rows


def test_records_after_a_byte_order_mark_are_read(tmp_path):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (json.dumps(RECORD) + "\n").encode() + b"\r\n")
    assert read_records(path) == [RECORD]
    with pytest.raises(RecordError, match=r"bom\.jsonl:2: not valid JSON"):
        read_records(_write(path, [json.dumps(RECORD), "\ufeff" + json.dumps(RECORD)]))  # only before line 1


def test_an_answers_file_with_a_line_separator_in_a_response_is_read_whole(tmp_path):
    from ambi_plugin.reports.answers import read_rows

    rows = [{"id": "a", "response": "A\u2028(the first option)"}, {"id": "b", "response": "B"}]
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert read_rows(path) == rows


def test_a_predictions_file_that_is_not_utf8_names_its_line(tmp_path):
    """``ambi_replay``'s predictions file (was: ``'utf-8' codec can't decode byte 0xff in position 83``)."""
    from ambi_plugin.data.replayfiles import load_predictions

    path = _write(
        tmp_path / "p.jsonl", ['{"task": "t", "id": "a", "response": "x"}', b'{"task": "t", "response": "\xff"}']
    )
    with pytest.raises(InputFileError, match=rf"^{path}:2: not UTF-8 text \(byte 0xff at column 28\)"):
        load_predictions(path)
    with pytest.raises(ValueError, match=rf"^ambi_replay: {path}:1: not valid JSON: Expecting value \(column 1\)$"):
        load_predictions(_write(path, ["oops"]))


def test_count_rows_counts_non_blank_lines_unread_and_stops_where_told(tmp_path):
    from ambi_plugin.core.jsonl import count_rows

    path = _write(tmp_path / "c.jsonl", ['{"id": 1}', "", "not even JSON", "  ", b"\xff", "[]"])
    assert count_rows(path) == 4 and count_rows(path, most=1) == 1
    assert count_rows(_write(tmp_path / "e.jsonl", ["", " "])) == 0


def _outcome(fn, text):
    """What a decoder makes of ``text``: the value's repr (NaN, -0.0 and int vs float told apart), or the error."""
    try:
        value = fn(text)
    except Exception as exc:  # noqa: BLE001 - the error is the outcome
        return ("error", type(exc).__name__, str(exc))
    return ("value", type(value).__name__, repr(value))


LOADS_CASES = [
    '{"id": "r1", "options": ["a", "b"], "answer_index": 1, "x": null, "y": true, "z": 0.5}',
    '{"a": NaN, "b": Infinity, "c": -Infinity}',  # Python's extensions
    '{"big": 123456789012345678901234567890, "neg": -18446744073709551617}',  # beyond 64 bits: ints, exactly
    '{"a": 1e400, "b": -1e400, "c": 1e-400, "d": -0.0, "e": -0, "f": 1E5, "g": 2.5e-324}',
    '{"a": "\\ud800", "b": "\\udc00x", "c": "\\ud83d\\ude00"}',  # a lone surrogate, escaped; a pair
    '{"a": "\ud800"}',  # a lone surrogate in the text itself
    '{"a": 1, "a": 2}',  # the last one wins
    '{"a": "caf\u00e9 \u2028 \U0001f600", "b": "\\u0000"}',
    ' {"a": 1} ',  # white space around
    "\t[1, 2]\n",
    '"str"',
    "5",
    "[]",
    "[" * 500 + "]" * 500,
    "",
    "   ",
    '{"a": 1} x',  # extra data
    '{"a": 1}{"b": 2}',
    '{"a"',
    '{"a": "\t"}',  # a control character in a string
    '{"a": 01}',
    "\ufeff{}",  # a BOM: json.loads' own error
    "nul",
    "[1,]",
    '{"a": 1,}',
]


def test_loads_gives_json_loads_value_or_error():
    for text in LOADS_CASES:
        assert _outcome(loads, text) == _outcome(json.loads, text), text


def test_loads_gives_json_loads_value_or_error_on_cut_and_altered_records():
    rec = json.dumps(
        {"id": "r\u00e9", "n": [1, -2.5e-3, 18446744073709551616, None, True], "s": "a\\"}, ensure_ascii=False
    )
    texts = [rec[:k] for k in range(len(rec) + 1)]
    texts += [rec[:k] + ch + rec[k:] for k in range(len(rec)) for ch in (" ", "}", '"', "0", "\\", "\x01")]
    for text in texts:
        assert _outcome(loads, text) == _outcome(json.loads, text), text
