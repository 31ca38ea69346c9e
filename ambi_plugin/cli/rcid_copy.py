"""``ambi rcid-copy``: write a local RCID copy (generated, or read from a Hub-layout source)."""

from __future__ import annotations

import json
from pathlib import Path


def write_rcid_copy(
    out: Path,
    *,
    hub: str | None = None,
    seed: int = 0,
    n: int = 8,
    default_type: str | None = None,
    human: str | None = None,
) -> dict:
    """Generate an offline copy (``hub`` None) or convert ``hub`` (an id, a folder laid out like the Hub, or a folder
    of data built with the authors' construction code, ``human`` naming its human answers)."""
    from ambi_plugin.benchmarks.rcid.authors import is_authors_copy

    if hub is not None and Path(hub).expanduser().is_dir() and is_authors_copy(Path(hub).expanduser()):
        from ambi_plugin.benchmarks.rcid.authors import convert_authors
        from ambi_plugin.benchmarks.release import LoadReport
        from ambi_plugin.paths import replace_dir_atomically

        def build(tmp: Path) -> None:
            report = LoadReport("rcid", str(hub))
            convert_authors(Path(hub).expanduser(), tmp, report, human_file=human)
            report.emit(tmp)

        root = replace_dir_atomically(Path(out), build)
    elif hub is None:
        from ambi_plugin.benchmarks.rcid.synthetic import build_synthetic

        root = build_synthetic(out, seed=seed, n=n)
    else:
        from ambi_plugin.benchmarks.hub import load_hub_dataset
        from ambi_plugin.benchmarks.rcid.hub import convert
        from ambi_plugin.paths import looks_like_path, replace_dir_atomically

        if looks_like_path(hub):
            folder = Path(hub).expanduser()
            if not folder.exists():  # a path, not a Hub id: never asked of the Hub
                raise FileNotFoundError(
                    f"--hub {hub}: no such folder; pass a folder laid out like the Hub release of RCID or its Hub "
                    "id (mao1207/RCID)"
                )
        local = Path(hub).expanduser()
        if local.exists():
            folder = str(local.resolve())
        else:
            from ambi_plugin.benchmarks.release import hub_snapshot

            folder = str(hub_snapshot(hub, benchmark="rcid"))
        loaded = load_hub_dataset(folder, benchmark="rcid")
        root = replace_dir_atomically(
            Path(out), lambda tmp: convert(loaded, tmp, source=hub, default_type=default_type, download=folder)
        )
    return json.loads((Path(root) / "manifest.json").read_text(encoding="utf-8"))
