"""The harness preflight of ``ambi eval`` / ``ambi demo`` / ``ambi vlmeval``: one line and exit 2 when it cannot start."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from ambi_plugin.installcheck import HARNESS_MODULES, check_harness

# filelock 4 as lmms-eval 0.7.3 meets it: `filelock` imports, `filelock._api` does not.
_WITHOUT_FILELOCK_API = textwrap.dedent(
    """
    import sys, filelock
    del sys.modules["filelock._api"]
    delattr(filelock, "_api")

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name == "filelock._api":
                raise ModuleNotFoundError("No module named 'filelock._api'", name=name)

    sys.meta_path.insert(0, Block())
    from ambi_plugin.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)

_WITHOUT_VLMEVAL = textwrap.dedent(
    """
    import sys

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name == "vlmeval" or name.startswith("vlmeval."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    sys.meta_path.insert(0, Block())
    from ambi_plugin.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


def _ambi(script: str, *args: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )


def test_the_harnesses_installed_here_pass():
    assert check_harness("lmms-eval") is None
    assert check_harness("VLMEvalKit") is None


def test_the_lazy_filelock_import_of_lmms_eval_is_checked():
    # lmms_eval/evaluator.py imports filelock._api inside simple_evaluate(): importing the evaluator alone misses it
    assert "filelock._api" in HARNESS_MODULES["lmms-eval"]


def test_demo_and_eval_stop_before_starting_with_one_line(tmp_path):
    for args in (["demo", "--limit", "1"], ["eval", "--model", "dummy", "--tasks", "ambi_synth_all"]):
        proc = _ambi(_WITHOUT_FILELOCK_API, *args, tmp_path=tmp_path)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert proc.returncode == 2, proc.stderr
        assert len(lines) == 1, proc.stderr
        assert "filelock._api" in lines[0] and "pip install 'filelock<4'" in lines[0]
        assert "filelock 3." in lines[0]  # the installed version is named
        assert "Traceback" not in proc.stderr + proc.stdout
        assert "[1/3]" not in proc.stdout  # the demo built nothing


def test_vlmeval_without_vlmevalkit_names_the_extra(tmp_path):
    proc = _ambi(_WITHOUT_VLMEVAL, "vlmeval", "--data", "ambi_synth_all", "--model", "x", tmp_path=tmp_path)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and "VLMEvalKit cannot start" in lines[0], proc.stderr
    assert "pip install 'ambi-plugin[vlmeval]'" in lines[0]
