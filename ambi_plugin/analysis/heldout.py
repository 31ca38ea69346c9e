"""The items the ITI directions were fitted on are left out of the evaluation: by id, in the records they came from.

``ambi switch-heads fit-iti`` stores the fitted items' ids and their records name (the task YAML's ``dataset_name``,
e.g. ``bistable_open`` for ``ambibench_bistable_open``) in the heads file. Before the Table 4 runs,
:func:`evaluation_copy` writes a copy of the benchmark's records folder in which that one records file lacks exactly
those ids; every other records file is copied unchanged (multi-scene items are not touched), image paths are made
absolute (no media is copied), and the lmms-eval runs read the copy through ``$AMBI_<BENCHMARK>_DIR``. A line that
is not valid JSON is copied as it is, so the loader reports it as it would for the original.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ambi_plugin.core.jsonl import read_lines

__all__ = ["HeldOut", "data_env_var", "evaluation_copy"]


def data_env_var(source: str) -> str:
    """The environment variable that points ``ambi://<source>`` at a local folder."""
    name = source.removeprefix("ambi://").strip("/")
    if name == "local":
        return "AMBI_DATA_DIR"
    return f"AMBI_{name.upper()}_DIR"


@dataclass
class HeldOut:
    """The evaluation copy: its folder, the variable to set, and which held-out ids were found and removed."""

    folder: Path
    source: str
    dataset_name: str
    excluded: list[str]
    missing: list[str] = field(default_factory=list)

    @property
    def env(self) -> dict[str, str]:
        return {data_env_var(self.source): str(self.folder)}

    def to_dict(self) -> dict:
        return {
            "source": self.source,
            "dataset_name": self.dataset_name,
            "data": str(self.folder),
            "n_excluded": len(self.excluded),
            "excluded_ids": self.excluded,
            "held_out_ids_not_found": self.missing,
        }


def evaluation_copy(source: str, dataset_name: str, ids: Sequence[str], out: str | Path) -> HeldOut:
    """Copy ``source``'s records folder to ``out`` without the records ``ids`` in ``<dataset_name>.jsonl``."""
    from ambi_plugin.data.sources import _absolutize, source_root

    root = source_root(source).resolve()
    target = root / f"{dataset_name}.jsonl"
    if not target.is_file():
        available = ", ".join(sorted(p.stem for p in root.glob("*.jsonl"))) or "none"
        raise FileNotFoundError(
            f"held-out items come from records {dataset_name!r}, but {root} has no {target.name} (available: "
            f"{available}); pass fit-iti --dataset-name NAME to name the records the fit set was taken from"
        )
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    drop = {str(i) for i in ids}
    excluded: list[str] = []
    for path in sorted(root.glob("*.jsonl")):
        lines = []
        for line in read_lines(path, what="records file"):  # a line that is not a record is copied as it is
            rec = line.value
            if path == target and isinstance(rec, dict) and str(rec.get("id")) in drop:
                excluded.append(str(rec.get("id")))
                continue
            lines.append(json.dumps(_absolutize(rec, root), ensure_ascii=False) if isinstance(rec, dict) else line.text)
        (out / path.name).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    for path in root.glob("*.json"):  # manifest and load report, read by the results' data section
        shutil.copy2(path, out / path.name)
    missing = sorted(drop - set(excluded))
    return HeldOut(out, source, dataset_name, excluded, missing)
