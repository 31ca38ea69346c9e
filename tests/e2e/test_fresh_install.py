"""A new user's first contact: the wheel into a brand-new virtualenv, then ``ambi demo --limit 1``.

No pip cache and no lock file: the packages pip resolves today, so a dependency's new release that breaks a fresh
install shows up here. It takes minutes (torch alone is several GB), so it is deselected by default
(``-m 'not fresh_install'`` in pyproject.toml) and ``.ci/run`` runs it whenever it resolves its own virtualenv
afresh (at least weekly). By hand: ``python -m pytest -q -m fresh_install``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.fresh_install, pytest.mark.e2e, pytest.mark.time_limit(3 * 3600)]  # pip: up to 50 min

REPO = Path(__file__).resolve().parents[2]
EXTRAS = "lmms,judge"  # what `ambi demo` needs: the harness, pyllusion, the offline judge's model


def _run(cmd: list[str], *, env: dict, timeout: float, cwd: Path | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def _source_copy(dst: Path) -> Path:
    """The tracked files only (a build writes build/ and *.egg-info into its source folder)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        src = REPO / name
        if src.is_file():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name)
    return dst


def test_wheel_in_a_new_virtualenv_runs_the_demo(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_NO_CACHE"))}
    env.update(
        PIP_NO_CACHE_DIR="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        AMBI_CACHE=str(tmp_path / "cache"),
    )
    env.pop("AMBI_AMBIBENCH_DIR", None)  # the demo needs no release
    src = _source_copy(tmp_path / "src")
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(src)], env=env, timeout=600)
    (wheel,) = wheels.glob("ambi_plugin-*.whl")

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env=env, timeout=300)
    bindir = venv / "bin"
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    _run([str(bindir / "pip"), "install", "-q", f"{wheel}[{EXTRAS}]"], env=env, timeout=3000)

    out = tmp_path / "demo"
    work = tmp_path / "work"  # not the checkout: the installed wheel must carry its task YAMLs
    work.mkdir()
    proc = subprocess.run(
        [str(bindir / "ambi"), "demo", "--limit", "1", "--output", str(out)],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, f"ambi demo exited {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    (results_path,) = [p for p in out.rglob("*_results.json")]
    results = json.loads(results_path.read_text())
    scored = {
        task
        for task, metrics in results["results"].items()
        if task.startswith("ambi_synth_") and any("," in k and isinstance(v, (int, float)) for k, v in metrics.items())
    }
    listed = json.loads(
        _run([str(bindir / "python"), "-c", _SYNTH_TASKS], env=env, timeout=300, cwd=work)
        .stdout.strip()
        .splitlines()[-1]
    )
    assert listed and set(listed) <= scored, f"tasks without a metric: {sorted(set(listed) - scored)}"
    assert "ambi_synth_all" in proc.stdout  # the table the demo prints


# the synth tasks the installed package knows (its own index, read in the new virtualenv)
_SYNTH_TASKS = "import json; from ambi_plugin.runtime.taskindex import index; print(json.dumps(sorted(index()['ambi_synth_all'].members)))"
