"""Unit tests of lmms/cli_run.py, the runner of lmms-eval's CLI as our child: the child's exit code and output, its
log with secrets masked, signals forwarded to it and the exit they ask for, a child that outlives its time or its
parent, and which results file a run claims (its own folder, written during the run, the newest; never another
run's). lmms-eval's CLI is started through :func:`lmms_eval_argv` (its top-level ``--help`` answers at once); the
child of a run is a stand-in that lays its files out as lmms-eval does (a real run imports lmms-eval's models, a
minute here, once per mutant of a mutation run: the real runs are in tests/e2e/). Results ownership and run ids are also tested in tests/lmms/test_run_guards.py."""

from __future__ import annotations

import inspect
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ambi_plugin.lmms import cli_run

TOKEN = "hf_PlantedCliRunToken0123456789"
PY = sys.executable

# What lmms-eval's CLI does for a run, as far as a runner sees it: writes below --output_path (a folder per model,
# a results JSON and a samples file per task), with the run id of its environment in our section of the results.
STAND_IN = """
import json, os, sys, time
from pathlib import Path

out = Path(sys.argv[sys.argv.index("--output_path") + 1])
plan = json.loads(os.environ["STAND_IN_PLAN"])
print(json.dumps({"argv": sys.argv[1:], "run_id": os.environ.get("AMBI_RUN_ID"),
                  "token": os.environ.get("HF_TOKEN")}), flush=True)
print("to stderr", file=sys.stderr)
now = time.time()
for rel, (content, age) in plan.get("files", {}).items():
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content).replace("$RUN_ID", os.environ["AMBI_RUN_ID"]))
    os.utime(path, (now - age, now - age))
time.sleep(plan.get("sleep", 0))
sys.exit(plan.get("rc", 0))
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    """lmms-eval's CLI replaced by :data:`STAND_IN`; call it with the plan of one run (files: path -> (JSON, age))."""
    script = tmp_path / "stand_in_lmms_eval.py"
    script.write_text(STAND_IN)
    monkeypatch.setattr(cli_run, "lmms_eval_argv", lambda: [PY, str(script)])

    def env(files: dict | None = None, **plan) -> dict:
        return {**os.environ, "STAND_IN_PLAN": json.dumps({"files": files or {}, **plan})}

    return env


def _results(run_id: str = "$RUN_ID", **extra) -> dict:
    return {"results": {"t": {"acc,none": 0.5}}, "ambi_plugin": {"run_id": run_id}, **extra}


def _said(run: cli_run.LmmsRun) -> dict:
    return json.loads(run.stdout.splitlines()[0])


# ----------------------------------------------------------------------------------------------- lmms-eval's CLI


