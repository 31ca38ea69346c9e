"""``ambi export-tsv``: every TSV it writes loads through VLMEvalKit's own ``build_dataset`` (its generic
custom-dataset route, nothing of ours registered) with our prompts and pixels; what a TSV cannot hold is
skipped and counted, and a task with nothing to write is refused."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from illusion_fixtures import illusionbench_copy, illusionvqa_copy
from PIL import Image
from vlmeval_run import load_tsvs_in_vlmevalkit

from ambi_plugin.data.taskdocs import read_docs
from ambi_plugin.runtime import hooks
from ambi_plugin.runtime.task import all_tasks
from ambi_plugin.vlmeval.tsv import export_task, export_tsv

# one task per benchmark at least; a blind (text-only) one, a multi-image one (video frames), an
# interleaved few-shot one (five images) and a few-shot composite
TASKS = [
    "ambi_synth_geometric_mc",
    "ambibench_motion_video_open",
    "ambi_illusionbench_mc",
    "ambi_illusionvqa_comprehension_4shot",
    "ambi_viabench_ci",
    "ambi_viabench_ci_blind",
    "ambi_rcid_contrast_fewshot_hl",
]


@pytest.fixture
def data(tmp_path, monkeypatch, offline_env, shared_data) -> dict:
    from viabench_fixtures import build_copy

    from ambi_plugin.benchmarks.rcid import build_synthetic

    env = {
        "AMBI_SYNTH_N": "2",
        "AMBI_ILLUSIONBENCH_DIR": str(illusionbench_copy(tmp_path / "data")),
        "AMBI_ILLUSIONVQA_DIR": str(illusionvqa_copy(tmp_path / "data", shared_data)),
        "AMBI_VIABENCH_DIR": str(build_copy(tmp_path / "data" / "via", shared_data)),
        "AMBI_RCID_DIR": str(build_synthetic(tmp_path / "data" / "rcid", n=8)),
    }
    for key, val in env.items():
        monkeypatch.setenv(key, val)
    return {**offline_env, **env}


def _same_pixels(path: str, image) -> bool:
    with Image.open(path) as im:
        return im.size == image.size and im.convert("RGB").tobytes() == image.convert("RGB").tobytes()


def test_every_exported_tsv_loads_through_vlmevalkit_build_dataset(tmp_path, data):
    specs = all_tasks()
    assert {specs[t].benchmark for t in TASKS} == {s.benchmark for s in specs.values()}  # every benchmark
    lmudata = tmp_path / "LMUData"
    written = export_tsv(",".join(TASKS), lmudata)
    assert [w.task for w in written] == TASKS and all(w.path and w.rows and not w.refused for w in written)
    assert sorted(p.name for p in lmudata.glob("*.tsv")) == sorted(f"{t}.tsv" for t in TASKS)
    loaded = load_tsvs_in_vlmevalkit(lmudata, TASKS, data)
    seen_counts = set()
    for w in written:
        got = loaded[w.task]
        assert "error" not in got, (w.task, got)
        assert got["class"] == "CustomVQADataset" and got["n"] == w.rows, w.task
        spec = specs[w.task]
        task = spec.prompt()
        docs = read_docs(spec)
        for doc, msg in zip(docs, got["messages"]):
            visuals = task.visuals(doc)
            images = [m["value"] for m in msg if m["type"] == "image"]
            assert [m["type"] for m in msg] == ["image"] * len(visuals) + ["text"], w.task
            assert msg[-1]["value"] == task.text(doc), w.task
            assert all(_same_pixels(p, v) for p, v in zip(images, visuals)), w.task
            seen_counts.add(len(images))
    assert {0, 1} <= seen_counts and max(seen_counts) >= 5  # blind, single and several images went through
    blind = pd.read_csv(lmudata / "ambi_viabench_ci_blind.tsv", sep="\t")
    assert "image" not in blind.columns and set(blind["image_path"]) == {"[]"}


def test_text_only_records_among_image_records_are_skipped_and_counted(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_SYNTH_N", "4")
    base = all_tasks()["ambi_synth_geometric_letter"]
    spec = dataclasses.replace(base, hooks={**base.hooks, "doc_to_visual": "vlmeval_run.half_blind_visual"})
    done = export_task(spec, tmp_path)
    task = spec.prompt()
    docs = read_docs(spec)
    with_images = [d for d in docs if task.visuals(d)]
    assert 0 < len(with_images) < len(docs)
    assert done.rows == len(with_images) and len(done.skipped) == len(docs) - len(with_images)
    assert all("no image" in s for s in done.skipped)
    table = pd.read_csv(done.path, sep="\t")
    assert list(table["ambi_id"].astype(str)) == [str(hooks.record_of(d)["id"]) for d in with_images]
    assert list(table["index"]) == list(range(len(with_images)))


def test_a_task_with_nothing_to_write_is_refused_without_a_file(tmp_path):
    base = all_tasks()["ambibench_motion_video_open"]
    frames = {k: v for k, v in base.prompt_kwargs["default"].items() if k != "video_frames"}
    spec = dataclasses.replace(base, prompt_kwargs={"default": frames})  # videos, no frames sampled
    done = export_task(spec, tmp_path)
    assert done.path is None and done.rows == 0 and done.skipped
    assert "ambibench_motion_video_open" in done.refused and "no file written" in done.refused
    assert not list(tmp_path.glob("*.tsv"))


def test_export_tsv_command_exits_1_naming_a_refused_task(tmp_path, monkeypatch, capsys):
    import ambi_plugin.vlmeval.tsv as tsv
    from ambi_plugin.cli import main

    base = all_tasks()["ambibench_motion_video_open"]
    frames = {k: v for k, v in base.prompt_kwargs["default"].items() if k != "video_frames"}
    refused = dataclasses.replace(base, prompt_kwargs={"default": frames})
    monkeypatch.setenv("AMBI_SYNTH_N", "2")
    monkeypatch.setattr(tsv, "select_specs", lambda target: [all_tasks()["ambi_synth_geometric_tf"], refused])
    assert main(["export-tsv", "anything", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr()
    assert "wrote 2 rows" in out.out and "refused task ambibench_motion_video_open" in out.err
