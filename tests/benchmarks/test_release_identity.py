"""Every release report adds up: rows read = items loaded + rows skipped (by reason) + duplicates merged, on a dirty
copy of each of the five benchmarks as its authors (or the Hub) publish it; ``ambi data`` prints the identity and
the results JSON's ``ambi_plugin`` section carries it (test_release_identity_e2e below)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from illusion_fixtures import illusionvqa_hub_folder
from published_layouts import AMBIBENCH_DIRTY, ambibench_release, illusionbench_entries, illusionbench_release
from rcid_fixtures import HUB_ROWS, N_BAD, N_GOOD, hub_layout

from ambi_plugin.benchmarks.release import read_report
from ambi_plugin.cli import main
from ambi_plugin.core.schema import read_records


def _identity(report: dict, *, rows: int, loaded: int, skipped: dict[str, int], merged: int) -> None:
    ident = report["identity"]
    assert ident["rows_read"] == report["rows_read"] == rows
    assert ident["items_loaded"] == loaded
    assert ident["skipped_by_reason"] == skipped and ident["skipped"] == sum(skipped.values())
    assert ident["merged_duplicates"] == merged
    assert rows == loaded + sum(skipped.values()) + merged and ident["adds_up"] is True


def dirty_ambibench(canonical: Path, out: Path) -> tuple[Path, int]:
    """The published layout with the dirty rows, a line that is not UTF-8, an identical duplicate, a blank line;
    returns the folder and the number of the line that is not UTF-8."""
    release = ambibench_release(canonical, out)
    meta = release / "test" / "metadata.jsonl"
    lines = meta.read_bytes().splitlines(keepends=True)
    bad = b'{"question": "q", "answer": "caf\xe9", "file_name": "x.png", "bbox": [], "type": "Camouflaged_open"}\n'
    lines += [lines[0], b"\n", bad]  # an exact duplicate of the first row; a blank line (no row); Latin-1 bytes
    meta.write_bytes(b"".join(lines))
    return release, len(lines)


def test_ambibench_bad_bytes_and_duplicates_are_counted(tmp_path, ambibench_fixtures_dir):
    from ambi_plugin.benchmarks.ambibench.release import materialize_release

    release, bad_line = dirty_ambibench(Path(ambibench_fixtures_dir), tmp_path / "AmbiBench")
    out = materialize_release(release)  # the bad line does not end the load
    report = read_report(out)
    bad = [s for s in report["skipped"] if s["id"] == f"metadata.jsonl:{bad_line}"]
    assert len(bad) == 1 and bad[0]["reason"].startswith("not UTF-8: byte 0xe9 at column")
    assert [m["id"] for m in report["merged"]] == [f"metadata.jsonl:{bad_line - 2}"]
    assert report["merged"][0]["reason"].startswith("duplicate row: identical to line 1")
    rows = bad_line - 1  # the blank line is no row
    recs = {p.stem: read_records(p) for p in out.glob("*.jsonl")}
    items = sum(len(v) for k, v in recs.items() if k != "motion_static_yes_no")  # static items are made, not read
    kinds: dict[str, int] = {}
    for _, kind in AMBIBENCH_DIRTY:
        kinds[kind] = kinds.get(kind, 0) + 1
    kinds["not UTF-8"] = 1
    _identity(report, rows=rows, loaded=items, skipped=dict(sorted(kinds.items())), merged=1)
    first = json.loads((release / "test" / "metadata.jsonl").read_text(errors="replace").splitlines()[0])
    first_ids = [r["id"] for rs in recs.values() for r in rs if r["id"].startswith(Path(first["file_name"]).stem)]
    assert len(first_ids) == len(set(first_ids))  # the duplicate was not loaded a second time


def dirty_illusionbench(out: Path) -> tuple[Path, dict]:
    """The authors' layout with an empty Description and an entry listed twice, identically."""
    release = illusionbench_release(out)
    path = release / "Image_properties.json"
    entries = json.loads(path.read_text(encoding="utf-8"))
    entries[1]["image_property"]["Description"] = ""
    entries.append(json.loads(json.dumps(entries[0])))
    path.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
    return release, entries[0]


