"""Bad data: each bad input stops with one clear error naming the file, the record and the field
(the table in docs/reliability.md lists these cases and what happens)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from ambi_plugin.core.schema import RecordError
from ambi_plugin.lmms import hooks
from ambi_plugin.lmms.datasets import resolve_jsonl

BASE = {"benchmark": "b", "category": "c", "task_type": "choice", "question": "q", "options": ["x", "y"],
        "answer_index": 0, "image": "ok.png"}  # fmt: skip


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> Path:
    Image.new("RGB", (32, 32), "white").save(tmp_path / "ok.png")
    raw = (tmp_path / "ok.png").read_bytes()
    (tmp_path / "truncated.png").write_bytes(raw[: len(raw) // 2])
    monkeypatch.setenv("AMBI_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    return tmp_path


def write(folder: Path, name: str, records: list[dict]) -> Path:
    path = folder / f"{name}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"image": "missing.png"}, "image"),
        ({"answer_index": "0"}, "answer_index"),
        ({"options": "x, y"}, "options"),
        ({"question": 5}, "question"),
        ({"image": {"path": "ok.png"}}, "image"),
        ({"task_type": "essay"}, "task_type"),
    ],
)
def test_bad_record_stops_before_any_model_call(data_dir, change, field):
    src = write(data_dir, "bad", [{**BASE, "id": "r0"}, {**BASE, "id": "r1", **change}])
    with pytest.raises(RecordError) as err:
        resolve_jsonl("ambi://local", "bad")
    msg = str(err.value)
    assert str(src) in msg and "id='r1'" in msg and f"'{field}'" in msg, msg


def test_empty_split_names_the_file(data_dir):
    src = write(data_dir, "empty", [])
    with pytest.raises(RecordError, match="no records") as err:
        resolve_jsonl("ambi://local", "empty")
    assert str(src) in str(err.value)


def test_truncated_image_names_record_field_and_file(data_dir):
    write(data_dir, "trunc", [{**BASE, "id": "t1", "image": "truncated.png"}])
    row = json.loads(resolve_jsonl("ambi://local", "trunc").read_text().splitlines()[0])
    with pytest.raises(OSError) as err:
        hooks.doc_to_visual(row)
    msg = str(err.value)
    assert "id='t1'" in msg and "'image'" in msg and "truncated.png" in msg, msg


def test_unknown_yaml_key_is_reported_with_the_file(tmp_path):
    """A task YAML with an unknown top-level key: lmms-eval's own TaskConfig rejects it, naming the key
    (not the file: see docs/reliability.md)."""
    from ambi_plugin.taskindex import load_yaml

    path = tmp_path / "mytask.yaml"
    path.write_text("task: ambi_mytask\ndataset_path: ambi://local\ndataset_name: x\nprompt_colour: red\n")
    from lmms_eval.api.task import TaskConfig

    cfg = load_yaml(path)
    with pytest.raises(TypeError) as err:
        TaskConfig(**cfg)
    assert "prompt_colour" in str(err.value)
