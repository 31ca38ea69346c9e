"""Mutation testing (mutmut 3) of the modules where a silent bug changes a published number or leaks a secret.

    python bench/mutation.py [WORD ...] [--jobs 2] [--out mutation-scores.md] [--keep] [--list]

Each module of :data:`MODULES` is mutated on its own, against its own targeted tests (never the whole suite): in a
fresh work folder that holds a copy of the package and the tests and a ``setup.cfg`` with the ``[mutmut]`` section
written for that module (the repository's pyproject.toml is never touched), ``mutmut run`` makes every mutant of the
module and runs, for each one, the tests of the list that execute the mutated function. WORDs select the modules
whose path contains one of them (``core/metrics``, ``redact``, ``parsing``).

Per module it prints killed / survived / timeout / no-tests / equivalent, the minutes it took and the score
(killed + timeout) / (mutants - equivalent): a mutant that makes the tests hang is caught (a run would notice), one
that no test executes ("no tests") is not. The table goes to stdout and to ``--out``; each surviving mutant is
listed there with its diff. The exit status is 1 when a module scores under its threshold (90%) or could not be
measured (its test files are missing, mutmut failed), 0 otherwise.

Equivalent mutants (a change no test can see because the behaviour is the same) are listed one by one in
``bench/mutation_equivalents.json``: the module, the mutant's id, the line as the mutant writes it, and why it is
equivalent.
An entry counts only while that mutant still survives and its diff still holds that line; one that no longer does
is reported as stale, never silently kept.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENTS = ROOT / "bench" / "mutation_equivalents.json"
THRESHOLD = 0.90


@dataclass(frozen=True)
class Target:
    mutate: tuple[str, ...]  # glob patterns (mutmut's only_mutate) of the files mutated, relative to the repository
    tests: tuple[str, ...]  # the module's own targeted test files
    threshold: float = THRESHOLD


# module (as the README and docs name it) -> what is mutated and the tests run against it. The fuzz tests
# (tests/core/test_fuzz_*.py) stay out: random inputs would make a kill depend on the draw, and they are slow.
MODULES: dict[str, Target] = {
    "core/parsing/": Target(
        ("ambi_plugin/core/parsing/*.py",),
        (
            "tests/core/test_parsing_units.py",
            "tests/core/test_parsing_rules.py",
            "tests/core/test_parsing_real_rules.py",
            "tests/core/test_parsing_statements.py",
            "tests/core/test_parsing.py",
            "tests/core/test_answer_corpus.py",
            "tests/core/test_long_replies.py",
            "tests/core/test_colors.py",
        ),
    ),  # fmt: skip
    "core/restate.py": Target(
        ("ambi_plugin/core/restate.py",),
        (
            "tests/core/test_restate.py",
            "tests/core/test_parsing_rules.py",
            "tests/core/test_parsing_real_rules.py",
            "tests/core/test_parsing_statements.py",
            "tests/core/test_answer_corpus.py",
        ),
    ),
    "core/statements.py": Target(
        ("ambi_plugin/core/statements.py",),
        (
            "tests/core/test_statements.py",
            "tests/core/test_statements_edges.py",
            "tests/core/test_parsing_statements.py",
            "tests/core/test_corpus_true_false.py",
        ),
    ),
    "core/metrics.py": Target(("ambi_plugin/core/metrics.py",), ("tests/core/test_metrics.py",)),
    "core/scoring.py": Target(
        ("ambi_plugin/core/scoring.py",),
        ("tests/core/test_score_item.py", "tests/core/test_scoring.py", "tests/core/test_judging.py"),
    ),
    "reports/stats.py": Target(
        ("ambi_plugin/reports/stats.py",),
        ("tests/reports/test_stats.py", "tests/reports/test_intervals_and_paired_tests.py"),
    ),
    "redact.py": Target(("ambi_plugin/redact.py",), ("tests/test_redact.py",)),
    "benchmarks/archives.py": Target(("ambi_plugin/benchmarks/archives.py",), ("tests/benchmarks/test_archives.py",)),
    "lmms/preflight.py": Target(("ambi_plugin/lmms/preflight.py",), ("tests/lmms/test_preflight.py",)),
    "lmms/cli_run.py": Target(
        ("ambi_plugin/lmms/cli_run.py",), ("tests/lmms/test_cli_run.py", "tests/lmms/test_run_guards.py")
    ),
    "analysis/scores.py": Target(("ambi_plugin/analysis/scores.py",), ("tests/analysis/test_scores.py",)),
    "analysis/patching.py": Target(
        ("ambi_plugin/analysis/patching.py",),
        ("tests/analysis/test_patching.py", "tests/analysis/test_patch_checks.py"),
    ),
    # the modules patching.py was split into: the model side (re-runs, patched runs, AtP, GradDrop), the statistics,
    # the table's data
    "analysis/patch_model.py": Target(
        ("ambi_plugin/analysis/patch_model.py",), ("tests/analysis/test_patch_checks.py",)
    ),
    "analysis/patch_stats.py": Target(
        ("ambi_plugin/analysis/patch_stats.py",), ("tests/analysis/test_patch_stats.py",)
    ),
    "analysis/patch_summary.py": Target(
        ("ambi_plugin/analysis/patch_summary.py",), ("tests/analysis/test_patch_summary.py",)
    ),
}
# what the work folder holds besides the package and the tests (task YAMLs: some tests index the tasks)
COPIED = ("ambi_plugin", "tests", "task_yamls", "pyproject.toml")
DETECTED = ("killed", "timeout")


@dataclass
class Result:
    module: str
    statuses: dict[str, str] = field(default_factory=dict)  # mutant id -> mutmut's status
    equivalent: dict[str, str] = field(default_factory=dict)  # mutant id -> why
    stale: list[str] = field(default_factory=list)  # equivalents-file entries that no longer hold
    diffs: dict[str, str] = field(default_factory=dict)  # surviving mutant id -> its diff
    minutes: float = 0.0
    error: str | None = None
    threshold: float = THRESHOLD

    def count(self, *statuses: str) -> int:
        return sum(1 for k, s in self.statuses.items() if s in statuses and k not in self.equivalent)

    @property
    def total(self) -> int:
        return len(self.statuses)

    @property
    def score(self) -> float | None:
        counted = self.total - len(self.equivalent)
        return self.count(*DETECTED) / counted if counted and self.error is None else None

    @property
    def passed(self) -> bool:
        return self.score is not None and self.score >= self.threshold


def _setup_cfg(target: Target) -> str:
    def lines(values) -> str:
        return "".join(f"\n    {v}" for v in values)

    return (
        "[mutmut]\n"
        "source_paths = ambi_plugin\n"
        # each mutant's tests in a process forked from one that has only collected them: forked from mutmut's own
        # process (the default) it would inherit the caches (functools.lru_cache) the clean run filled, and a
        # mutant in a cached function would go unseen
        "process_isolation = forkserver\n"
        f"only_mutate ={lines(target.mutate)}\n"
        f"pytest_add_cli_args_test_selection ={lines(target.tests)}\n"
        f"pytest_add_cli_args ={lines(['-p', 'no:cacheprovider', '-p', 'no:xdist'])}\n"
        f"also_copy ={lines(c for c in COPIED if c not in ('ambi_plugin', 'tests', 'pyproject.toml'))}\n"
    )


# appended to the work folder's tests/conftest.py (the copy; the repository's is never touched): before each test, the
# functools caches of the mutated modules are emptied. mutmut runs a mutant only against the tests that called its
# function in a first run of all the tests in one process; a function behind a cache (``f = lru_cache()(_f)``) is
# called only by the test that first asks for each value, so without this a mutant in it would meet one test, not all
# the tests that read its result.
_FRESH_CACHES = """