def test_illusionbench_empty_descriptions_and_duplicates_are_counted(tmp_path):
    from ambi_plugin.benchmarks.illusionbench.release import materialize_folder

    release, first = dirty_illusionbench(tmp_path / "IllusionBench")
    out = materialize_folder(release)
    report = read_report(out)
    reasons = {s["id"]: s["reason"] for s in report["skipped"]}
    assert reasons["illusion_01.png:desc"].startswith("no description")
    assert report["skipped_by_task"]["ambi_illusionbench_description"] == 2  # the empty one, the missing image
    assert len(read_records(out / "illusionbench_description.jsonl")) == 8 - 1
    entries = illusionbench_entries()
    n_rows = sum(len(e["qa_data"]) + 1 for e in entries)  # questions and a description per entry
    merged = len(first["qa_data"]) + 1
    loaded = sum(len(read_records(p)) for p in out.glob("illusionbench_*.jsonl"))
    skipped = {
        "answer not among the options": 1,
        "bad true/false answer": 1,
        "missing image": 2,
        "more than four options": 1,
        "no description": 1,
    }
    _identity(report, rows=n_rows + merged, loaded=loaded, skipped=skipped, merged=merged)


def _append(hub: Path, split: str, rows: list[dict]) -> None:
    import datasets

    ds = datasets.load_dataset(str(hub))[split]
    more = datasets.Dataset.from_list(rows, features=ds.features)
    merged = datasets.concatenate_datasets([ds, more])
    for old in (hub / "data").glob(f"{split}-*.parquet"):
        old.unlink()
    merged.to_parquet(str(hub / "data" / f"{split}-00000-of-00001.parquet"))


def dirty_illusionvqa(root: Path, shared_data: Path) -> Path:
    """Both repos as downloaded into one folder; Comprehension's test split with a row repeated identically, a row
    with the same id and another question, and a bad row."""
    import datasets

    folder = root / "illusionVQA"
    folder.mkdir(parents=True)
    comp = illusionvqa_hub_folder(root / "parts", shared_data, "comprehension", n=6)
    soft = illusionvqa_hub_folder(root / "parts", shared_data, "soft_localization", n=4)
    test = datasets.load_dataset(str(comp))["test"]
    _append(comp, "test", [test[0], {**test[1], "question": "And what else?"}, {**test[2], "id": 7001, "answer": "x"}])
    comp.rename(folder / "illusionVQA-Comprehension")
    soft.rename(folder / "illusionVQA-Soft-Localization")
    return folder


def test_illusionvqa_duplicate_ids_are_merged_or_kept_apart(tmp_path, shared_data):
    from ambi_plugin.benchmarks import illusionvqa as IV

    folder = dirty_illusionvqa(tmp_path, shared_data)
    out = IV.materialize_local(folder)
    report = read_report(out)
    test = read_records(out / "illusionvqa_comprehension.jsonl")
    ids = [r["id"] for r in test]
    assert len(ids) == len(set(ids)) == 6 + 1  # the identical row once; the other question under its own id
    first, second = ids[0], ids[1]
    assert f"{second}#2" in ids and ids.count(first) == 1
    assert [m["id"] for m in report["merged"]] == [first]
    assert report["flagged"][IV.FLAG_SAME_ID] == [f"{second}#2"]
    by_id = {r["id"]: r for r in test}
    assert by_id[f"{second}#2"]["question"] == "And what else?" and by_id[second]["question"] != "And what else?"
    assert (out / by_id[f"{second}#2"]["image"]).is_file()
    shots = 4 + 4  # the train splits: every example is loaded
    rows = (6 + 3) + 4 + shots
    _identity(report, rows=rows, loaded=7 + 4 + shots, skipped={"answer not among the options": 1}, merged=1)


def dirty_viabench(root: Path, shared_data: Path) -> Path:
    """The challenge folder as downloaded, with a row repeated identically and a row without an image name."""
    folder = root / "via_bench_val"
    folder.mkdir(parents=True)
    (folder / "images").symlink_to(shared_data / "via_bench_val" / "images")
    rows = json.loads((shared_data / "via_bench_val" / "val.json").read_text(encoding="utf-8"))
    rows += [rows[3], {"Question": "Q?", "option": "A. x\nB. y"}]
    (folder / "val.json").write_text(json.dumps(rows), encoding="utf-8")
    return folder


