"""AmbiBench read as its authors publish it (``BLNL/AmbiBench``): type labels, answers, boxes, dirty rows, the
local copy (folder or zip), the Hub cache offline, and every task end to end through the real lmms-eval CLI."""

from __future__ import annotations

import json
import math
import zipfile
from pathlib import Path

import pytest
from published_layouts import AMBIBENCH_DIRTY, AMBIBENCH_TYPES, ambibench_release, hub_cache

from ambi_plugin.benchmarks import ambibench as AB
from ambi_plugin.benchmarks.ambibench.release import (
    HUB_REPO,
    box_group,
    choices_from_question,
    classify_type,
    convert_release,
    materialize_from_hub,
    materialize_release,
)
from ambi_plugin.benchmarks.release import BadRowError, read_report
from ambi_plugin.core.answers import gold_response
from ambi_plugin.core.schema import read_records
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval
from ambi_plugin.reports.results import task_metrics


@pytest.fixture(scope="module")
def release(tmp_path_factory, ambibench_fixtures_dir) -> Path:
    return ambibench_release(Path(ambibench_fixtures_dir), tmp_path_factory.mktemp("blnl") / "AmbiBench")


def _records(root: Path) -> dict[str, list[dict]]:
    return {p.stem: read_records(p) for p in sorted(Path(root).glob("*.jsonl"))}


@pytest.mark.parametrize(
    ("label", "answer", "want"),
    [
        ("Camouflaged_open", "snake", "camouflaged_open"),
        ("camouflaged", "snake", "camouflaged_open"),
        ("Non-camouflaged", "cup", "nonambi_open"),
        ("non_ambiguous", "cup", "nonambi_open"),
        ("Bistable_open", "duck; rabbit", "bistable_open"),
        ("Bistable multiple-choice", "A, B", "bistable_choice"),
        ("bistable_choice", "A, B", "bistable_choice"),
        ("Hybrid_open", "cat, dog", "hybrid_open"),
        ("Color", "bee, canyon", "color_open"),
        ("Multi-view", "horse, penguin", "multiview_open"),
        ("multiview_open", "horse, penguin", "multiview_open"),
        ("Geometric", "Yes", "geometric_yes_no"),
        ("Motion_image", "Yes", "motion_image_yes_no"),
        ("motion_video", "waves", "motion_video_open"),
        ("Motion_COCO", "No", "motion_coco_yes_no"),
        ("COCO", "No", "motion_coco_yes_no"),
        ("COCO", "giraffe", "nonambi_open"),
        ("Multi-scene_open", "a; b", "multiscene_open"),
        ("multi_scene_localization", "skull", "multiscene_localization"),
        ("Multi-scene_region", "a; b", "multiscene_region"),
        ("Mixed_open", "bear, deer", "mixed_open"),
        ("Mixed_localization", "bear", "mixed_localization"),
        ("Mixed_region description", "a; b", "mixed_region"),
        ("Surreal", "x", None),
        ("", "x", None),
        # a task word the category does not have: unknown, never mapped to the category's other task
        ("Hybrid_multiple-choice", "A", None),
        ("Color_localization", "bee", None),
        ("Geometric_region", "Yes", None),
        ("Camouflaged_video", "snake", None),
        ("Multi-scene_choice", "A", None),
        # the A.7 static prompt is not the COCO control; a motion label must say image, video or COCO
        ("Motion_static", "No", None),
        ("static", "No", None),
        ("Motion", "Yes", None),
        # two task words
        ("Mixed_localization_region", "bear", None),
    ],
)
def test_type_labels_map_to_tasks(label, answer, want):
    assert classify_type(label, answer=answer) == want


@pytest.mark.parametrize(
    ("label", "want"),
    [("Multi-scene_localization", None), ("Multi-scene_localization_single", "single"),
     ("Multi-scene loc(combined)", "combined"), ("single combined", None)],
)  # fmt: skip
def test_box_groups_come_from_the_label_only(label, want):
    assert box_group(label) == want


