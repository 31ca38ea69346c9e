"""``ambi eval``: run an lmms-eval evaluation and tell, by the exit code, whether it produced results.

lmms-eval exits 0 even when a run fails (missing weights, missing data), so this reads what the run
wrote: the exit code is 0 only when lmms-eval wrote a new results JSON in which every requested task
(``--tasks``; a group counts when each of its tasks does) has at least one metric value. The
arguments are lmms-eval's own, passed through unchanged (see :func:`ambi_plugin.lmms.cli_run.run_lmms_eval`).
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Sequence
from pathlib import Path

from ambi_plugin.lmms.cli_run import new_run_id, run_lmms_eval
from ambi_plugin.lmms.run_guards import EVAL_ENV

FAILED_RUN = 1
RESUME_CHUNK = 16  # requests per model call while the response cache is on: what a kill can cost at most
PREFLIGHT_FAILED = 2


def option_value(argv: Sequence[str], name: str) -> str | None:
    """The value of ``--name V`` or ``--name=V`` in ``argv`` (the last one wins), else None."""
    value = None
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value


def without_option(argv: Sequence[str], name: str) -> list[str]:
    """``argv`` without ``--name V`` / ``--name=V``."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == name:
            skip = True
        elif not arg.startswith(name + "="):
            out.append(arg)
    return out


def _has_values(metrics: dict) -> bool:
    """A metric value that is a number (counts of judge errors or unread answers alone are not a result)."""
    return any(
        "," in key
        and not key.startswith(("judge_errors", "unparsed"))
        and isinstance(val, (int, float))
        and not isinstance(val, bool)
        and not math.isnan(val)
        for key, val in (metrics or {}).items()
    )


def tasks_without_results(results: dict, requested: Sequence[str]) -> list[str]:
    """The requested task / group names (glob patterns allowed) the results JSON has no metric value for."""
    per_task = results.get("results") or {}
    groups = results.get("group_subtasks") or {}

    def ok(name: str, depth: int = 0) -> bool:
        if name in groups and groups[name] and depth < 8:
            return all(ok(sub, depth + 1) for sub in groups[name])
        return _has_values(per_task.get(name, {}))

    missing = []
    for name in requested:
        if any(c in name for c in "*?["):
            if not any(ok(n) for n in fnmatch.filter(set(per_task) | set(groups), name)):
                missing.append(name)
        elif not ok(name):
            missing.append(name)
    return missing


def default_output() -> Path:
    """Where ``ambi eval`` writes without ``--output_path``: one folder in the cache, each run in its own subfolder."""
    from ambi_plugin.paths import cache_dir

    return cache_dir() / "eval"


def default_response_cache(output: Path) -> Path:
    """Where ``ambi eval`` keeps lmms-eval's response cache: beside the runs' folders in ``output`` (each run has its
    own folder, and a rerun must find the answers of the run that crashed)."""
    return Path(output) / "response-cache"


def resume_id(argv: Sequence[str], output: Path) -> str:
    """lmms-eval's response-cache run id for this command: the same arguments and output folder, the same id."""
    import hashlib

    text = "\0".join([str(output.resolve()), *argv])
    return "ambi-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def requested_tasks(argv: Sequence[str]) -> list[str]:
    return [t.strip() for t in (option_value(argv, "--tasks") or "").split(",") if t.strip()]


def _expand_patterns(requested: list[str]) -> list[str]:
    """Glob patterns (lmms-eval accepts them) matched against our tasks and groups; other names as given."""
    from ambi_plugin.runtime.taskindex import index

    names = list(index())
    out: list[str] = []
    for name in requested:
        out.extend(fnmatch.filter(names, name) if any(c in name for c in "*?[") else [name])
    return out


def normalize_argv(argv: Sequence[str]) -> list[str]:
    """Our spellings of lmms-eval's options (``--model-args``) in lmms-eval's (``--model_args``)."""
    out = []
    for arg in argv:
        for ours, theirs in (("--model-args", "--model_args"), ("--output-path", "--output_path")):
            if arg == ours or arg.startswith(ours + "="):
                arg = theirs + arg[len(ours) :]
        out.append(arg)
    return out


def argument_problem(argv: Sequence[str]) -> str | None:
    """A malformed argument, as a sentence (lmms-eval would stop with a bare ValueError after it started)."""
    model_args = option_value(argv, "--model_args")
    if model_args:
        for item in (i.strip() for i in model_args.split(",")):
            if item and "=" not in item:
                return (
                    f"--model_args item {item!r} has no '=': every item is KEY=VALUE, separated by commas "
                    f"(e.g. predictions={item} for ambi_replay, pretrained={item} for a model folder)"
                )
    from ambi_plugin.lmms.tasknames import first_unknown, known_names

    # names that look like ours: ours, $AMBI_TASKS_PATH's and those under lmms-eval's own --include_path
    return first_unknown(requested_tasks(argv), known_names(argv))


def _signal_name(code: int) -> str:
    import signal

    try:
        return signal.Signals(code - 128).name
    except ValueError:
        return f"signal {code - 128}"


