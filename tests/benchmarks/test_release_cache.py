"""A release is converted once per (its files, converter version, options), whatever folder a run starts from: a
group run from a folder holding 10,000 unrelated files converts each release once and reads none of those files, and
a second run of the same groups from another folder converts nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from illusion_fixtures import illusionvqa_hub_folder
from published_layouts import ambibench_release, illusionbench_release
from rcid_fixtures import hub_layout

from ambi_plugin.benchmarks.hub import source_key

# Runs `ambi replay-file` in this process with an audit hook that records every file opened and every folder listed
# (the audit events of open / os.scandir / os.listdir) inside the working folder, and writes them to argv[1].
RUNNER = r"""
import json, os, sys
sys.path[:] = [p for p in sys.path if p not in ("", ".")]  # Python itself would list the working folder for imports
cwd = os.getcwd()
seen = []
def hook(event, args):
    if event in ("open", "os.scandir", "os.listdir") and args and isinstance(args[0], (str, bytes, os.PathLike)):
        p = os.fsdecode(args[0]) if not isinstance(args[0], str) else args[0]
        full = os.path.normpath(os.path.join(cwd, p or "."))
        if (full == cwd or full.startswith(cwd + os.sep)) and os.path.exists(full):  # not a name tried in vain
            seen.append([event, full])
sys.addaudithook(hook)
from ambi_plugin.cli import main
rc = main(sys.argv[2:])
with open(sys.argv[1], "w") as fh:
    json.dump(seen, fh)
sys.exit(rc)
"""

GROUPS = "ambibench_all,ambi_illusionbench_all,ambi_illusionvqa_all,ambi_rcid_all,ambi_viabench_val"


def _unrelated(folder: Path, n: int = 10_000) -> Path:
    """A working folder as a user's home is: many files that have nothing to do with any release."""
    for k in range(n):
        sub = folder / f"d{k // 1000}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note_{k}.txt").write_text(str(k))
    return folder


def _run(cwd: Path, out: Path, env: dict) -> tuple[subprocess.CompletedProcess, list]:
    seen = out.with_suffix(".seen.json")
    # garbage answers: the public VIA-Bench split has no answer key to make gold ones from
    args = [sys.executable, "-c", RUNNER, str(seen), "replay-file", "--tasks", GROUPS, "--mode", "garbage"]
    proc = subprocess.run([*args, "--out", str(out)], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc, json.loads(seen.read_text())


def _conversions(stderr: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in stderr.splitlines():
        if line.startswith("ambi-plugin: loaded "):
            bench = line.split()[2]
            counts[bench] = counts.get(bench, 0) + 1
    return counts


@pytest.mark.e2e
def test_two_runs_from_two_crowded_folders_convert_each_release_once(
    tmp_path, offline_env, ambibench_fixtures_dir, shared_data
):
    ambi = ambibench_release(Path(ambibench_fixtures_dir), tmp_path / "rel" / "AmbiBench")
    ib = illusionbench_release(tmp_path / "rel" / "IllusionBench")
    vqa = tmp_path / "rel" / "illusionVQA"  # the two repos as `hf download ... --local-dir` leaves them
    vqa.mkdir(parents=True)
    for task, name in (("comprehension", "Comprehension"), ("soft_localization", "Soft-Localization")):
        illusionvqa_hub_folder(tmp_path / "parts", shared_data, task, n=6).rename(vqa / f"illusionVQA-{name}")
    env = {
        **offline_env,
        "AMBI_CACHE": str(tmp_path / "cache"),  # a fresh cache: the first run converts every release
        "AMBI_CONFIG": str(tmp_path / "none.yaml"),
        "AMBI_AMBIBENCH_DIR": str(ambi),
        "AMBI_ILLUSIONBENCH_DIR": str(ib),
        "AMBI_ILLUSIONVQA_DIR": str(vqa),
        "AMBI_RCID_DIR": str(hub_layout(tmp_path / "rel" / "RCID")),
        "AMBI_VIABENCH_DIR": str(shared_data / "via_bench_val"),
    }
    for var in (
        "AMBI_AMBIBENCH_TYPE_MAP",
        "AMBI_AMBIBENCH_REGION_DRAWN",
        "AMBI_ILLUSIONBENCH_CATEGORY_MAP",
        "AMBI_VIABENCH_ANSWERS",
        "AMBI_RCID_TYPE",
        "AMBI_RCID_CLASS_MAP",
        "AMBI_RCID_HUMAN",
    ):
        env.pop(var, None)  # unset options: the case that used to key the cache on the working folder
    first, seen1 = _run(_unrelated(tmp_path / "home1"), tmp_path / "answers1.jsonl", env)
    want = {"ambibench": 1, "illusionbench": 1, "illusionvqa": 1, "rcid": 1, "viabench": 1}
    assert _conversions(first.stderr) == want, first.stderr[-3000:]
    assert seen1 == []  # not one of the unrelated files was opened, no folder of them listed
    # the run's own output in the working folder, and another crowded folder: nothing is converted again
    (tmp_path / "home2").mkdir()
    second, seen2 = _run(_unrelated(tmp_path / "home2", 2_000), tmp_path / "home2" / "answers2.jsonl", env)
    assert _conversions(second.stderr) == {}, second.stderr[-3000:]
    assert [e for e in seen2 if not e[1].endswith(("answers2.jsonl", "answers2.jsonl.tmp", "answers2.seen.json"))] == []
    assert (tmp_path / "answers1.jsonl").read_text() == (tmp_path / "home2" / "answers2.jsonl").read_text()
    assert len([p for p in (tmp_path / "cache" / "ambibench").iterdir() if (p / ".complete").is_file()]) == 1


def test_the_key_is_text_and_the_files_read_only(tmp_path, monkeypatch):
    """An empty option is the empty text, never the current folder; an edited file read changes the key."""
    release = tmp_path / "release"
    release.mkdir()
    (release / "metadata.jsonl").write_text("{}\n")
    monkeypatch.chdir(tmp_path / "release")
    before = source_key("2", "", read=[release])
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    (tmp_path / "elsewhere" / "output.json").write_text("a run's own output")
    assert source_key("2", "", read=[release]) == before
    (release / "metadata.jsonl").write_text('{"question": "edited"}\n')
    assert source_key("2", "", read=[release]) != before
    with pytest.raises(ValueError, match="absolute"):
        source_key("2", read=[""])
