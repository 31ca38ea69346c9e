"""VLMEvalKit's own run.py (no launcher of ours) with the opt-in ``.pth`` hook (``ambi vlmeval-hook install``).

The hook file is installed into a temporary folder that a ``sitecustomize`` on ``PYTHONPATH`` adds as a site
directory at start-up, so Python runs its line exactly as it runs the ``.pth`` files of site-packages (the
shared environment's site-packages is not touched)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from vlmeval_run import prediction_table, vlmeval_scores

from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.vlmeval.plainrun import PTH_LINE, PTH_NAME, PTH_TRIGGER, run_py_args

pytestmark = pytest.mark.e2e


@pytest.fixture
def hooked_env(tmp_path, offline_env, monkeypatch):
    """An environment whose Python start-up processes a site dir holding the hook, installed by the CLI."""
    site = tmp_path / "site"
    site.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", "vlmeval-hook", "install", "--site", str(site)],
        env=offline_env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0 and (site / PTH_NAME).read_text() == PTH_LINE, proc.stderr
    custom = tmp_path / "custom"
    custom.mkdir()
    (custom / "sitecustomize.py").write_text(f"import site\nsite.addsitedir({str(site)!r})\n")
    monkeypatch.setenv("AMBI_SYNTH_N", "3")
    path = offline_env.get("PYTHONPATH", "")
    return {**offline_env, "AMBI_SYNTH_N": "3", "PYTHONPATH": f"{path}:{custom}" if path else str(custom)}


# A program named run.py that imports VLMEvalKit as run.py does and prints what VLMEvalKit holds.
STATE = """
import json, sys
import vlmeval
from vlmeval.config import supported_VLM
from vlmeval.dataset import DATASET_CLASSES, DATASET_MODALITY, DATASET_TYPE, SUPPORTED_DATASETS
from vlmeval.dataset.video_dataset_config import supported_video_datasets
from vlmeval.smp.file import _dataset_shadow_names
from vlmeval.vlm.base import BaseModel

theirs = json.load(open(sys.argv[-1])) if sys.argv[-1].endswith(".json") else None
names = theirs or [n for n in SUPPORTED_DATASETS if not n.startswith("ambi")]
def chosen(name):
    if name in supported_video_datasets:
        return "video:" + name
    return next((c.__name__ for c in DATASET_CLASSES if name in c.supported_datasets()), None)
