"""Bad input: every problem reported at once with its record id, nothing broken built, interruptions harmless."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from ambi_plugin.cli import main


def _rec(rid: str, **kw) -> dict:
    base = {"id": rid, "benchmark": "mine", "category": "ducks", "task_type": "choice", "image": f"images/{rid}.png",
            "options": ["duck", "rabbit"], "answer_index": 0}  # fmt: skip
    return {**base, **kw}


def _canonical(folder: Path, records: list[dict], *, size=(64, 48)) -> Path:
    (folder / "images").mkdir(parents=True, exist_ok=True)
    for rec in records:
        img = rec.get("image")
        if isinstance(img, str) and not (folder / img).exists():
            Image.new("RGB", size, (200, 10, 10)).save(folder / img)
    (folder / "ducks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def _bad_source(tmp_path: Path) -> Path:
    src = _canonical(
        tmp_path / "src",
        [
            _rec("ok"),
            _rec("gone", image="images/nowhere.png"),
            _rec("broken"),
            _rec("ok"),  # duplicate id
            _rec("far", task_type="localization", boxes=[{"label": "duck", "box": [10, 10, 90, 40]}]),
            _rec("wrong", answer_index=5),
        ],
    )
    (src / "images" / "broken.png").write_bytes(b"not a png")
    (src / "images" / "nowhere.png").unlink()
    return src


def test_build_reports_every_bad_record_and_builds_nothing(tmp_path, capsys):
    src = _bad_source(tmp_path)
    out = tmp_path / "out"
    assert main(["build", "ambi_synth", "--source", str(src), "--out", str(out), "--quiet"]) == 1
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("ducks.jsonl:")]
    expected = {
        "gone": "'images/nowhere.png' is missing",
        "broken": "does not decode",
        "ok": "duplicate id",
        "far": "lies outside the 64x48 image",
        "wrong": "'answer_index'=5 is not an index into 2 options",
    }
    for rid, text in expected.items():
        assert any(f"id={rid!r}" in ln and text in ln for ln in lines), (rid, err)
    assert len(lines) == len(expected)
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["src"]  # no half-written folder


def test_a_failed_or_interrupted_build_leaves_the_previous_copy(tmp_path, monkeypatch):
    import importlib

    build_mod = importlib.import_module("ambi_plugin.data.hub.build")

    good = _canonical(tmp_path / "good", [_rec(str(i)) for i in range(5)])
    out = tmp_path / "out"
    assert main(["build", "ambi_synth", "--source", str(good), "--out", str(out), "--quiet"]) == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert main(["build", "ambi_synth", "--source", str(_bad_source(tmp_path)), "--out", str(out), "--quiet"]) == 1
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before

    calls = []

    def interrupt(self, row, nbytes):
        calls.append(row["id"])
        if len(calls) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(build_mod.ShardWriter, "add", interrupt)
    with pytest.raises(KeyboardInterrupt):
        build_mod.build("ambi_synth", str(good), out)
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good", "out", "src"]  # no temporary folder left


def test_preprocess_is_materialised_at_build_time(tmp_path):
    import datasets

    src = _canonical(tmp_path / "src", [_rec("0", preprocess={"max_side": 512, "grayscale": True})], size=(1024, 400))
    out = tmp_path / "out"
    assert main(["build", "ambi_synth", "--source", str(src), "--out", str(out), "--quiet"]) == 0
    row = datasets.load_dataset(str(out))["test"][0]
    assert row["images"][0].size == (1024, 400) and row["shown_image"].size == (512, 200)
    assert len(set(row["shown_image"].convert("RGB").getpixel((5, 5)))) == 1


def test_validate_names_each_bad_row(tmp_path, capsys):
    import pyarrow.parquet as pq

    src = _canonical(tmp_path / "src", [_rec(str(i)) for i in range(3)])
    out = tmp_path / "out"
    assert main(["build", "ambi_synth", "--source", str(src), "--out", str(out), "--quiet"]) == 0
    assert main(["validate", str(out)]) == 0
    path = next((out / "data").rglob("*.parquet"))
    table = pq.read_table(path)
    rows = table.to_pylist()
    rows[1]["images"][0]["bytes"] = b"garbage"
    rec = json.loads(rows[2]["record"])
    rows[2]["record"] = json.dumps({**rec, "answer_index": 7})
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), path)
    capsys.readouterr()
    assert main(["validate", str(out)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert "id='1'" in lines[0] and "does not decode" in lines[0]
    assert "id='2'" in lines[1] and "'answer_index'=7" in lines[1]


def test_an_unavailable_source_says_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    code = main(["build", "illusionbench", "--source", "nobody/no-such-illusionbench", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "AMBI_ILLUSIONBENCH_DIR" in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_a_record_carrying_a_bad_split_is_named(tmp_path, capsys):
    """RCID rows keep the split their release gives them; one that is no valid split name is a problem line."""
    from ambi_plugin.benchmarks.rcid import prompts as P
    from ambi_plugin.benchmarks.rcid.records import RcidItem, write_copy

    src = tmp_path / "rcid"
    (src / "images").mkdir(parents=True)
    items = []
    for i, split in enumerate(["test", "dev set"]):
        Image.new("RGB", (32, 24), (60 * i, 0, 0)).save(src / "images" / f"{i}.png")
        items.append(RcidItem(id=f"r{i}", illusion_type="contrast", image=f"images/{i}.png", is_illusion=False,
                              question=P.QUESTION["contrast"], pixel=[2], human=[2], extra={"split": split}))  # fmt: skip
    write_copy(src, items)
    assert main(["build", "rcid", "--source", str(src), "--out", str(tmp_path / "out"), "--quiet"]) == 1
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "id=" in ln]
    assert len(lines) == 3 and all("id='r1'" in ln for ln in lines)  # the pixel, human and neutral records of r1
    assert all("split 'dev set' is not a valid split name" in ln for ln in lines)
    assert not (tmp_path / "out").exists()
