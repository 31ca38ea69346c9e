"""Bad data: each bad input stops with one clear error naming the file, the record and the field
(the table in docs/reliability.md lists these cases and what happens)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from ambi_plugin.core.schema import RecordError
from ambi_plugin.data.sources import resolve_jsonl
from ambi_plugin.runtime import hooks

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


def test_truncated_image_names_record_field_and_file(data_dir, monkeypatch):
    monkeypatch.setenv("AMBI_STRICT", "1")  # strict mode stops on it; by default it is that item's error
    write(data_dir, "trunc", [{**BASE, "id": "t1", "image": "truncated.png"}])
    row = json.loads(resolve_jsonl("ambi://local", "trunc").read_text().splitlines()[0])
    with pytest.raises(OSError) as err:
        hooks.doc_to_visual(row)
    msg = str(err.value)
    assert "id='t1'" in msg and "'image'" in msg and "truncated.png" in msg, msg


UNKNOWN_KEY_TASK = """\
include: _tmpl
task: ambi_mytask
dataset_path: ambi://local
dataset_name: x
prompt_colour: red
"""


@pytest.fixture
def yaml_with_unknown_keys(tmp_path) -> Path:
    """An include path: a task YAML with an unknown key of its own and one from its included template."""
    folder = tmp_path / "my_tasks"
    folder.mkdir()
    (folder / "_tmpl").write_text("output_type: generate_until\ngeneration_kwrags:\n  max_new_tokens: 8\n")
    (folder / "mytask.yaml").write_text(UNKNOWN_KEY_TASK)
    return folder


def test_unknown_yaml_key_names_file_task_and_key(yaml_with_unknown_keys, capsys):
    """lmms-eval's own TaskConfig names the key only; ``ambi validate-tasks PATH`` names file, task and key."""
    from lmms_eval.api.task import TaskConfig

    from ambi_plugin.cli import main
    from ambi_plugin.runtime.taskindex import load_yaml

    task_file, template = yaml_with_unknown_keys / "mytask.yaml", yaml_with_unknown_keys / "_tmpl"
    with pytest.raises(TypeError) as err:  # what lmms-eval says on its own
        TaskConfig(**load_yaml(task_file))
    assert str(task_file) not in str(err.value)

    assert main(["validate-tasks", str(yaml_with_unknown_keys)]) == 1
    err_lines = capsys.readouterr().err.splitlines()
    own = next(ln for ln in err_lines if "'prompt_colour'" in ln)
    assert own.startswith(f"- {task_file}: task 'ambi_mytask': unknown key 'prompt_colour'"), own
    included = next(ln for ln in err_lines if "'generation_kwrags'" in ln)
    assert included.startswith(f"- {template}: task 'ambi_mytask', included by {task_file}"), included
    assert "did you mean 'generation_kwargs'?" in included
    assert len([ln for ln in err_lines if "unknown key" in ln]) == 2


def test_unknown_key_in_our_own_yaml_is_reported_at_discovery(yaml_with_unknown_keys, capsys):
    """The check lmms-eval runs on our folder before adding it: the bad key is named with its file and task,
    and only that task is affected (the folder stays on the include path)."""
    from ambi_plugin.lmms.include_path import our_yamls_are_readable as _our_yamls_are_readable

    assert _our_yamls_are_readable(str(yaml_with_unknown_keys)) is True
    err = capsys.readouterr().err
    assert f"{yaml_with_unknown_keys / 'mytask.yaml'}: task 'ambi_mytask': unknown key 'prompt_colour'" in err


def test_our_shipped_yamls_use_only_keys_lmms_eval_accepts():
    from ambi_plugin.lmms.validate import check_keys

    assert check_keys() == []


@pytest.mark.parametrize("kind", ["relative ../", "absolute"])
def test_dataset_name_that_is_a_path_writes_only_into_the_cache(tmp_path, monkeypatch, kind):
    """``dataset_name: ../x`` or ``/abs/dir/x`` in a user's YAML: the records are read where it says, but the
    harness copy and its lock are named from a hash in the cache, never written beside the user's records."""
    data, outside = tmp_path / "data", tmp_path / "outside"
    data.mkdir()
    outside.mkdir()
    Image.new("RGB", (32, 32), "white").save(data / "ok.png")  # images are relative to the source folder
    write(outside, "recs", [{**BASE, "id": "r0"}])
    cache = tmp_path / "cache"
    monkeypatch.setenv("AMBI_DATA_DIR", str(data))
    monkeypatch.setenv("AMBI_CACHE", str(cache))
    name = "../outside/recs" if kind.startswith("relative") else str(outside / "recs")
    before = sorted(p.name for p in outside.iterdir())
    out = resolve_jsonl("ambi://local", name)
    assert out.parent == cache / "harness" and out.is_file()
    assert json.loads(out.read_text().splitlines()[0])["id"] == "r0"
    assert sorted(p.name for p in outside.iterdir()) == before  # nothing written beside the records
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "data", "outside"]
    assert all(p.parent == cache / "harness" for p in cache.rglob("*") if p.is_file())
