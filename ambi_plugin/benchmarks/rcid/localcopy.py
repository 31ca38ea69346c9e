"""``ambi rcid-copy``: write a local RCID copy (generated, or read from a Hub-layout source); RCID's own command,
declared on its registry entry (:class:`ambi_plugin.benchmarks.commands.Command`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ambi_plugin.benchmarks.commands import Command, CommandTools


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


def _arguments(rc: argparse.ArgumentParser) -> None:
    rc.add_argument("--out", required=True, help="folder to write (then: export AMBI_RCID_DIR=<out>)")
    rc.add_argument(
        "--hub",
        default=None,
        help="a Hub id (mao1207/RCID), a folder laid out like it, or a folder of data built with the authors' code "
        "(questions.json / train_results.json); default: generate",
    )
    rc.add_argument("--human", default=None, help="the authors' data: a file of human answers (docs/rcid.md)")
    rc.add_argument("--n", type=int, default=8, help="generated images per illusion type (at least 8)")
    rc.add_argument("--seed", type=int, default=0, help="seed of the generated copy")
    rc.add_argument("--type", default=None, choices=("contrast", "stripe", "filter"), help="--hub: type of every row")


def _run(args: argparse.Namespace, tools: CommandTools) -> int:
    from ambi_plugin.benchmarks.hub import DataUnavailableError

    try:
        manifest = write_rcid_copy(
            Path(args.out), hub=args.hub, seed=args.seed, n=args.n, default_type=args.type, human=args.human
        )
    except DataUnavailableError as exc:
        print(f"ambi rcid-copy: {exc}", file=sys.stderr)
        return 2
    print(f"wrote an RCID copy to {args.out}: {manifest['counts']}; skipped rows: {manifest['n_skipped']}")
    return 0


COMMAND = Command(
    "rcid-copy",
    "write a local RCID copy: generated offline, or read from a Hub-layout folder / Hub id",
    _arguments,
    _run,
)
