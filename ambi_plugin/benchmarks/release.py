"""Reading a benchmark's release as its authors (or the Hub) publish it: where it comes from, and what was read.

* :class:`LoadReport` counts the rows read, the items loaded, the records written per task, every row skipped with
  its id and reason, and every duplicate row merged into an earlier one. It always adds up: ``rows read = items
  loaded + rows skipped (by reason) + duplicates merged`` (:meth:`LoadReport.identity`; a row is one line, entry or
  question of the release, as each loader's docstring says; an item may give several records: a 4-shot twin, a
  prompt variant). A bad row is reported once, skipped and counted; with strict mode (``$AMBI_STRICT=1`` or ``strict: true``
  in the ambi config) the first bad row stops the load instead. Rows kept but worth a look (U+FFFD text, a breakdown
  value the release does not give) are *flagged* with their ids; records files the release gives no rows for are
  listed as *absent* with the reason (their tasks run on zero rows and report NaN). The report is printed when a
  benchmark is first materialised and saved as ``load_report.json`` next to the records, where the results JSON
  picks it up.
* :func:`hub_snapshot` fetches a Hub dataset repo's files through ``huggingface_hub`` (the HF cache, and
  ``HF_HUB_OFFLINE=1``, honoured); :func:`unpack_zip` turns a downloaded zip into a folder once.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambi_plugin.config import strict_mode

REPORT_FILE = "load_report.json"
UNASSIGNED = "(no task)"


class BadRowError(ValueError):
    """A release row that cannot become a record (raised only in strict mode; otherwise the row is skipped)."""


@dataclass
class LoadReport:
    """What one load of a release read, wrote and skipped."""

    benchmark: str
    source: str
    strict: bool = False
    rows_read: int = 0
    items_loaded: int = 0  # rows of the release that became an item (or a few-shot example)
    records: Counter = field(default_factory=Counter)
    skipped: list[dict[str, Any]] = field(default_factory=list)
    merged: list[dict[str, Any]] = field(default_factory=list)  # duplicate rows merged into an earlier row
    notes: list[str] = field(default_factory=list)
    flagged: dict[str, list[str]] = field(default_factory=dict)  # what was noticed -> ids of the rows kept
    absent: dict[str, str] = field(default_factory=dict)  # records name -> why the release has no rows for it
    results_notes: list[str] = field(default_factory=list)  # said next to every result of the benchmark

    def read(self, n: int = 1) -> None:
        self.rows_read += n

    def load(self, n: int = 1) -> None:
        """``n`` rows read became items (each row read is loaded, skipped or merged exactly once)."""
        self.items_loaded += n

    def wrote(self, task: str, n: int = 1) -> None:
        self.records[task] += n

    def merge(self, rid: Any, reason: str, *, task: str | None = None) -> None:
        """A row identical to an earlier one (``reason`` names it): kept once, counted here."""
        self.merged.append({"id": str(rid), "reason": str(reason), "task": task or UNASSIGNED})

    def identity(self) -> dict[str, Any]:
        """``rows read = items loaded + skipped (by reason) + merged duplicates``, with ``adds_up``."""
        total = self.items_loaded + len(self.skipped) + len(self.merged)
        return {
            "rows_read": self.rows_read,
            "items_loaded": self.items_loaded,
            "skipped": len(self.skipped),
            "skipped_by_reason": self.skipped_by_reason(),
            "merged_duplicates": len(self.merged),
            "adds_up": total == self.rows_read,
        }

    def skip(self, rid: Any, reason: str, *, task: str | None = None, also: tuple[str, ...] = ()) -> None:
        """Report a bad row (id and reason); in strict mode raise :class:`BadRowError` instead.

        ``task`` is the task the row belonged to; ``also`` names further tasks built from the same row (a 4-shot
        variant), which count it among their skipped rows too."""
        entry: dict[str, Any] = {"id": str(rid), "reason": str(reason), "task": task or UNASSIGNED}
        if also:
            entry["also"] = list(also)
        if self.strict:
            raise BadRowError(
                f"{self.benchmark}: row {entry['id']!r} of {self.source}: {entry['reason']} "
                "(strict mode is on: unset AMBI_STRICT to skip and count bad rows instead)"
            )
        self.skipped.append(entry)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def flag(self, what: str, rid: Any) -> None:
        """A row kept as published but worth a look (``what`` says why); its id is listed under ``what``."""
        ids = self.flagged.setdefault(what, [])
        if str(rid) not in ids:
            ids.append(str(rid))

    def lacks(self, records: str, reason: str) -> None:
        """The release gives no rows for the records file ``records`` (its tasks run on zero rows): say why."""
        self.absent.setdefault(records, reason)

    @staticmethod
    def reason_key(reason: str) -> str:
        """The kind of a reason (its text before the first colon), for counting."""
        return reason.split(":", 1)[0].strip()

    def skipped_by_reason(self, task: str | None = None) -> dict[str, int]:
        rows = [s for s in self.skipped if task is None or s["task"] == task]
        return dict(sorted(Counter(self.reason_key(s["reason"]) for s in rows).items()))

    def skipped_by_task(self) -> dict[str, int]:
        return dict(sorted(Counter(s["task"] for s in self.skipped).items()))

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "source": self.source,
            "strict": self.strict,
            "rows_read": self.rows_read,
            "items_loaded": self.items_loaded,
            "merged_total": len(self.merged),
            "merged": self.merged,
            "identity": self.identity(),
            "records": dict(sorted(self.records.items())),
            "records_total": sum(self.records.values()),
            "skipped_total": len(self.skipped),
            "skipped_by_reason": self.skipped_by_reason(),
            "skipped_by_task": self.skipped_by_task(),
            "skipped": self.skipped,
            "flagged": self.flagged,
            "absent": dict(sorted(self.absent.items())),
            "notes": self.notes,
            "results_notes": self.results_notes,
        }

    def write(self, folder: str | Path) -> Path:
        path = Path(folder) / REPORT_FILE
        path.write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return path

    def summary(self, *, max_rows: int = 50) -> str:
        lines = [
            f"ambi-plugin: loaded {self.benchmark} from {self.source}",
            "  " + identity_line(self.identity()),
            f"  rows read: {self.rows_read}; records written: {sum(self.records.values())}; "
            f"rows skipped: {len(self.skipped)}",
        ]
        for task, n in sorted(self.records.items()):
            lines.append(f"    {task}: {n}")
        if self.skipped:
            lines.append("  skipped by reason: " + ", ".join(f"{k} {v}" for k, v in self.skipped_by_reason().items()))
            for s in self.skipped[:max_rows]:
                lines.append(f"    skipped {s['id']} ({s['task']}): {s['reason']}")
            if len(self.skipped) > max_rows:
                lines.append(f"    ... {len(self.skipped) - max_rows} more in {REPORT_FILE}")
        for m in self.merged[:max_rows]:
            lines.append(f"    merged {m['id']} ({m['task']}): {m['reason']}")
        if len(self.merged) > max_rows:
            lines.append(f"    ... {len(self.merged) - max_rows} more merged in {REPORT_FILE}")
        for records, reason in sorted(self.absent.items()):
            lines.append(f"  no records: {records} (its tasks run on zero rows and report NaN): {reason}")
        for what, ids in self.flagged.items():
            more = f", ... {len(ids) - max_rows} more in {REPORT_FILE}" if len(ids) > max_rows else ""
            lines.append(f"  kept, flagged ({what}): {len(ids)} rows: {', '.join(ids[:max_rows])}{more}")
        for text in self.notes:
            lines.append(f"  note: {text}")
        return "\n".join(lines)

    def emit(self, folder: str | Path | None = None) -> None:
        """Save the report in ``folder`` (if given) and print its summary to stderr."""
        if folder is not None:
            self.write(folder)
        print(self.summary(), file=sys.stderr, flush=True)


def identity_line(identity: dict[str, Any]) -> str:
    """``rows read R = items loaded I + skipped S (reason n, ...) + merged duplicates M`` (and whether it adds up)."""
    reasons = identity.get("skipped_by_reason") or {}
    why = f" ({', '.join(f'{k} {v}' for k, v in reasons.items())})" if reasons else ""
    line = (
        f"rows read {identity.get('rows_read')} = items loaded {identity.get('items_loaded')} + skipped "
        f"{identity.get('skipped')}{why} + merged duplicates {identity.get('merged_duplicates')}"
    )
    return line if identity.get("adds_up") else line + " (DOES NOT ADD UP: please report this as a bug)"


def read_report(folder: str | Path) -> dict[str, Any] | None:
    """The saved load report of a materialised folder, or None (a canonical copy made elsewhere has none)."""
    path = Path(folder) / REPORT_FILE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def fetch_command(repo_id: str) -> str:
    """The shell command that puts a Hub dataset repo into the HF cache (huggingface_hub's ``hf`` CLI)."""
    return f"hf download {repo_id} --repo-type dataset"


def hub_snapshot(repo_id: str, *, benchmark: str, revision: str | None = None, patterns: list[str] | None = None):
    """The local folder of a Hub dataset repo's files (downloaded, or from the HF cache when offline).

    Raises :class:`ambi_plugin.benchmarks.hub.DataUnavailableError` with what to do instead."""
    from ambi_plugin.benchmarks.hub import DataUnavailableError

    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:  # pragma: no cover - datasets brings huggingface_hub
        raise DataUnavailableError(
            f"{benchmark}: loading {repo_id!r} from the Hub needs huggingface_hub: pip install 'ambi-plugin[lmms]'"
        ) from exc
    try:
        return Path(snapshot_download(repo_id=repo_id, repo_type="dataset", revision=revision, allow_patterns=patterns))
    except Exception as exc:  # noqa: BLE001 - one actionable message
        offline = os.environ.get("HF_HUB_OFFLINE") == "1" or os.environ.get("HF_DATASETS_OFFLINE") == "1"
        raise DataUnavailableError(
            f"{benchmark}: cannot get the Hub dataset {repo_id!r} ({type(exc).__name__}: {str(exc)[:300]})"
            + (" while offline (HF_HUB_OFFLINE=1) and it is not in the HF cache" if offline else "")
            + f". Download it once with network ({fetch_command(repo_id)}), or point "
            f"AMBI_{benchmark.upper()}_DIR at a local copy (the folder as downloaded, or its zip)."
        ) from None


def unpack_zip(archive: str | Path, *, benchmark: str) -> Path:
    """A zip's content, unpacked once into the cache: only the files a loader reads, within the limits of
    :mod:`ambi_plugin.benchmarks.archives` (size, compression ratio), a zip inside it within the same limits; a
    refused or failed unpack leaves nothing. A file that is not a zip raises
    :class:`~ambi_plugin.benchmarks.archives.NotAZip` naming it."""
    from ambi_plugin.benchmarks.archives import check_zip, members_to_unpack, open_zip
    from ambi_plugin.benchmarks.hub import benchmark_cache, materialize, source_key

    archive = Path(archive)
    out = benchmark_cache(benchmark, "zip-" + source_key(str(archive.resolve()), read=[archive.resolve()]))
    if not (out / ".complete").is_file():
        with open_zip(archive) as zf:
            members_to_unpack(zf, archive)  # refused before the cache folder is made

    def build(tmp: Path) -> None:
        inner: list[Path] = []
        with open_zip(archive) as zf:
            for info in members_to_unpack(zf, archive):
                parts = Path(info.filename).parts
                dst = tmp / Path(*parts)
                dst.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, dst.open("wb") as fh:
                    while chunk := src.read(1 << 20):
                        fh.write(chunk)
                if dst.suffix.lower() == ".zip":
                    inner.append(dst)
        for path in inner:  # a zip inside: the same limits, or nothing of this unpack is kept
            try:
                check_zip(path)
            except ValueError as exc:
                raise type(exc)(f"{archive}, inside it: {exc}".replace(str(tmp) + "/", "")) from None

    return materialize(out, build)


def zip_members(archive: str | Path) -> tuple[dict[str, str], int]:
    """{file name: member path} of the images in a zip, and how many macOS ``._`` / ``__MACOSX`` entries it holds."""
    from ambi_plugin.benchmarks.archives import open_zip

    names: dict[str, str] = {}
    junk = 0
    with open_zip(archive) as zf:
        for info in zf.infolist():
            parts = Path(info.filename).parts
            if info.is_dir() or not parts:
                continue
            if "__MACOSX" in parts or parts[-1].startswith("._"):
                junk += 1
                continue
            names.setdefault(parts[-1], info.filename)
    return names, junk


__all__ = [
    "BadRowError",
    "LoadReport",
    "REPORT_FILE",
    "fetch_command",
    "hub_snapshot",
    "identity_line",
    "read_report",
    "strict_mode",
    "unpack_zip",
    "zip_members",
]