def run_eval(argv: Sequence[str], *, echo=print) -> int:
    """Run ``lmms-eval <argv>`` (output shown as it runs); return 0, 1 when the run failed, a task has no results or
    was skipped, 2 when the preflight found a problem (nothing was run), 128 + N when signal N stopped it (130 for
    Ctrl-C), with one line that says so and whether rerunning the same command resumes."""
    import signal

    notes: dict[str, str] = {}

    def stop(signum, _frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop) if _main_thread() else None
    try:
        return _run_eval(list(argv), echo, notes)
    except KeyboardInterrupt:
        echo(f"\nambi eval: interrupted (Ctrl-C){_after_stop(notes)}")  # below a progress bar's line
        return 130
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
        if code <= 128:
            raise
        echo(f"\nambi eval: stopped by {_signal_name(code)} (exit code {code}){_after_stop(notes)}")
        return code
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _after_stop(notes: dict[str, str]) -> str:
    if "started" not in notes:
        return "; nothing was run"
    return f"; {notes['resume']}" if "resume" in notes else ""


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _run_eval(argv: list[str], echo, notes: dict[str, str]) -> int:
    import os

    from ambi_plugin.lmms.preflight import SHOWN_ENV, SKIP_ENV, enabled, run_preflight, shown_key

    if argv[:1] == ["eval"]:  # `ambi eval eval --model ...` reads as lmms-eval's own subcommand
        argv = argv[1:]
    skipping = "--skip-missing" in argv
    extracting = "--extract-with-judge" in argv  # runtime/extraction.py: the child reads AMBI_EXTRACT_WITH_JUDGE
    argv = normalize_argv(a for a in argv if a not in ("--skip-missing", "--extract-with-judge"))
    problem = argument_problem(argv)
    if problem:
        echo(f"ambi eval: error: {problem}")
        return PREFLIGHT_FAILED
    given = option_value(argv, "--output_path")
    output = Path(given).expanduser() if given else default_output()
    requested = requested_tasks(argv)
    env = {**os.environ, EVAL_ENV: "1"}
    if skipping:
        env[SKIP_ENV] = "1"
    skipping = skipping or env.get(SKIP_ENV) == "1"
    if extracting:
        from ambi_plugin.runtime.extraction import ENV as EXTRACT_ENV

        env[EXTRACT_ENV] = "1"
    block = ""
    if enabled() and requested:  # before lmms-eval starts: a missing release or package costs seconds, not a model load
        check = run_preflight(_expand_patterns(requested))
        if check.problems:
            block = check.block(skipping=skipping)
            echo(block)
            if not skipping:
                return PREFLIGHT_FAILED
            env[SHOWN_ENV] = shown_key(check)  # the block is shown once: lmms-eval's own preflight stays quiet
    if option_value(argv, "--use_cache") is None and option_value(argv, "-c") is None:
        # answers already produced are never lost: rerunning the same command regenerates none of them
        cache = default_response_cache(output)
        argv += ["--use_cache", str(cache)]
        # lmms-eval reads back only runs that ended (a killed run's answers sit in runs/<run id>/, never merged):
        # the same command gets the same run id, so a rerun reopens the killed run's store and finds its answers
        env.setdefault("LMMS_CACHE_RUN_ID", resume_id(argv, output))
        # and the answers are stored as they come, a chunk at a time (lmms/patches.py: ResponseCache.execute)
        env.setdefault("AMBI_RESUME_CHUNK", str(RESUME_CHUNK))
        notes["resume"] = f"rerunning the same command resumes: the answers already produced are kept in {cache}"
    run_id = new_run_id()  # each run writes into its own folder: runs started at once never overwrite each other
    echo(f"ambi eval: run {run_id} writes below {output / run_id}")
    notes["started"] = "1"
    run = run_lmms_eval(
        without_option(argv, "--output_path"), output=output, env=env, capture=False, timeout=None, run_id=run_id
    )
    if run.results is None:
        if run.returncode != PREFLIGHT_FAILED:  # exit 2: our start-up check (or a usage error) said why in one line
            echo(
                f"ambi eval: the run failed: lmms-eval (exit code {run.returncode}) wrote no new results JSON "
                f"below {run.run_dir}; its log above says why"
            )
        return run.returncode or FAILED_RUN
    judge = ((run.results.get("ambi_plugin") or {}).get("judge")) or {}
    from ambi_plugin.lmms.results_meta import judge_failures

    for task, info in judge_failures(run.results).items():
        echo(
            f"ambi eval: judge errors: {info['errors']} of {info['items']} items, task {task}: "
            f"{judge.get('first_error') or 'unreadable replies'}"
        )
    missing = tasks_without_results(run.results, requested)
    if missing:
        why = "the preflight block above and the log say why" if block else "the log above says why"
        echo(f"ambi eval: no results for {', '.join(missing)} in {run.results_path}; {why}")
        return FAILED_RUN
    if run.returncode:
        echo(f"ambi eval: lmms-eval exited with code {run.returncode} (results: {run.results_path})")
        return run.returncode
    echo(f"ambi eval: results of {len(requested)} requested task(s) in {run.results_path}")
    return 0