# ---- bench/mutation.py: every test of a mutation run starts with empty caches in the mutated modules


@pytest.fixture(autouse=True)
def _mutation_fresh_caches():
    for _name in {modules!r}:
        for _value in list(getattr(sys.modules.get(_name), "__dict__", {{}}).values()):
            if callable(getattr(_value, "cache_clear", None)):
                _value.cache_clear()
"""


def _mutated_modules(target: Target) -> list[str]:
    """The dotted names of the files ``target`` mutates."""
    paths = sorted({p for pattern in target.mutate for p in ROOT.glob(pattern)})
    return [".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for p in paths]


def _workdir(base: Path, module: str, target: Target) -> Path:
    work = Path(tempfile.mkdtemp(prefix="mutation-" + re.sub(r"\W+", "_", module).strip("_") + "-", dir=base))
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, work / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif src.is_file():
            shutil.copy2(src, work / name)
    with (work / "tests" / "conftest.py").open("a", encoding="utf-8") as conftest:  # it imports sys and pytest
        conftest.write(_FRESH_CACHES.format(modules=_mutated_modules(target)))
    (work / "setup.cfg").write_text(_setup_cfg(target))
    # made now: PYTHONPATH names it (see _env), and a folder missing when Python starts stays unused by its imports
    (work / "mutants").mkdir()
    shared = ROOT.parent / "shared"  # tests/conftest.py looks for ../shared beside the checkout
    if shared.is_dir():
        (work / "shared").symlink_to(shared)
    return work


def _env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYTHONPATH=str(work / "mutants"),  # subprocesses the tests start import the mutated copy too
        AMBI_CACHE=str(work / "cache"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
    )
    return env


# the most memory (bytes of data: heap and private mappings) each process of a mutation run may take. A mutant can
# loop appending for ever (_roman with ``n = value``: 18 GB before the kernel's OOM killer stopped it, on a shared
# machine of 24 GB); past the limit it raises MemoryError, which its tests see (a parser returns parser_error).
MEMORY_LIMIT = 6 * 2**30


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_LIMIT, MEMORY_LIMIT))


def _mutmut(args: list[str], work: Path, **kw) -> subprocess.CompletedProcess:
    exe = shutil.which("mutmut", path=str(Path(sys.executable).parent)) or shutil.which("mutmut")
    if exe is None:
        raise SystemExit("mutmut is not installed: pip install 'mutmut>=3.3' (it is in the dev extra)")
    limit = _limit_memory if os.name == "posix" else None  # inherited by mutmut's forked mutant processes
    return subprocess.run([exe, *args], cwd=work, env=_env(work), capture_output=True, text=True,
                          preexec_fn=limit, **kw)  # fmt: skip


_RESULT_LINE = re.compile(r"^\s+(\S+): (.+)$")


def _statuses(work: Path) -> dict[str, str]:
    proc = _mutmut(["results", "--all", "true"], work)
    return {m.group(1): m.group(2).strip() for m in map(_RESULT_LINE.match, proc.stdout.splitlines()) if m}


# the diffs of many mutants from one process (``mutmut show`` starts one per mutant: minutes for hundreds)
_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
out = {}
for name in json.load(sys.stdin):
    try:
        out[name] = get_diff_for_mutant(name)
    except Exception as exc:  # noqa: BLE001
        out[name] = f"(no diff: {exc})"
json.dump(out, sys.stdout)
"""


