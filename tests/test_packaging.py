"""The wheel ships task YAMLs and dataset cards inside the package; the CLI lists every command."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ambi_plugin.cli import COMMANDS, build_parser
from ambi_plugin.runtime.taskindex import index

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.e2e
def test_wheel_contains_resources(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    wheels = list(tmp_path.glob("ambi_plugin-*.whl"))
    assert wheels, proc.stdout[-2000:] + proc.stderr[-2000:]
    names = zipfile.ZipFile(wheels[0]).namelist()
    yamls = {Path(p).name for p in (ROOT / "task_yamls").rglob("*") if p.is_file()}
    shipped = {Path(n).name for n in names if n.startswith("ambi_plugin/_resources/task_yamls/")}
    assert yamls and yamls <= shipped
    assert any(n.startswith("ambi_plugin/_resources/hf_dataset_cards/") for n in names)
    assert "ambi_plugin/core/lexicon.yaml" in names
    refs = ("ambibench", "illusionbench", "illusionvqa", "viabench", "rcid")
    assert {f"ambi_plugin/reports/reference/{b}.json" for b in refs} <= set(names)  # the papers' rows (ambi report)
    entry = [n for n in names if n.endswith("entry_points.txt")]
    text = zipfile.ZipFile(wheels[0]).read(entry[0]).decode()
    assert "[lmms_eval.models]" in text and "ambi = ambi_plugin.cli:main" in text
    # plain VLMEvalKit run.py finds our tasks: the hook's .pth at site-packages' top, the exact line plainrun defines
    from ambi_plugin.vlmeval.plainrun import PTH_LINE, PTH_NAME

    assert PTH_NAME in names and zipfile.ZipFile(wheels[0]).read(PTH_NAME).decode() == PTH_LINE


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


def test_every_command_has_help(capsys):
    for name in COMMANDS:
        if name in ("lmms-eval", "vlmeval"):
            continue  # passes its arguments (--help too) through to lmms-eval / VLMEvalKit's run.py
        with pytest.raises(SystemExit) as ex:
            build_parser().parse_args([name, "--help"])
        assert ex.value.code == 0
        assert capsys.readouterr().out.strip()


def test_tasks_command_lists_every_task(capsys):
    from ambi_plugin.cli import main

    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    for name in index():
        assert name in out
    assert "perception" in out and "group" in out