print("STATE=" + json.dumps({
    "argv": sys.argv[1:],
    "ambi_classes": sorted(c.__name__ for c in DATASET_CLASSES if c.__name__.startswith("Ambi")),
    "names": names,
    "chosen": {n: chosen(n) for n in names},
    "type": {n: DATASET_TYPE(n) for n in names},
    "modality": {n: DATASET_MODALITY(n) for n in names},
    "shadows": {n: sorted(_dataset_shadow_names(n)) for n in names},  # SUPPORTED_DATASETS order varies by run
    "models": sorted(supported_VLM),
    "set_dump_image": getattr(BaseModel.set_dump_image, "_ambi_hook", False),
}))
"""


def _state(tmp_path: Path, env: dict, *args: str) -> dict:
    prog = tmp_path / "prog" / "run.py"
    prog.parent.mkdir(exist_ok=True)
    prog.write_text(STATE)
    proc = subprocess.run([sys.executable, str(prog), *args], env=env, capture_output=True, text=True, timeout=600)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("STATE=")]
    assert proc.returncode == 0 and line, proc.stderr[-4000:]
    return json.loads(line[0][len("STATE=") :])


def test_the_hook_changes_nothing_for_vlmevalkit_datasets(tmp_path, offline_env, hooked_env):
    plain = _state(tmp_path, offline_env, "--data", "MMBench_DEV_EN", "--model", "GPT4o")
    theirs = tmp_path / "theirs.json"
    theirs.write_text(json.dumps(plain["names"]))
    assert len(plain["names"]) > 500 and not plain["ambi_classes"] and not plain["set_dump_image"]
    # run.py on VLMEvalKit's datasets only: nothing of ours is registered, VLMEvalKit is exactly as without the hook
    only_theirs = _state(tmp_path, hooked_env, "--data", "MMBench_DEV_EN", "--model", "GPT4o", str(theirs))
    assert {k: v for k, v in only_theirs.items() if k != "argv"} == {k: v for k, v in plain.items() if k != "argv"}
    # run.py with a task of ours beside theirs: ours registered, and each of VLMEvalKit's datasets still gets the
    # class, type, modality and (prediction-file) shadow names it gets without the hook
    mixed = _state(tmp_path, hooked_env, "--data", "MMBench_DEV_EN", "ambi_synth_geometric_tf", str(theirs))
    assert "AmbiSynthGeometricTf" in mixed["ambi_classes"] and mixed["set_dump_image"]
    for key in ("chosen", "type", "modality", "shadows"):
        assert mixed[key] == plain[key], key
    assert sorted(set(mixed["models"]) - set(plain["models"])) == ["ambi_replay"]
    # any other program importing VLMEvalKit is left alone too
    other = tmp_path / "other.py"
    other.write_text(STATE)
    proc = subprocess.run([sys.executable, str(other), "--data", "ambi_synth_geometric_tf", str(theirs)],
                          env=hooked_env, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert json.loads(proc.stdout.split("STATE=", 1)[1])["ambi_classes"] == [], proc.stderr[-2000:]


def test_plain_run_py_scores_our_tasks_and_groups_with_the_hook(tmp_path, offline_env, hooked_env):
    answers = tmp_path / "gold.jsonl"
    write_reference_predictions(answers, tasks="ambi_synth_geometric_tf,ambibench_geometric_yes_no", mode="gold")
    args = ["--data", "ambi_synth_geometric_tf", "ambibench_geometric", "--model", "ambi_replay"]  # a task, a group

    def run(env, work):
        return subprocess.run([sys.executable, "-m", "vlmeval.run", *args, "--work-dir", str(work)],
                              env={**env, "AMBI_REPLAY_PREDICTIONS": str(answers)}, capture_output=True, text=True,
                              timeout=900, cwd=tmp_path)  # fmt: skip

    without = run({**offline_env, "AMBI_SYNTH_N": "3"}, tmp_path / "plain")
    assert without.returncode == 0 and "is not valid, will be skipped" in without.stdout + without.stderr  # no hook
    assert vlmeval_scores(tmp_path / "plain") == {}
    proc = run(hooked_env, tmp_path / "hooked")
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "ambi-plugin (run.py): prediction files in json" in proc.stderr
    scores = vlmeval_scores(tmp_path / "hooked")
    assert sorted(scores) == ["ambi_synth_geometric_tf", "ambibench_geometric_yes_no"]
    assert scores["ambi_synth_geometric_tf"]["acc"] == 1.0 and scores["ambibench_geometric_yes_no"]["acc"] == 1.0
    path, rows = prediction_table(str(tmp_path / "hooked" / "ambi_replay" / "ambi_replay_ambi_synth_geometric_tf"))
    assert path.suffix == ".json" and len(rows) == 3


def test_plain_run_py_refuses_what_ambi_vlmeval_refuses_in_one_line(tmp_path, hooked_env):
    """Models that need different per-model entries for a task of the run: exit 2, one line, nothing run."""
    cmd = [sys.executable, "-m", "vlmeval.run", "--data", "ambibench_multiscene_localization",
           "--model", "Qwen2.5-VL-7B-Instruct", "InternVL3-8B", "--work-dir", str(tmp_path / "w")]  # fmt: skip
    proc = subprocess.run(cmd, env=hooked_env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("ambi-plugin (run.py): error:")]
    assert len(lines) == 1 and "ambibench_multiscene_localization" in lines[0], proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr


def test_run_py_is_recognised_as_the_program():
    assert run_py_args(["python", "-m", "vlmeval.run", "--data", "x"]) == ["--data", "x"]
    assert run_py_args(["python", "-u", "/src/VLMEvalKit/run.py", "--data", "x"]) == ["--data", "x"]
    assert run_py_args(["python", "-X", "dev", "run.py"]) == []
    assert run_py_args(["python", "-m", "ambi_plugin.vlmeval", "--data", "x"]) is None
    assert run_py_args(["python", "-c", "import vlmeval", "run.py"]) is None
    assert run_py_args(["python", "train.py", "run.py"]) is None
    # `python -m vlmeval` (its __main__ runs run.py's main) and options joined as Python allows
    assert run_py_args(["python", "-m", "vlmeval", "--data", "x"]) == ["--data", "x"]
    assert run_py_args(["python", "-mvlmeval.run", "--data", "x"]) == ["--data", "x"]
    assert run_py_args(["python", "-Bm", "vlmeval", "--data", "x"]) == ["--data", "x"]
    assert run_py_args(["python", "-Wignore", "-Xdev", "-mvlmeval"]) == []
    assert run_py_args(["python", "-m", "vlmeval.tools", "run.py"]) is None
    assert run_py_args(["python", "-Bc", "pass", "run.py"]) is None
    assert run_py_args(["python", "--check-hash-based-pycs", "never", "--", "run.py", "a"]) == ["a"]


def _trigger(argv: list[str], orig_argv: list[str]) -> bool:
    """The ``.pth`` line's decision, evaluated as Python evaluates it at start-up (``sys.argv`` then is
    ``['-m', <args>]`` while a ``-m`` module is looked for, ``['-c', <args>]`` for ``-c``, else the script's)."""
    return bool(eval(PTH_TRIGGER, {"sys": type("Sys", (), {"argv": argv, "orig_argv": orig_argv})}))


