"""The switch-head causal check in ``ambi report``: a results path that is an ``ambi switch-heads`` output folder
(``patching_<category>.md`` / ``.png`` written by ``ambi switch-heads patch``) adds its patching tables and plots.

Only the files are read (the Markdown that ``patch`` wrote and its JSON for the headline numbers), so the report
needs none of the analysis dependencies.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PatchingSection", "find_patching", "has_results"]


@dataclass
class PatchingSection:
    folder: Path
    category: str
    markdown: str
    summary: dict
    plot: Path | None


def find_patching(paths: list[str | Path]) -> list[PatchingSection]:
    """Every ``patching_<category>.md`` directly inside one of ``paths`` (folders only), in path order."""
    out = []
    for path in map(Path, paths):
        if not path.is_dir():
            continue
        for md in sorted(path.glob("patching_*.md")):
            category = md.stem[len("patching_") :]
            js = md.with_suffix(".json")
            summary = json.loads(js.read_text(encoding="utf-8")) if js.is_file() else {}
            summary = {k: summary.get(k) for k in ("model", "n_items", "position", "conditions", "spearman")}
            png = md.with_suffix(".png")
            out.append(PatchingSection(path, category, md.read_text(encoding="utf-8"), summary,
                                       png if png.is_file() else None))  # fmt: skip
    return out


def has_results(path: str | Path) -> bool:
    """Whether ``path`` holds an lmms-eval results JSON (a switch-heads folder without Table 3 runs holds none)."""
    path = Path(path)
    return path.is_file() or (path.is_dir() and any(path.rglob("*results*.json")))