def test_single_and_combined_are_never_read_from_the_box_count(tmp_path):
    """An 'old man face' is one box yet combined: without a label saying so, the split is unknown (NaN)."""
    from PIL import Image

    from ambi_plugin.benchmarks.release import LoadReport
    from ambi_plugin.core.scoring import aggregate, score_item

    split = tmp_path / "rel" / "test"
    split.mkdir(parents=True)
    Image.new("RGB", (100, 80)).save(split / "face.png")
    q = AB.PROMPT_MULTISCENE_LOCALIZATION.format(object="old man face", width=100, height=80)
    rows = [
        {"question": q, "answer": "old man face", "file_name": "face.png", "bbox": [10, 10, 60, 70],
         "type": "Multi-scene_localization"},
        {"question": q, "answer": "old man face", "file_name": "face.png", "bbox": [10, 10, 60, 70],
         "type": "Multi-scene_localization_combined"},
    ]  # fmt: skip
    (split / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = LoadReport("ambibench", "test")
    convert_release(tmp_path / "rel", tmp_path / "out", report)
    unlabelled, labelled = read_records(tmp_path / "out" / "multiscene_localization.jsonl")
    assert {b["group"] for b in unlabelled["boxes"]} == {"unknown"} and "breakdown" not in unlabelled
    assert labelled["breakdown"] == {"group": "combined"}
    items = [score_item(unlabelled, "[(10, 10, 60, 70)]")]
    assert aggregate("ap50", items) == 1.0 and aggregate("hit_rate", items) == 1.0
    assert math.isnan(aggregate("ap50_single", items)) and math.isnan(aggregate("ap50_combined", items))
    assert any("ap50_single / ap50_combined" in n and "NaN" in n for n in report.notes)
    assert any("type label" in n for n in report.notes)


def test_type_map_overrides_the_words():
    assert classify_type("T7", overrides={"t7": "hybrid_open"}) == "hybrid_open"
    assert classify_type("T7", overrides={"t7": "no_such_records"}) is None


def test_choices_are_read_from_the_question():
    q = AB.PROMPT_BISTABLE_CHOICE.format(choices="A: car with snow, B: face, C: Motorcycle, D: Bus, E: None")
    assert choices_from_question(q) == ["car with snow", "face", "Motorcycle", "Bus", "None"]


def test_every_task_is_read_and_dirty_rows_are_skipped_with_their_reason(release):
    out = materialize_release(release)
    recs = _records(out)
    expected = {t.data for t in AB.TASKS}
    assert set(recs) == expected  # every task has records (static ones made from the motion-image rows)
    assert len(recs["motion_static_yes_no"]) == len(recs["motion_image_yes_no"])
    report = read_report(out)
    assert report["skipped_total"] == len(AMBIBENCH_DIRTY)
    reasons = {s["id"]: s["reason"] for s in report["skipped"]}
    for row, kind in AMBIBENCH_DIRTY:
        assert reasons[Path(row["file_name"]).stem].startswith(kind), (row, reasons)
    rows = (release / "test" / "metadata.jsonl").read_text().splitlines()
    assert report["rows_read"] == len(rows)
    assert report["records_total"] == sum(len(v) for v in recs.values())
    assert report["skipped_by_task"]["ambibench_camouflaged_open"] == 2
    assert report["absent"] == {}
    # what the release lacks is said, not guessed: single / combined is unknown whatever the number of boxes
    assert any("single" in n and "combined" in n and "NaN" in n for n in report["notes"])
    assert {len(r["boxes"]) for r in recs["multiscene_localization"]} >= {1, 2}
    for r in recs["multiscene_localization"] + recs["mixed_localization"]:
        assert "group" not in (r.get("breakdown") or {}) and {b["group"] for b in r["boxes"]} == {"unknown"}
    # the assumed order of positional answers is said in the notes
    assert any("near" in n and "left subimage" in n and "upright" in n for n in report["notes"])
    # motion videos: the .png placeholder resolves to the .mp4 file
    for r in recs["motion_video_open"]:
        assert r["video"].endswith(".mp4") and Path(r["video"]).is_file()
    # the ';' pair and the ',' list of the card become positions / interpretations
    assert all(len(r["views"]) == 2 for r in recs["bistable_open"])
    assert all(r["release_type"] in AMBIBENCH_TYPES.values() for rs in recs.values() for r in rs)


def test_strict_mode_stops_at_the_first_bad_row(release, monkeypatch):
    monkeypatch.setenv("AMBI_STRICT", "1")
    monkeypatch.setenv("AMBI_AMBIBENCH_TYPE_MAP", "x=y")  # another cache key than the default conversion
    with pytest.raises(BadRowError, match="dirty_type.*unknown type"):
        materialize_release(release)


def test_the_zip_as_downloaded_and_the_hub_cache_offline(release, tmp_path, monkeypatch):
    archive = tmp_path / "AmbiBench.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in release.rglob("*"):
            if p.is_file():
                zf.write(p, Path("AmbiBench") / p.relative_to(release))
        zf.writestr("__MACOSX/AmbiBench/._README.md", b"junk")
    from_zip = AB.materialize_local(archive)
    from_folder = materialize_release(release)

    def strip(rs):
        return {k: [{**r, "image": Path(r["image"]).name} if "image" in r else r for r in v] for k, v in rs.items()}

    zipped, folder = _records(from_zip), _records(from_folder)
    assert sorted(zipped) == sorted(folder)
    assert [r["id"] for r in zipped["hybrid_open"]] == [r["id"] for r in folder["hybrid_open"]]
    assert strip(zipped)["geometric_yes_no"] == strip(folder)["geometric_yes_no"]

    cache = hub_cache(tmp_path / "hf", HUB_REPO, release)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("AMBI_AMBIBENCH_HUB", raising=False)
    import huggingface_hub.constants as C

    monkeypatch.setattr(C, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(C, "HF_HUB_OFFLINE", True)
    hub = materialize_from_hub()
    report = read_report(hub)
    assert report["source"] == f"hf://datasets/{HUB_REPO}"
    assert {k: len(v) for k, v in _records(hub).items()} == {k: len(v) for k, v in folder.items()}


def test_offline_without_a_cached_copy_says_what_to_do(tmp_path, monkeypatch):
    import huggingface_hub.constants as C

    from ambi_plugin.benchmarks.hub import DataUnavailableError

    monkeypatch.setattr(C, "HF_HUB_CACHE", str(tmp_path / "empty"))
    monkeypatch.setattr(C, "HF_HUB_OFFLINE", True)
    with pytest.raises(DataUnavailableError, match="AMBI_AMBIBENCH_DIR") as err:
        materialize_from_hub()
    assert HUB_REPO in str(err.value) and f"hf download {HUB_REPO} --repo-type dataset" in str(err.value)


@pytest.mark.e2e
def test_ambibench_all_runs_on_the_published_layout(release, tmp_path, offline_env):
    """``lmms-eval --tasks ambibench_all`` with AMBI_AMBIBENCH_DIR at the release as downloaded: every task runs,
    gold answers score best, and the results JSON counts the skipped rows per task."""
    recs = _records(materialize_release(release))
    answers = [
        {"task": f"ambibench_{data}", "id": r["id"], "response": gold_response(r)}
        for data, rs in recs.items()
        for r in rs
    ]
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    env = {**offline_env, "AMBI_AMBIBENCH_DIR": str(release)}
    run = run_lmms_eval(replay_args(preds, AB.ALL_GROUP), output=tmp_path / "out", env=env, timeout=900)
    assert run.results is not None, run.tail()
    got = task_metrics(run.results)
    assert sorted(got) == sorted(t.name for t in AB.TASKS)
    for spec in AB.TASKS:
        for name, value in got[spec.name].items():
            if name.endswith(("_single", "_combined")):
                assert math.isnan(value), (spec.name, name)  # the release does not say single / combined
            elif name in ("acc", "exact_match", "ap50", "hit_rate") or name.startswith("acc_"):
                assert value == 1.0, (spec.name, name, value)
    data = run.results["ambi_plugin"]["data"]
    assert data["ambibench_camouflaged_open"]["skipped"] == 2
    assert data["ambibench_camouflaged_open"]["skipped_by_reason"] == {"empty answer": 1, "missing media": 1}
    assert data["ambibench_hybrid_open"]["skipped"] == 0
    assert data["ambibench_hybrid_open"]["benchmark_skipped_total"] == len(AMBIBENCH_DIRTY)
    assert data["ambibench_hybrid_open"]["records"] == len(recs["hybrid_open"])


@pytest.mark.e2e
def test_a_copy_missing_a_type_still_runs_ambibench_all(tmp_path, offline_env, ambibench_fixtures_dir):
    """No geometric and no motion-image rows: ``ambibench_all`` runs; those tasks (and the static items made from
    motion images) report NaN with the reason in the results JSON; every other task is scored."""
    missing = ("geometric_yes_no", "motion_image_yes_no")
    copy = ambibench_release(Path(ambibench_fixtures_dir), tmp_path / "AmbiBench", dirty=False, omit=missing)
    root = materialize_release(copy)
    absent = read_report(root)["absent"]
    assert set(absent) == {*missing, "motion_static_yes_no"}
    assert absent["geometric_yes_no"] == "the release has no row of this type"
    recs = _records(root)
    answers = [{"task": f"ambibench_{d}", "id": r["id"], "response": gold_response(r)} for d, rs in recs.items()
               for r in rs]  # fmt: skip
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    env = {**offline_env, "AMBI_AMBIBENCH_DIR": str(copy)}
    run = run_lmms_eval(replay_args(preds, AB.ALL_GROUP), output=tmp_path / "out", env=env, timeout=900)
    assert run.results is not None, run.tail()
    got = task_metrics(run.results)
    assert sorted(got) == sorted(t.name for t in AB.TASKS)
    empty = {f"ambibench_{d}" for d in absent}
    data = run.results["ambi_plugin"]["data"]
    for spec in AB.TASKS:
        if spec.name in empty:
            assert got[spec.name] and all(math.isnan(v) for v in got[spec.name].values()), spec.name
            assert data[spec.name]["records"] == 0 and data[spec.name]["no_records"] == absent[spec.data]
        else:
            assert got[spec.name].get("acc", got[spec.name].get("exact_match", got[spec.name].get("ap50"))) == 1.0
            assert "no_records" not in data[spec.name]


def test_no_placeholder_repo_names_remain():
    root = Path(__file__).resolve().parents[2]
    placeholder = "ambi-plugin" + "/ambibench"
    hits = [
        str(p.relative_to(root))
        for sub in ("ambi_plugin", "docs", "task_yamls", "hf_dataset_cards", "README.md")
        for p in ([root / sub] if (root / sub).is_file() else (root / sub).rglob("*"))
        if p.is_file() and p.suffix in (".py", ".md", ".yaml", "") and placeholder in p.read_text(errors="ignore")
    ]
    assert hits == []


def test_a_fresh_process_reads_the_hub_cache_from_the_environment_alone(release, tmp_path, offline_env):
    """What a user does: HF_HUB_CACHE (or HF_HOME) and HF_HUB_OFFLINE=1, nothing of ours set."""
    import subprocess
    import sys

    cache = hub_cache(tmp_path / "hf", HUB_REPO, release)
    env = {k: v for k, v in offline_env.items() if not k.startswith("AMBI_AMBIBENCH")}
    env.update(HF_HUB_CACHE=str(cache), HF_HUB_OFFLINE="1", AMBI_CONFIG=str(tmp_path / "none.yaml"))
    code = "from ambi_plugin.data.sources import source_root; print(source_root('ambi://ambibench'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    root = Path(out.stdout.strip().splitlines()[-1])
    assert read_report(root)["source"] == f"hf://datasets/{HUB_REPO}"
    assert "ambi-plugin: loaded ambibench from hf://datasets/BLNL/AmbiBench" in out.stderr
    assert f"rows skipped: {len(AMBIBENCH_DIRTY)}" in out.stderr


def test_replay_file_writes_the_rest_when_a_task_has_no_rows(tmp_path, monkeypatch, capsys, ambibench_fixtures_dir):
    """``ambi replay-file --tasks ambibench_all --mode gold`` on a copy without geometric rows: the other tasks'
    answers are written, and the task without rows is named with the release's reason (exit 0)."""
    from ambi_plugin.cli import main

    copy = ambibench_release(
        Path(ambibench_fixtures_dir), tmp_path / "AmbiBench", dirty=False, omit=("geometric_yes_no",)
    )
    monkeypatch.setenv("AMBI_AMBIBENCH_DIR", str(copy))
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    out = tmp_path / "gold.jsonl"
    assert main(["replay-file", "--tasks", AB.ALL_GROUP, "--mode", "gold", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "no rows for ambibench_geometric_yes_no (an lmms-eval run reports it NaN): the release has no row" in printed
    tasks = {json.loads(line)["task"] for line in out.read_text().splitlines()}
    assert tasks == {t.name for t in AB.TASKS} - {"ambibench_geometric_yes_no"}
