"""``ambi data``: which benchmarks are available here (a local copy, the HF cache, a converted copy), and the exact
command that fetches each missing one. Reads only local state: never the network."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

# benchmark -> the Hub dataset repos its default loader reads (the authors' releases)
HUB_SOURCES: dict[str, tuple[str, ...]] = {
    "ambibench": ("BLNL/AmbiBench",),
    "illusionbench": ("MingZhangSJTU/IllusionBench",),
    "illusionvqa": ("csebuetnlp/illusionVQA-Comprehension", "csebuetnlp/illusionVQA-Soft-Localization"),
    "rcid": ("mao1207/RCID",),
}
# environment variables that name another Hub repo per benchmark (same order as HUB_SOURCES)
HUB_OVERRIDES: dict[str, tuple[str, ...]] = {
    "ambibench": ("AMBI_AMBIBENCH_HUB",),
    "illusionbench": ("AMBI_ILLUSIONBENCH_HUB",),
    "illusionvqa": ("AMBI_ILLUSIONVQA_COMPREHENSION_HUB", "AMBI_ILLUSIONVQA_SOFT_LOCALIZATION_HUB"),
    "rcid": ("AMBI_RCID_HUB",),
}
# benchmarks with no Hub release: a local copy only (how to get one)
LOCAL_ONLY: dict[str, str] = {
    "viabench": "only the challenge's validation split is public (GitHub: "
    "Houwenjin/DataCV-2026-Challenge-CVPR-Task-II-Competition, val/): point AMBI_VIABENCH_DIR at its folder",
}
GROUPS = {
    "viabench": "ambi_viabench_all, ambi_viabench_val",
    "ambibench": "ambibench_all",
    "illusionbench": "ambi_illusionbench_all",
    "illusionvqa": "ambi_illusionvqa_all",
    "rcid": "ambi_rcid_all; offline: ambi rcid-copy --out DIR, then AMBI_RCID_DIR=DIR",
}


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
            return [f"# AMBI_{self.benchmark.upper()}_DIR points at {self.local}, which does not exist"]
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
    repos = [os.environ.get(var) or repo for var, repo in zip(HUB_OVERRIDES[benchmark], HUB_SOURCES[benchmark])]
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


def report_lines() -> list[str]:
    """The lines ``ambi data`` prints."""
    lines = ["ambi_synth: available (generated offline on first use; AMBI_SYNTH_SEED / AMBI_SYNTH_N)"]
    for bench in HUB_SOURCES:
        st = status(bench)
        state = "available" if st.available else "missing"
        lines.append(f"{bench}: {state} (tasks: {GROUPS[bench]})")
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
        for cmd in st.fetch_commands():
            lines.append(f"  fetch: {cmd}")
        if not st.available and st.local is None:
            lines.append(f"  or point AMBI_{bench.upper()}_DIR at a local copy (the folder as downloaded, or its zip)")
    from ambi_plugin.config import data_dir

    for bench, how in LOCAL_ONLY.items():
        local = data_dir(bench)
        ok = local is not None and local.exists()
        lines.append(f"{bench}: {'available' if ok else 'missing'} (tasks: {GROUPS[bench]})")
        lines.append(f"  local copy: {local}" if local is not None else f"  {how}")
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


__all__ = ["HUB_SOURCES", "Status", "report_lines", "status"]
