"""``ambi data``: which benchmarks are available here (a local copy, the HF cache, a converted copy), and the exact
command that fetches each missing one. Reads only local state: never the network."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ambi_plugin.benchmarks.registry import expected_layout
from ambi_plugin.core.jsonl import count_rows


class _PerBenchmark(Mapping):
    """A read-only view of one field of every registry entry (``{benchmark: value}``), read when asked, so a
    benchmark registered later (``$AMBI_BENCHMARKS``) is in it too."""

    def __init__(self, value: Callable, keep: Callable = bool) -> None:
        self._value, self._keep = value, keep

    def _items(self) -> dict:
        from ambi_plugin.benchmarks.registry import entries

        return {e.name: self._value(e) for e in entries().values() if e.listed and self._keep(self._value(e))}

    def __getitem__(self, name: str):
        return self._items()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())


# benchmark -> the Hub dataset repos its default loader reads (the authors' releases); the registry's entries say
HUB_SOURCES: Mapping[str, tuple[str, ...]] = _PerBenchmark(lambda e: tuple(h.repo for h in e.hub))
# environment variables that name another Hub repo per benchmark (same order as HUB_SOURCES)
HUB_OVERRIDES: Mapping[str, tuple[str, ...]] = _PerBenchmark(lambda e: tuple(h.env for h in e.hub), keep=any)
# benchmarks with no Hub release: a local copy only (how to get one)
LOCAL_ONLY: Mapping[str, str] = _PerBenchmark(
    lambda e: "" if e.hub else e.local_only or f"no Hub release: point {e.data_var} at a local copy"
)
# the layouts a local copy may have (AMBI_<BENCHMARK>_DIR), as the loaders read them
RELEASE_LAYOUTS: Mapping[str, str] = _PerBenchmark(lambda e: e.layouts)

# benchmark -> its task groups (and how to get it offline), for ``ambi data``
GROUPS: Mapping[str, str] = _PerBenchmark(lambda e: e.groups or e.name, keep=lambda _v: True)


def _data_var(benchmark: str) -> str:
    from ambi_plugin.benchmarks.registry import entries

    entry = entries().get(benchmark)
    return entry.data_var if entry is not None else f"AMBI_{benchmark.upper()}_DIR"


@dataclass
class Status:
    benchmark: str
    local: str | None = None  # the configured local copy, if any
    local_exists: bool = False
    cached: dict[str, bool] = field(default_factory=dict)  # Hub repo -> in the HF cache
    converted: list[str] = field(default_factory=list)  # converted copies in ambi-plugin's cache
    records: int | None = None  # records of the newest converted copy, from its load report
    skipped: int | None = None
    absent: dict[str, str] = field(default_factory=dict)  # records files the release has no rows for -> why
    built: str | None = None  # the built copy under the data root (ambi build; AMBI_DATA_ROOT)
    identity: dict | None = None  # rows read = items loaded + skipped + merged, of the newest converted copy

    @property
    def available(self) -> bool:
        local = self.local is not None and self.local_exists
        return local or self.built is not None or (bool(self.cached) and all(self.cached.values()))

    def fetch_commands(self) -> list[str]:
        if self.local is not None and not self.local_exists:
            return [f"# {_data_var(self.benchmark)} points at {self.local}, which does not exist"]
        from ambi_plugin.benchmarks.release import fetch_command

        return [fetch_command(repo) for repo, ok in self.cached.items() if not ok]


def _in_hf_cache(repo: str) -> bool:
    try:
        from huggingface_hub import snapshot_download

        snapshot_download(repo_id=repo, repo_type="dataset", local_files_only=True)
        return True
    except Exception:  # noqa: BLE001 - not cached (or huggingface_hub missing)
        return False


def status(benchmark: str) -> Status:
    from ambi_plugin.benchmarks.release import read_report
    from ambi_plugin.config import data_dir
    from ambi_plugin.paths import cache_dir

    st = Status(benchmark)
    local = data_dir(benchmark)
    if local is not None:
        st.local, st.local_exists = str(local), local.exists()
    from ambi_plugin.data.hub.built import built_copy

    built = built_copy(benchmark)
    st.built = str(built) if built is not None else None
    from ambi_plugin.benchmarks.registry import get

    repos = [(os.environ.get(h.env) if h.env else None) or h.repo for h in get(benchmark).hub]
    for repo in repos:
        st.cached[repo] = Path(repo).expanduser().exists() or _in_hf_cache(repo)
    root = cache_dir() / benchmark
    done = sorted((p for p in root.glob("*") if (p / ".complete").is_file()), key=lambda p: p.stat().st_mtime)
    st.converted = [str(p) for p in done]
    for p in reversed(done):
        report = read_report(p)
        if report is not None:
            st.records, st.skipped = report.get("records_total"), report.get("skipped_total")
            st.absent = dict(report.get("absent") or {})
            st.identity = report.get("identity")
            break
    return st


@dataclass
class Usability:
    usable: bool
    problem: str | None = None  # why not, with the layout expected
    rows: dict[str, int] = field(default_factory=dict)  # task -> rows its records hold
    no_records: dict[str, str] = field(default_factory=dict)  # task -> why the release has no rows for it


def probe(benchmark: str) -> Usability:
    """Resolve the benchmark's records as a run would (a release is converted once and cached) and count the rows
    per task. Local only: offline, a Hub copy that is not in the HF cache is not fetched."""
    from ambi_plugin.benchmarks.release import read_report
    from ambi_plugin.data.sources import SCHEME, absent_reason, source_root
    from ambi_plugin.runtime.taskindex import index

    saved = os.environ.get("HF_HUB_OFFLINE")
    os.environ["HF_HUB_OFFLINE"] = "1"  # ambi data never downloads
    try:
        root = source_root(f"{SCHEME}{benchmark}")
    except Exception as exc:  # noqa: BLE001 - every failure is the verdict
        return Usability(False, (str(exc).strip().splitlines() or [type(exc).__name__])[0])
    finally:
        if saved is None:
            os.environ.pop("HF_HUB_OFFLINE", None)
        else:
            os.environ["HF_HUB_OFFLINE"] = saved
    report = read_report(root) or {}
    out = Usability(True)
    for info in index().values():
        cfg = info.config
        if info.kind != "task" or str(cfg.get("dataset_path", "")) != f"{SCHEME}{benchmark}":
            continue
        src = root / f"{cfg.get('dataset_name', '')}.jsonl"
        n = count_rows(src) if src.is_file() else 0
        if n:
            out.rows[info.name] = n
        else:
            out.no_records[info.name] = absent_reason(report, str(cfg.get("dataset_name"))) if report else "no records"
    if not out.rows:
        out.usable = False
        out.problem = f"{root} holds no records for any task of {benchmark}; expected {expected_layout(benchmark)}"
    return out


def _usability_lines(benchmark: str, present: bool) -> tuple[bool, list[str]]:
    """The verdict line's state and the detail lines of one benchmark."""
    if not present:
        return False, []
    use = probe(benchmark)
    if not use.usable:
        return False, [f"  why: {use.problem}"]
    total = sum(use.rows.values())
    lines = [f"  records: {total} in {len(use.rows)} task(s): " + ", ".join(f"{t} {n}" for t, n in use.rows.items())]
    return True, lines  # tasks without records: the "no records" lines of the load report