def test_lmms_eval_is_started_by_its_console_script_else_as_a_module(tmp_path, monkeypatch):
    argv = cli_run.lmms_eval_argv()
    assert argv == [str(Path(PY).with_name("lmms-eval"))]  # installed here beside the interpreter
    proc = subprocess.run([*argv, "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: lmms-eval")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python3"))  # an interpreter without the script
    assert cli_run.lmms_eval_argv() == [str(tmp_path / "bin" / "python3"), "-m", "lmms_eval"]
    proc = subprocess.run([PY, "-m", "lmms_eval", "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: lmms-eval")


# -------------------------------------------------------------------------------------------- results of a run


def test_a_run_writes_into_its_own_folder_and_claims_its_results_and_samples(tmp_path, stand_in):
    env = stand_in({"model/2026_results.json": (_results(), 0), "model/2026_samples_ambi_x_yn.jsonl": ("s", 0),
                    "model/2026_samples_mine_samples_v1.5.jsonl": ("s", 0)})  # fmt: skip
    env[cli_run.RUN_ID_ENV] = "inherited-from-a-wrapper"
    run = cli_run.run_lmms_eval(["--model", "m", "--tasks", "ambi_x_yn"], output=tmp_path / "out", env=env)
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{8}", run.run_id)
    assert run.run_dir == tmp_path / "out" / run.run_id
    said = _said(run)
    assert said["argv"] == ["--model", "m", "--tasks", "ambi_x_yn", "--output_path", str(run.run_dir)]
    assert said["run_id"] == run.run_id  # the new run's id, not the inherited one
    assert run.returncode == 0 and run.stderr == "to stderr\n"
    assert run.results_path == run.run_dir / "model" / "2026_results.json"
    assert run.results == _results(run.run_id)
    assert run.samples == {
        "ambi_x_yn": run.run_dir / "model" / "2026_samples_ambi_x_yn.jsonl",
        "mine_samples_v1.5": run.run_dir / "model" / "2026_samples_mine_samples_v1.5.jsonl",  # a task named so
    }


def test_a_run_claims_the_newest_of_its_results_files(tmp_path, stand_in):
    files = {"m/old_results.json": (_results(n=1), 60), "m/new_results.json": (_results(n=2), 0),
             "m/older_results.json": (_results(n=0), 120)}  # fmt: skip
    run = cli_run.run_lmms_eval(["--tasks", "t"], output=tmp_path, env=stand_in(files), run_id="run-1")
    assert run.run_id == "run-1" and run.run_dir == tmp_path / "run-1"
    assert run.results_path.name == "new_results.json" and run.results["n"] == 2


def test_a_run_never_claims_another_runs_results_nor_what_was_there_before_it(tmp_path, stand_in):
    other = stand_in({"m/a_results.json": (_results("another-run"), 0), "m/b_samples_t.jsonl": ("s", 0)})
    run = cli_run.run_lmms_eval(["--tasks", "t"], output=tmp_path, env=other, run_id="run-1")
    assert run.results is None and run.results_path is None and run.samples == {}
    first = cli_run.run_lmms_eval([], output=tmp_path, env=stand_in({"m/c_results.json": (_results(), 0)}),
                                  run_id="run-2")  # fmt: skip
    assert first.results_path == tmp_path / "run-2" / "m" / "c_results.json"
    again = cli_run.run_lmms_eval([], output=tmp_path, env=stand_in(rc=1), run_id="run-2")  # the same folder, no file
    assert again.returncode == 1 and again.results is None


def test_a_failed_run_says_its_exit_code_and_the_end_of_its_output(tmp_path, stand_in):
    run = cli_run.run_lmms_eval(["--tasks", "t"], output=tmp_path, env=stand_in(rc=3))
    assert run.returncode == 3 and run.results is None
    err = "to stderr\n"
    assert run.tail() == f"rc=3\n{run.stdout}\n{err}"
    assert run.tail(10) == f"rc=3\n{run.stdout[-10:]}\n{err[-10:]}"
    long = cli_run.LmmsRun(1, "a" * 100 + "b" * 4000, "c" * 4000 + "d")
    assert long.tail() == f"rc=1\n{'b' * 4000}\n{'c' * 3999}d"  # the last 4000 characters of each


def test_a_run_logs_its_output_with_secrets_masked(tmp_path, stand_in, capfd):
    env = {**stand_in({"m/r_results.json": (_results(), 0)}), "HF_TOKEN": TOKEN}
    log = tmp_path / "run.log"
    run = cli_run.run_lmms_eval(["--tasks", "t"], output=tmp_path / "out", env=env, capture=False, log=log)
    assert run.stdout == run.stderr == "" and run.results is not None
    said = json.loads(log.read_text().splitlines()[0])
    assert said["token"] == "***" and said["run_id"] == run.run_id and TOKEN not in log.read_text()
    assert capfd.readouterr().err == "to stderr\n"  # stderr is not logged: it goes to the terminal


def test_a_run_past_its_time_is_stopped(tmp_path, stand_in):
    with pytest.raises(subprocess.TimeoutExpired):
        cli_run.run_lmms_eval(["--tasks", "t"], output=tmp_path, env=stand_in(sleep=60), timeout=1)


def test_a_replay_run_logs_its_samples():
    assert cli_run.replay_args("/p/preds.jsonl", "a,b", "--limit", "2") == [
        "--model", "ambi_replay", "--model_args", "predictions=/p/preds.jsonl", "--tasks", "a,b",
        "--batch_size", "1", "--log_samples", "--limit", "2",
    ]  # fmt: skip


def test_no_results_folder_has_no_results_files(tmp_path):
    assert cli_run._results_files(tmp_path / "missing") == {}
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "x_results.json").write_text("{}")
    (tmp_path / "m" / "x_samples_t.jsonl").write_text("")
    assert list(cli_run._results_files(tmp_path)) == [tmp_path / "m" / "x_results.json"]


# ------------------------------------------------------------------------------------------------- the child


def test_the_childs_exit_code_and_output_come_back(capfd):
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.stdout.buffer.write(b'\\xff\\n'); sys.exit(4)"
    rc, out, err = cli_run.run_child([PY, "-c", code], env=None, timeout=60, capture=True)
    assert (rc, out, err) == (4, "out\n\ufffd\n", "err\n")  # bytes that are not UTF-8 replaced, never an error
    assert cli_run.run_child([PY, "-c", code], env=None, timeout=60) == (4, "", "")
    assert capfd.readouterr() == ("out\n\ufffd\n", "err\n")  # not captured: the terminal has it


def test_the_log_holds_the_childs_output_with_every_secret_of_its_environment_masked(tmp_path):
    log = tmp_path / "child.log"
    code = "import os; print('token', os.environ['HF_TOKEN']); print('done')"
    env = {**os.environ, "HF_TOKEN": TOKEN}
    assert cli_run.run_child([PY, "-c", code], env=env, timeout=60, log=log) == (0, "", "")
    assert log.read_text() == "token ***\ndone\n"


def test_a_child_past_its_time_is_killed(tmp_path):
    pid_file = tmp_path / "pid"
    code = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)"
    for kw in ({"capture": True}, {"log": tmp_path / "log"}):
        start = time.monotonic()
        with pytest.raises(subprocess.TimeoutExpired):
            cli_run.run_child([PY, "-c", code], env=None, timeout=3, **kw)
        assert time.monotonic() - start < 60
        assert not _alive(int(pid_file.read_text()))


