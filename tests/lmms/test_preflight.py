"""Unit tests of the preflight (lmms/preflight.py): which tasks it checks, what a problem says and how it is fixed,
the block a user reads (once, and offering --skip-missing only when a task could run), and a release without rows
for a task (run on zero rows, not a problem). The end-to-end runs are in tests/e2e/test_first_run.py."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.data import no_records
from ambi_plugin.lmms import preflight as P
from ambi_plugin.runtime.taskindex import index

SYNTH = "ambi_synth_geometric_yn"
HINT = "To run every other task now: ambi eval --skip-missing"


@pytest.fixture
def clean_run_state():
    """The per-process records of tasks run on zero rows, as they were before the test."""
    saved = dict(no_records.NO_RECORDS), dict(no_records.SKIPPED)
    yield
    for live, old in zip((no_records.NO_RECORDS, no_records.SKIPPED), saved):
        live.clear()
        live.update(old)


@pytest.fixture
def no_ambibench(tmp_path, monkeypatch):
    """AmbiBench configured as a folder that does not exist: every AmbiBench task has one problem."""
    monkeypatch.setenv("AMBI_AMBIBENCH_DIR", str(tmp_path / "not-there"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("AMBI_DATA_ROOT", str(tmp_path / "data-root"))


def _problem(what="the release is missing", fix="do this", tasks=()):
    return P.Problem(what, fix, list(tasks))


def test_switches_read_their_variables(monkeypatch):
    for value, on in (("1", True), ("true", True), ("YES", True), ("on", True), ("0", False), ("no", False)):
        monkeypatch.setenv(P.PREFLIGHT_ENV, value)
        monkeypatch.setenv(P.SKIP_ENV, value)
        assert P.enabled() is on and P.skip_missing() is on
    monkeypatch.delenv(P.PREFLIGHT_ENV)
    monkeypatch.delenv(P.SKIP_ENV)
    assert P.enabled() is True and P.skip_missing() is False  # the check is on, skipping off, by default


def test_our_tasks_expands_our_groups_in_order_once_and_drops_names_not_ours():
    idx = index()
    members = idx["ambi_synth_all"].members
    got = P.our_tasks(["theirs", members[0], "ambi_synth_all", 7])
    assert got[0] == members[0] and got.count(members[0]) == 1
    assert "theirs" not in got and "ambi_synth_all" not in got
    assert set(got) == {t for t in got if idx[t].kind == "task"}  # groups expanded to tasks, nested ones too
    assert len(got) >= len(members)


def test_failed_tasks_name_the_first_problem_of_each_task():
    result = P.Preflight(
        checked=["a", "b", "c"], problems=[_problem("first", tasks=["a", "b"]), _problem("second", tasks=["b"])]
    )
    assert result.failed_tasks == {"a": "first", "b": "first"}
    assert result.runnable == 1


def test_block_lists_every_problem_with_its_fix_and_shortens_long_task_lists():
    tasks = [f"t{i}" for i in range(6)]
    result = P.Preflight(checked=[*tasks, "ok"], problems=[_problem("no release", "hf download X", tasks)])
    block = result.block()
    lines = block.splitlines()
    assert lines[0] == "ambi-plugin preflight: 1 problem(s); 6 of 7 task(s) of ours cannot run; nothing was run:"
    assert lines[1] == "  - t0, t1, t2, t3 (+2 more): no release"
    assert lines[2] == "    fix: hf download X"
    assert HINT in block  # the other task could run
    skipping = result.block(skipping=True)
    assert "will run on zero rows and report NaN with the reason:" in skipping.splitlines()[0]
    assert HINT not in skipping


def test_skip_missing_is_not_offered_when_no_task_could_run():
    all_failed = P.Preflight(checked=["a", "b"], problems=[_problem(tasks=["a", "b"])])
    assert all_failed.runnable == 0 and HINT not in all_failed.block()
    with_theirs = P.Preflight(checked=["a", "b"], others=["theirs"], problems=[_problem(tasks=["a", "b"])])
    assert with_theirs.runnable == 1 and HINT in with_theirs.block()  # lmms-eval's own task still runs


def test_the_problem_is_one_sentence_without_a_wrapped_library_error():
    exc = RuntimeError(
        "ambibench: cannot read the release (OSError: [Errno 2] No such file). Set AMBI_AMBIBENCH_DIR.\nmore"
    )
    assert P._what(exc) == "ambibench: cannot read the release."
    assert P._first_line(ValueError("")) == "ValueError"


@pytest.mark.parametrize(
    ("path", "message", "expected"),
    [
        ("ambi://synth", "No module named 'pyllusion'", "pip install pyllusion"),
        ("ambi://synth", "suite folder is broken", "ambi synth --out DIR, then export AMBI_SYNTH_DIR=DIR"),
        ("ambi://local", "missing", "export AMBI_DATA_DIR="),
        ("ambi://ambibench", "missing", "hf download BLNL/AmbiBench --repo-type dataset"),
        ("ambi://illusionvqa", "missing", "csebuetnlp/illusionVQA-Comprehension --repo-type dataset and hf download"),
        ("ambi://viabench", "missing", "ambi viabench import --json val/val.json"),
        ("ambi://newbench", "missing", "export AMBI_NEWBENCH_DIR=<local copy>; see: ambi data"),
    ],
)
def test_each_source_gets_the_command_that_fixes_it(path, message, expected):
    assert expected in P._fix_for_source(path, message)


def test_a_missing_release_is_one_problem_for_all_its_tasks_and_other_tasks_pass(no_ambibench):
    result = P.run_preflight(["ambibench_all", SYNTH, "theirs"])
    ambibench = P.our_tasks(["ambibench_all"])
    assert result.checked == [*ambibench, SYNTH] and result.others == ["theirs"]
    assert len(result.problems) == 1
    (problem,) = result.problems
    assert problem.tasks == ambibench and SYNTH not in result.failed_tasks
    assert "not-there" in problem.what and "AMBI_AMBIBENCH_DIR" in problem.fix
    assert HINT in result.block()


def test_a_release_without_rows_for_a_task_runs_it_on_zero_rows_and_is_no_problem(
    tmp_path, monkeypatch, clean_run_state
):
    """A converted release that says it has no rows for a task (lmms-eval's IllusionBench copy has no golden
    descriptions) is not a preflight problem: the task runs on zero rows and reports NaN with the reason."""
    copy = tmp_path / "illusionbench"
    copy.mkdir()
    (copy / "illusionbench_tf.jsonl").write_text("")
    report = {"benchmark": "illusionbench", "absent": {"illusionbench_description": "no golden descriptions here"}}
    (copy / "load_report.json").write_text(json.dumps(report))
    monkeypatch.setenv("AMBI_ILLUSIONBENCH_DIR", str(copy))
    result = P.run_preflight(["ambi_illusionbench_description"])
    assert result.checked == ["ambi_illusionbench_description"]
    assert result.problems == [], result.block()


def test_a_judge_that_cannot_run_is_a_problem_of_the_judged_tasks_only(monkeypatch, tmp_path):
    monkeypatch.setenv("AMBI_JUDGE_BACKEND", "hf")
    monkeypatch.setenv("AMBI_JUDGE_MODEL", str(tmp_path / "no-judge-model"))
    result = P.run_preflight([SYNTH, "ambi_synth_object_open"])
    assert list(result.failed_tasks) == ["ambi_synth_object_open"]  # the yes/no task needs no judge
    assert "hf judge's model folder" in result.problems[0].what and "AMBI_JUDGE_MODEL" in result.problems[0].fix


def test_check_or_exit_stops_with_exit_code_2_and_prints_the_block_once(no_ambibench, capsys, clean_run_state):
    with pytest.raises(SystemExit) as stop:
        P.check_or_exit(["ambibench_bistable_choice"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("ambi-plugin preflight:") == 1 and HINT not in err  # the only task requested cannot run


def test_under_skip_missing_failed_tasks_run_on_zero_rows_and_a_block_already_shown_is_not_repeated(
    no_ambibench, monkeypatch, capsys, clean_run_state
):
    monkeypatch.setenv(P.SKIP_ENV, "1")
    result = P.check_or_exit(["ambibench_bistable_choice", SYNTH])
    assert list(result.failed_tasks) == ["ambibench_bistable_choice"]
    assert "ambibench_bistable_choice" in no_records.SKIPPED  # it runs on zero rows, with the reason
    assert capsys.readouterr().err.count("ambi-plugin preflight:") == 1
    monkeypatch.setenv(P.SHOWN_ENV, P.shown_key(result))  # ambi eval has shown this block before lmms-eval started
    P.check_or_exit(["ambibench_bistable_choice", SYNTH])
    assert "ambi-plugin preflight:" not in capsys.readouterr().err
    monkeypatch.setenv(P.SHOWN_ENV, "some_other_task")  # another block than the one shown: shown
    P.check_or_exit(["ambibench_bistable_choice", SYNTH])
    assert capsys.readouterr().err.count("ambi-plugin preflight:") == 1


def test_preflight_off_checks_nothing(monkeypatch, no_ambibench):
    monkeypatch.setenv(P.PREFLIGHT_ENV, "0")
    assert P.check_or_exit(["ambibench_bistable_choice"]) is None