def report_lines(benchmarks: list[str] | None = None, verdicts: dict[str, bool] | None = None) -> list[str]:
    """The lines ``ambi data`` prints; ``verdicts`` (when given) gets each benchmark's usability."""
    verdicts = {} if verdicts is None else verdicts
    wanted = benchmarks or [*HUB_SOURCES, *LOCAL_ONLY]
    lines = []
    if benchmarks is None:
        lines.append("ambi_synth: available (generated offline on first use; AMBI_SYNTH_SEED / AMBI_SYNTH_N)")
    for bench in HUB_SOURCES:
        if bench not in wanted:
            continue
        st = status(bench)
        usable, detail = _usability_lines(bench, st.available)
        verdicts[bench] = usable
        state = "available" if usable else ("not usable" if st.available else "missing")
        lines.append(f"{bench}: {state} (tasks: {GROUPS[bench]})")
        lines.extend(detail)
        if st.local is not None:
            lines.append(f"  local copy: {st.local}" + ("" if st.local_exists else " (does not exist)"))
        if st.built is not None:
            lines.append(f"  built copy (data root): {st.built}")
        for repo, ok in st.cached.items():
            lines.append(f"  {repo}: {'in the HF cache' if ok else 'not in the HF cache'}")
        if st.records is not None:
            lines.append(f"  converted: {st.records} records, {st.skipped} rows skipped (see load_report.json)")
        lines += _identity_lines(st)
        for records, why in st.absent.items():
            lines.append(f"  no records: {records} (its tasks report NaN): {why}")
        for cmd in [] if usable else st.fetch_commands():
            lines.append(f"  fetch: {cmd}")
        if not st.available and st.local is None:
            lines.append(f"  or point {_data_var(bench)} at a local copy (the folder as downloaded, or its zip)")
    from ambi_plugin.config import data_dir

    for bench, how in LOCAL_ONLY.items():
        if bench not in wanted:
            continue
        local = data_dir(bench)
        present = local is not None and local.exists()
        usable, detail = _usability_lines(bench, present)
        verdicts[bench] = usable
        state = "available" if usable else ("not usable" if present else "missing")
        lines.append(f"{bench}: {state} (tasks: {GROUPS[bench]})")
        lines.append(f"  local copy: {local}" if local is not None else f"  {how}")
        lines.extend(detail)
        lines += _identity_lines(status_of_local(bench))
    return lines


def _identity_lines(st: Status) -> list[str]:
    """The release report's identity (rows read = items loaded + skipped by reason + merged duplicates)."""
    from ambi_plugin.benchmarks.release import identity_line

    return [f"  release: {identity_line(st.identity)}"] if st.identity else []


def status_of_local(benchmark: str) -> Status:
    """A local-only benchmark's newest converted copy (its release report), for ``ambi data``."""
    from ambi_plugin.benchmarks.release import read_report
    from ambi_plugin.paths import cache_dir

    st = Status(benchmark)
    done = [p for p in (cache_dir() / benchmark).glob("*") if (p / ".complete").is_file()]
    for p in sorted(done, key=lambda p: p.stat().st_mtime, reverse=True):
        report = read_report(p)
        if report is not None:
            st.records, st.skipped = report.get("records_total"), report.get("skipped_total")
            st.identity = report.get("identity")
            break
    return st


__all__ = ["HUB_SOURCES", "Status", "Usability", "expected_layout", "probe", "report_lines", "status"]