def test_the_start_up_trigger_looks_at_the_program_only(tmp_path):
    theirs = tmp_path / "VLMEvalKit" / "run.py"
    theirs.parent.mkdir()
    theirs.write_text("from vlmeval.config import supported_VLM\n")
    other = tmp_path / "tool" / "run.py"  # somebody else's run.py
    other.parent.mkdir()
    other.write_text("print('hello')\n")
    py = sys.executable
    assert _trigger(["-m", "--data", "x"], [py, "-m", "vlmeval.run", "--data", "x"])
    assert _trigger(["-m", "--data", "x"], [py, "-m", "vlmeval", "--data", "x"])
    assert _trigger(["-m", "--data", "x"], [py, "-mvlmeval.run", "--data", "x"])
    assert _trigger(["-m"], [py, "-X", "dev", "-Bmvlmeval"])
    assert _trigger([str(theirs), "--data", "x"], [py, "-u", str(theirs), "--data", "x"])
    # an argument that ends in run.py or names vlmeval is another program's argument
    assert not _trigger(["-c", "x_run.py"], [py, "-c", "pass", "x_run.py"])
    assert not _trigger(["-c", str(theirs)], [py, "-c", "pass", str(theirs)])
    assert not _trigger(["train.py", str(theirs), "vlmeval.run"], [py, "train.py", str(theirs), "vlmeval.run"])
    assert not _trigger(["-m", "run.py", "vlmeval"], [py, "-m", "pytest", "run.py", "vlmeval"])
    assert not _trigger(["-m", "x"], [py, "-m", "vlmeval.tools", "x"])
    assert not _trigger([str(other)], [py, str(other)])  # a run.py that is not VLMEvalKit's
    assert not _trigger([str(tmp_path / "gone" / "run.py")], [py, str(tmp_path / "gone" / "run.py")])  # no raise
    assert not _trigger([""], [py]) and not _trigger([""], [])


# Prints the modules of ours that are loaded once the program starts.
OURS = "import json, sys; print('OURS=' + json.dumps(sorted(m for m in sys.modules if m.startswith('ambi_plugin'))))"


def _ours_at_start(env: dict, *cmd: str, cwd: Path) -> list[str]:
    proc = subprocess.run([sys.executable, *cmd], env=env, capture_output=True, text=True, timeout=120, cwd=cwd)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("OURS=")]
    assert proc.returncode == 0 and line, proc.stderr[-3000:]
    return json.loads(line[0][len("OURS=") :])


def test_other_programs_import_nothing_of_ours_at_start_up(tmp_path, hooked_env):
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "run.py").write_text(OURS + "\n")  # a run.py that is not VLMEvalKit's
    (tmp_path / "x_run.py").write_text(OURS + "\n")
    (tmp_path / "vk").mkdir()
    (tmp_path / "vk" / "run.py").write_text(OURS + "  # vlmeval's run.py, as far as the trigger can tell\n")
    assert _ours_at_start(hooked_env, "-c", OURS, "x_run.py", cwd=tmp_path) == []
    assert _ours_at_start(hooked_env, "-c", OURS, "vk/run.py", "vlmeval.run", cwd=tmp_path) == []
    assert _ours_at_start(hooked_env, "x_run.py", "vk/run.py", cwd=tmp_path) == []
    assert _ours_at_start(hooked_env, "tool/run.py", "--data", "ambi_synth_all", cwd=tmp_path) == []
    # the hook is live in this environment: VLMEvalKit's run.py loads it (and only the hook, until vlmeval loads)
    assert "ambi_plugin.vlmeval.plainrun" in _ours_at_start(hooked_env, "vk/run.py", cwd=tmp_path)


@pytest.mark.parametrize("launcher", [("-m", "vlmeval"), ("-mvlmeval.run",)], ids=["m-vlmeval", "mvlmeval.run"])
def test_python_m_vlmeval_runs_our_task_with_the_hook(tmp_path, hooked_env, launcher):
    """``python -m vlmeval`` (its ``__main__`` runs run.py's main) and ``-mvlmeval.run`` are VLMEvalKit's run.py:
    the hook registers our task and the real run scores it."""
    answers = tmp_path / "gold.jsonl"
    write_reference_predictions(answers, tasks="ambi_synth_geometric_tf", mode="gold")
    work = tmp_path / "work"
    cmd = [sys.executable, *launcher, "--data", "ambi_synth_geometric_tf", "--model", "ambi_replay",
           "--work-dir", str(work)]  # fmt: skip
    proc = subprocess.run(cmd, env={**hooked_env, "AMBI_REPLAY_PREDICTIONS": str(answers)}, capture_output=True,
                          text=True, timeout=900, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0 and "is not valid, will be skipped" not in proc.stdout + proc.stderr, proc.stderr
    assert "ambi-plugin (run.py): prediction files in json" in proc.stderr
    scores = vlmeval_scores(work)
    assert list(scores) == ["ambi_synth_geometric_tf"] and scores["ambi_synth_geometric_tf"]["acc"] == 1.0
