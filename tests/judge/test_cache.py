"""The persistent cache: several threads, several processes, a killed run, ``ambi judge-cache``."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from ambi_plugin.cli import main as ambi_main
from ambi_plugin.judge.cache import JudgeCache, cache_key


def _writer(path: str, worker: int, n: int, queue) -> None:
    try:
        cache = JudgeCache(path)

        def thread(t: int) -> None:
            for i in range(n):
                shared = cache_key("openai", "m", {}, f"shared {i}", 0)  # every process writes these too
                own = cache_key("openai", "m", {}, f"w{worker} t{t} {i}", 0)
                for key, reply in ((shared, f"shared {i}"), (own, f"{worker}/{t}/{i}")):
                    cache.put(key, backend="openai", model="m", template="t", round_index=0, reply=reply, ok=True)
                    assert cache.get(key).reply == reply

        threads = [threading.Thread(target=thread, args=(t,)) for t in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        queue.put(("ok", worker))
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def test_several_processes_and_threads(tmp_path):
    path = str(tmp_path / "judge.sqlite")
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(path, w, 60, queue)) for w in range(3)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert all(r[0] == "ok" for r in results), results
    cache = JudgeCache(path)
    assert len(cache) == 60 + 3 * 4 * 60
    assert cache.get(cache_key("openai", "m", {}, "w2 t3 59", 0)).reply == "2/3/59"
    mode = cache._conn().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode.lower() == "wal"


KILLED_RUN = textwrap.dedent(
    """
    import sys
    from ambi_plugin.judge import JudgeSettings, make_judge
    url, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    judge = make_judge(JudgeSettings(backend="openai", model="m", base_url=url, cache_path=path, max_concurrency=1))
    for i in range(n):
        judge.set_match([f"gold{i}"], [f"pred{i}"])
    print("done", flush=True)
    """
)


def test_a_killed_run_keeps_what_it_received_and_the_rerun_asks_only_the_rest(serve, tmp_path, offline_env):
    srv = serve(lambda prompt, n, payload: "True", latency=0.05)
    path, n = str(tmp_path / "judge.sqlite"), 200
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, srv.url, path, str(n)], env=offline_env)
    deadline = time.time() + 120
    while srv.requests < 30 and time.time() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    kept = len(JudgeCache(path))
    assert 29 <= kept < n  # every reply received before the kill (at most one was in flight)
    srv.reset_counters()
    rerun = subprocess.run([sys.executable, "-c", KILLED_RUN, srv.url, path, str(n)], env=offline_env, timeout=300)
    assert rerun.returncode == 0
    assert srv.requests == n - kept and len(JudgeCache(path)) == n


def test_judge_cache_command_shows_and_clears(tmp_path, capsys):
    path = tmp_path / "judge.sqlite"
    cache = JudgeCache(path)
    for i, (backend, ok) in enumerate([("openai", True), ("openai", False), ("hf", True)]):
        key = cache_key(backend, "m", {}, f"p{i}", 0)
        cache.put(key, backend=backend, model="m", template="ambibench_set_match", round_index=0, reply="x", ok=ok)
    assert ambi_main(["judge-cache", "--path", str(path)]) == 0
    out = capsys.readouterr().out
    assert "3 replies" in out and "openai" in out and "hf" in out
    assert ambi_main(["judge-cache", "clear", "--path", str(path), "--errors"]) == 0
    assert "removed 1" in capsys.readouterr().out and len(cache) == 2
    assert ambi_main(["judge-cache", "clear", "--path", str(path), "--backend", "hf"]) == 0
    assert len(cache) == 1
    assert ambi_main(["judge-cache", "clear", "--path", str(path)]) == 0
    assert len(cache) == 0
    assert ambi_main(["judge-cache", "--path", str(tmp_path / "none.sqlite")]) == 0
    assert "(empty)" in capsys.readouterr().out


def test_default_location_is_under_the_ambi_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path))
    assert JudgeCache().path == tmp_path / "judge" / "judge.sqlite"


@pytest.mark.parametrize("round_index", [0, 4])
def test_keys_depend_on_every_part(round_index):
    base = ("openai", "m", {"temperature": None}, "prompt", round_index)
    key = cache_key(*base)
    variants = [
        ("hf", *base[1:]),
        (base[0], "m2", *base[2:]),
        (*base[:2], {"temperature": 0.7}, *base[3:]),
        (*base[:3], "prompt!", base[4]),
        (*base[:4], round_index + 1),
    ]
    assert all(cache_key(*v) != key for v in variants) and cache_key(*base) == key


GARBAGE = b"not a database\n" + bytes(range(256)) * 40


def _moved_aside(path):
    return sorted(path.parent.glob(path.name + ".corrupt-*"))


def test_a_corrupt_cache_file_is_named_moved_aside_and_the_run_goes_on(serve, tmp_path, offline_env):
    srv = serve(lambda prompt, n, payload: "True")
    path = tmp_path / "judge.sqlite"
    path.write_bytes(GARBAGE)
    run = subprocess.run(
        [sys.executable, "-c", KILLED_RUN, srv.url, str(path), "5"],
        env=offline_env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0 and "done" in run.stdout, run.stderr[-2000:]
    assert "Traceback" not in run.stderr
    aside = _moved_aside(path)
    assert len(aside) == 1 and aside[0].read_bytes() == GARBAGE  # kept as it was
    line = next(x for x in run.stderr.splitlines() if "judge cache" in x)
    assert str(path) in line and str(aside[0]) in line and "new, empty cache" in line
    assert srv.requests == 5 and len(JudgeCache(path)) == 5  # the new cache holds the run's replies


def test_a_cache_torn_on_disk_is_moved_aside_when_first_read(tmp_path, capsys):
    path = tmp_path / "judge.sqlite"
    cache = JudgeCache(path)
    for i in range(2000):
        key = cache_key("openai", "m", {}, f"p{i}", 0)
        cache.put(key, backend="openai", model="m", template="t", round_index=0, reply="r" * 200, ok=True)
    cache._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    cache.close()
    with path.open("r+b") as f:  # pages overwritten in the middle: the header still reads as SQLite
        f.seek(4096 * 3)
        f.write(b"\x00\x13" * 20000)
    again = JudgeCache(path)
    assert again.get(cache_key("openai", "m", {}, "p1", 0)) is None  # a miss (asked again), not an exception
    again.put("k", backend="openai", model="m", template="t", round_index=0, reply="new", ok=True)
    assert again.get("k").reply == "new" and len(_moved_aside(path)) == 1
    assert "is not a readable SQLite database" in capsys.readouterr().err


@pytest.mark.parametrize("action", ["clear", "show"])
def test_judge_cache_command_always_works_on_a_corrupt_file(tmp_path, offline_env, action):
    path = tmp_path / "judge.sqlite"
    path.write_bytes(GARBAGE)
    run = subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", "judge-cache", action, "--path", str(path)],
        env=offline_env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and str(path) in run.stderr
    assert len(_moved_aside(path)) == 1 and _moved_aside(path)[0].read_bytes() == GARBAGE
    assert len(JudgeCache(path)) == 0