def test_viabench_duplicates_are_counted(tmp_path, shared_data):
    from ambi_plugin.benchmarks import viabench as VB

    out = VB.materialize_local(dirty_viabench(tmp_path, shared_data))
    report = read_report(out)
    assert report["merged"][0]["reason"] == "duplicate row: row 250 is identical to row 4"
    _identity(report, rows=251, loaded=249, skipped={"no image name": 1}, merged=1)


def test_rcid_rows_items_and_variants_are_told_apart(tmp_path):
    from ambi_plugin.benchmarks.rcid import materialize_from_hub

    out = materialize_from_hub(str(hub_layout(tmp_path / "hub")))
    report = read_report(out)
    assert report["rows_read"] == len(HUB_ROWS)  # rows of the release, not prompt variants
    assert report["records_total"] > report["rows_read"]  # each item is asked in several variants
    assert any(n.startswith("contrast: ") and "prompt variants" in n for n in report["notes"])
    assert report["identity"]["items_loaded"] == N_GOOD and report["identity"]["skipped"] == N_BAD
    assert report["identity"]["adds_up"] is True


def test_ambi_data_prints_the_identity_of_each_benchmark(
    tmp_path, monkeypatch, capsys, ambibench_fixtures_dir, shared_data
):
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    copies = {
        "ambibench": dirty_ambibench(Path(ambibench_fixtures_dir), tmp_path / "AmbiBench")[0],
        "illusionbench": dirty_illusionbench(tmp_path / "IllusionBench")[0],
        "illusionvqa": dirty_illusionvqa(tmp_path / "vqa", shared_data),
        "viabench": dirty_viabench(tmp_path / "via", shared_data),
    }
    from ambi_plugin.data.sources import source_root

    for bench, copy in copies.items():
        monkeypatch.setenv(f"AMBI_{bench.upper()}_DIR", str(copy))
        source_root(f"ambi://{bench}")
    monkeypatch.setenv("AMBI_RCID_HUB", str(hub_layout(tmp_path / "rcid")))
    source_root("ambi://rcid")
    assert main(["data"]) == 0
    out = capsys.readouterr().out
    sections = {}
    for line in out.splitlines():
        if not line.startswith(" "):
            current = line.split(":")[0]
        elif line.strip().startswith("release: "):
            sections[current] = line.strip()
    assert set(sections) == {"ambibench", "illusionbench", "illusionvqa", "viabench", "rcid"}, out
    for bench, line in sections.items():
        report = read_report(next(p for p in (tmp_path / "cache" / bench).iterdir() if (p / ".complete").is_file()))
        ident = report["identity"]
        assert line.startswith(
            f"release: rows read {ident['rows_read']} = items loaded {ident['items_loaded']} + skipped "
            f"{ident['skipped']} ("
        ), (bench, line)
        assert line.endswith(f"+ merged duplicates {ident['merged_duplicates']}"), (bench, line)
        assert ident["adds_up"] and ident["skipped"] > 0
    assert "merged duplicates 1" in sections["ambibench"] and "not UTF-8 1" in sections["ambibench"]
    assert "no description 1" in sections["illusionbench"]
    assert f"rows read {len(HUB_ROWS)} = items loaded {N_GOOD} + skipped {N_BAD}" in sections["rcid"]


@pytest.mark.e2e
def test_the_results_json_carries_the_release_identity(tmp_path, offline_env):
    """A replayed run on a dirty IllusionBench copy: each task's data entry holds its benchmark's identity."""
    from ambi_plugin.benchmarks.illusionbench.release import materialize_folder
    from ambi_plugin.core.answers import gold_response
    from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval

    release, _ = dirty_illusionbench(tmp_path / "IllusionBench")
    out = materialize_folder(release)
    names = {"illusionbench_tf": "ambi_illusionbench_tf", "illusionbench_mc": "ambi_illusionbench_mc"}
    answers = [{"task": task, "id": r["id"], "response": gold_response(r)}
               for stem, task in names.items() for r in read_records(out / f"{stem}.jsonl")]  # fmt: skip
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    env = {**offline_env, "AMBI_ILLUSIONBENCH_DIR": str(release)}
    run = run_lmms_eval(replay_args(preds, "ambi_illusionbench_tf"), output=tmp_path / "out", env=env, timeout=900)
    assert run.results is not None, run.tail()
    entry = run.results["ambi_plugin"]["data"]["ambi_illusionbench_tf"]
    assert entry["benchmark_release"] == read_report(out)["identity"]
    assert entry["benchmark_release"]["adds_up"] is True