# A child that says which signal reached it and ends cleanly.
SIGNALLED = """
import signal, sys, time
from pathlib import Path

said = Path(sys.argv[1])
def stop(signum, frame):
    said.write_text(signal.Signals(signum).name)
    sys.exit(0)
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, stop)
Path(sys.argv[2]).write_text("ready")
time.sleep(60)
"""


@pytest.mark.parametrize(
    ("sig", "raised"),
    [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, SystemExit), (signal.SIGHUP, SystemExit)],
)
def test_a_signal_to_us_reaches_the_child_and_we_end_as_it_asked_once_the_child_has(tmp_path, sig, raised):
    said, ready = tmp_path / "said", tmp_path / "ready"
    got: list[int] = []

    def ours(signum, frame):  # the handler before the run: it sees the signal only were it not forwarded
        got.append(signum)

    before = signal.signal(sig, ours)

    def send() -> None:
        end = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < end:
            time.sleep(0.05)
        os.kill(os.getpid(), sig)

    sender = threading.Thread(target=send)
    sender.start()
    stop: BaseException | None = None
    try:
        try:
            cli_run.run_child([PY, "-c", SIGNALLED, str(said), str(ready)], env=None, timeout=60, capture=True)
        except BaseException as exc:  # noqa: BLE001 - which one is the point (a KeyboardInterrupt must not escape)
            stop = exc
        assert type(stop) is raised and said.read_text() == sig.name and got == []
        if raised is SystemExit:
            assert stop.code == 128 + sig
        assert signal.getsignal(sig) is ours  # restored after the run
    finally:
        sender.join()
        signal.signal(sig, before)