def _diffs(work: Path, mutants: list[str]) -> dict[str, str]:
    """{mutant id: its diff}; through mutmut's own diff function, else one ``mutmut show`` per mutant."""
    if not mutants:
        return {}
    proc = subprocess.run([sys.executable, "-c", _DIFFS], cwd=work, env=_env(work), input=json.dumps(mutants),
                          capture_output=True, text=True)  # fmt: skip
    try:
        raw = json.loads(proc.stdout)
    except json.JSONDecodeError:  # another mutmut version: its CLI
        raw = {m: "\n".join(_mutmut(["show", m], work).stdout.splitlines()[1:]) for m in mutants}
    return {m: "\n".join(line for line in raw.get(m, "").splitlines() if line.strip()) for m in mutants}


def _mutated_lines(diff: str) -> set[str]:
    return {ln[1:].strip() for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")}


def load_equivalents(path: Path = EQUIVALENTS) -> dict[str, list[dict]]:
    """module -> its reviewed equivalent mutants ({id, mutated, why}); every entry needs all three."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SystemExit(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise SystemExit(f"{path}: expected a list of objects with module, id, mutated and why")
    out: dict[str, list[dict]] = {}
    for i, entry in enumerate(data):
        missing = [k for k in ("module", "id", "mutated", "why") if not str(entry.get(k, "")).strip()]
        if missing:
            raise SystemExit(f"{path}: entry {i + 1} lacks {', '.join(missing)}")
        if entry["module"] not in MODULES:
            raise SystemExit(f"{path}: entry {i + 1}: unknown module {entry['module']!r} (one of {', '.join(MODULES)})")
        out.setdefault(entry["module"], []).append(entry)
    return out


def measure(module: str, target: Target, *, jobs: int, base: Path, keep: bool, equivalents: list[dict]) -> Result:
    result = Result(module, threshold=target.threshold)
    missing = [t for t in target.tests if not (ROOT / t).is_file()]
    if missing:
        result.error = f"test file(s) missing: {', '.join(missing)}"
        return result
    work = _workdir(base, module, target)
    start = time.monotonic()
    try:
        proc = _mutmut(["run", "--max-children", str(jobs)], work)
        (work / "mutmut-run.log").write_text(proc.stdout + proc.stderr)
        result.statuses = _statuses(work)
        if proc.returncode != 0 or not result.statuses:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            result.error = f"mutmut run exited {proc.returncode} ({work}/mutmut-run.log):\n{tail}"
            keep = True
            return result
        undetected = [mid for mid, status in result.statuses.items() if status not in DETECTED]
        diffs = _diffs(work, undetected)
        for entry in equivalents:
            mid = entry["id"]
            status = result.statuses.get(mid)
            if status != "survived":
                result.stale.append(f"{mid}: {status or 'no such mutant'} (listed as equivalent)")
            elif entry["mutated"].strip() not in _mutated_lines(diffs[mid]):
                result.stale.append(f"{mid}: its diff no longer writes {entry['mutated']!r}:\n{diffs[mid]}")
            else:
                result.equivalent[mid] = entry["why"]
        result.diffs = {mid: diffs[mid] for mid in undetected if mid not in result.equivalent}
    finally:
        result.minutes = (time.monotonic() - start) / 60
        if keep:
            print(f"  work folder kept: {work} (mutmut browse / mutmut show <id> there)", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return result


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mutmut")
    except PackageNotFoundError:
        return "not installed"


HEADER = (
    "| module | mutants | killed | timeout | survived | no tests | other | equivalent | score | threshold | minutes |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
)


def table_row(r: Result) -> str:
    if r.error is not None:
        return f"| `{r.module}` | not measured: {r.error.splitlines()[0]} ||||||||| {r.minutes:.1f} |"
    other = r.total - len(r.equivalent) - r.count("killed", "timeout", "survived", "no tests")
    score = f"{100 * r.score:.1f}%" if r.score is not None else "n/a"
    return (
        f"| `{r.module}` | {r.total} | {r.count('killed')} | {r.count('timeout')} | {r.count('survived')} | "
        f"{r.count('no tests')} | {other} | {len(r.equivalent)} | {score} | {100 * r.threshold:.0f}% | "
        f"{r.minutes:.1f} |"
    )


def report(results: list[Result], jobs: int) -> str:
    lines = [
        f"# Mutation scores ({date.today().isoformat()}, mutmut {_version()}, --max-children {jobs})",
        "",
        "score = (killed + timeout) / (mutants - equivalent); each module against its own tests (bench/mutation.py).",
        "",
        *HEADER,
        *(table_row(r) for r in results),
    ]
    for r in results:
        if r.error:
            lines += ["", f"## {r.module}: not measured", "", "```", r.error, "```"]
        if r.stale:
            lines += ["", f"## {r.module}: stale entries in bench/mutation_equivalents.json", ""]
            lines += [f"- {s}" for s in r.stale]
        if r.diffs:
            lines += ["", f"## {r.module}: mutants not caught ({len(r.diffs)})", ""]
            for mid, diff in r.diffs.items():
                lines += [f"`{mid}` ({r.statuses[mid]})", "", "```diff", diff, "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def select(words: list[str]) -> list[str]:
    chosen = [m for m in MODULES if not words or any(w.strip("/") in m for w in words)]
    if not chosen:
        raise SystemExit(f"no module matches {' '.join(words)}; the modules: {', '.join(MODULES)}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("words", nargs="*", help="select the modules whose path contains one of these words")
    ap.add_argument("--jobs", type=int, default=2, help="mutants tested at once (mutmut --max-children); default 2")
    ap.add_argument("--out", type=Path, default=ROOT / "mutation-scores.md", help="the Markdown table's file")
    ap.add_argument("--workdir", type=Path, default=None, help="where the work folders go (default: the temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep each work folder (to browse the mutants)")
    ap.add_argument("--list", action="store_true", help="print the modules and their tests, run nothing")
    args = ap.parse_args(argv)
    modules = select(args.words)
    if args.list:
        for m in modules:
            print(f"{m}: {' '.join(MODULES[m].mutate)} <- {' '.join(MODULES[m].tests)}")
        return 0
    equivalents = load_equivalents()
    base = args.workdir or Path(tempfile.gettempdir())
    base.mkdir(parents=True, exist_ok=True)
    print(HEADER[0], HEADER[1], sep="\n", flush=True)
    results = []
    for module in modules:
        r = measure(module, MODULES[module], jobs=args.jobs, base=base, keep=args.keep,
                    equivalents=equivalents.get(module, []))  # fmt: skip
        results.append(r)
        print(table_row(r), flush=True)
        args.out.write_text(report(results, args.jobs), encoding="utf-8")  # after each module: a partial run counts
    failed = [r for r in results if not r.passed]
    for r in failed:
        why = r.error.splitlines()[0] if r.error else f"score {100 * (r.score or 0):.1f}% < {100 * r.threshold:.0f}%"
        print(f"{r.module}: {why}", file=sys.stderr)
    print(f"table and surviving mutants: {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