def test_a_log_copier_left_behind_never_holds_up_our_exit(tmp_path):
    """A child stopped for its time may leave a process of its own holding its output open: the thread that copies
    the output into the log then never ends, and must not keep this process from exiting (a daemon thread)."""
    pid_file = tmp_path / "grandchild"
    holder = "import time; time.sleep(120)"
    code = (
        f"import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', {holder!r}]); "
        f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(120)"
    )
    before = set(threading.enumerate())
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            cli_run.run_child([PY, "-c", code], env=None, timeout=3, log=tmp_path / "log")
        left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        assert left and all(t.daemon for t in left)
    finally:
        if pid_file.exists() and pid_file.read_text():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def _utf8_roundtrip(tmp):
    """A results file with non-ASCII text is owned, and a child's non-ASCII output logged whole; -> [owned, log]."""
    import json
    import sys
    from pathlib import Path

    from ambi_plugin.lmms.cli_run import owns_results, run_child

    run_dir = Path(tmp) / "run-1"
    run_dir.mkdir(parents=True)
    results = run_dir / "x_results.json"
    data = {"ambi_plugin": {"run_id": "run-1"}, "prompt": "D\u00e9j\u00e0 vu \u2713"}
    results.write_bytes(json.dumps(data, ensure_ascii=False).encode("utf-8"))  # as lmms-eval writes it
    child = "import sys; sys.stdout.buffer.write('D\\u00e9j\\u00e0 vu \\u2713\\n'.encode()); print('done')"
    run_child([sys.executable, "-c", child], env=None, timeout=60, log=Path(tmp) / "log")
    return [owns_results(results, "run-1", run_dir), (Path(tmp) / "log").read_bytes().decode("utf-8")]


def test_the_log_and_the_results_are_utf8_whatever_the_locale(tmp_path):
    """Read and written as UTF-8 (lmms-eval writes its results JSON so), here and under an ASCII locale."""
    owned, log = _utf8_roundtrip(tmp_path / "here")
    assert owned is True and log == "D\u00e9j\u00e0 vu \u2713\ndone\n"
    script = f"{inspect.getsource(_utf8_roundtrip)}\nprint(json.dumps(_utf8_roundtrip({str(tmp_path / 'ascii')!r})))"
    ascii_env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}
    proc = subprocess.run([PY, "-c", f"import json\n{script}"], env=ascii_env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    owned, log = json.loads(proc.stdout.splitlines()[-1])
    assert owned is True, proc.stderr
    assert log.splitlines()[1:] == ["done"]  # the whole output (the pipe read as ASCII: the first line replaced)


def test_a_child_run_from_another_thread_runs_without_forwarding(tmp_path):
    out: list = []
    thread = threading.Thread(
        target=lambda: out.append(cli_run.run_child([PY, "-c", "print('hi')"], env=None, timeout=60, capture=True))
    )
    thread.start()
    thread.join()
    assert out == [(0, "hi\n", "")]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")  # a zombie is dead


LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
# The child prints the signal it gets when its parent dies (prctl PR_GET_PDEATHSIG; 0: none).
DEATH_SIGNAL = """
import ctypes
sig = ctypes.c_int()
ctypes.CDLL(None).prctl(2, ctypes.byref(sig))
print(sig.value)
"""


@LINUX
def test_the_child_gets_sigterm_when_its_parent_dies():
    assert cli_run.run_child([PY, "-c", DEATH_SIGNAL], env=None, timeout=60, capture=True) == (0, "15\n", "")
    assert subprocess.run([PY, "-c", DEATH_SIGNAL], capture_output=True, text=True).stdout == "0\n"  # not by default


@LINUX
def test_die_with_parent_sets_the_parent_death_signal_of_the_process_it_runs_in():
    import ctypes

    libc = ctypes.CDLL(None)
    sig = ctypes.c_int()
    try:
        cli_run._die_with_parent()  # as the child runs it between fork and exec; here in this process, undone below
        libc.prctl(2, ctypes.byref(sig))
        assert sig.value == signal.SIGTERM
    finally:
        libc.prctl(1, 0)


@LINUX
def test_the_child_dies_with_its_parent_even_by_kill_9(tmp_path):
    pid_file = tmp_path / "pid"
    child = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)"
    parent = (
        f"from ambi_plugin.lmms.cli_run import run_child; run_child([{PY!r}, '-c', {child!r}], env=None, timeout=None)"
    )
    proc = subprocess.Popen([PY, "-c", parent])
    try:
        end = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < end:
            time.sleep(0.05)
        pid = int(pid_file.read_text())
        proc.kill()
        proc.wait()
        end = time.monotonic() + 30
        while _alive(pid) and time.monotonic() < end:
            time.sleep(0.05)
        assert not _alive(pid)
    finally:
        proc.kill()
