"""Where the shipped resources (task YAMLs, dataset cards) and the caches live."""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def _resource_dir(name: str) -> Path:
    """Inside a wheel: ``ambi_plugin/_resources/<name>``; in a checkout: ``<repo>/<name>``."""
    shipped = _PKG / "_resources" / name
    if shipped.is_dir():
        return shipped
    checkout = _PKG.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"ambi-plugin resource folder '{name}' was found neither at {shipped} nor at {checkout}; "
        "reinstall the package (pip install ambi-plugin) or run from a full checkout."
    )


def tasks_dir() -> Path:
    """The folder lmms-eval must index to find every ambi-plugin task and group."""
    return _resource_dir("task_yamls")


BENCHMARKS_ENV = "AMBI_BENCHMARKS"  # modules of benchmarks of your own, comma-separated (each registers its entry)
ENTRY_POINT_GROUP = "ambi_plugin.benchmarks"  # the same, for an installed package: name = benchmark, value = module


@functools.cache
def _entry_point_modules() -> tuple[str, ...]:
    from importlib.metadata import entry_points

    try:
        return tuple(ep.value.split(":", 1)[0].strip() for ep in entry_points(group=ENTRY_POINT_GROUP))
    except Exception:  # noqa: BLE001 - a broken distribution's metadata must not stop ambi-plugin
        return ()


def benchmark_packages() -> list[str]:
    """The modules of benchmarks outside ambi-plugin: ``$AMBI_BENCHMARKS`` (comma-separated module names), then the
    entry points of the group ``ambi_plugin.benchmarks``. Importing one registers its entry
    (:mod:`ambi_plugin.benchmarks.registry`)."""
    named = [m.strip() for m in os.environ.get(BENCHMARKS_ENV, "").split(",") if m.strip()]
    return list(dict.fromkeys([*named, *_entry_point_modules()]))


def benchmark_task_dirs() -> list[Path]:
    """The ``task_yamls/`` folders beside those modules (found without importing them), indexed with ours."""
    import importlib.util

    out = []
    for module in benchmark_packages():
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            continue  # not importable: the registry says so when it is asked
        if spec is None or not spec.origin:
            continue
        folder = Path(spec.origin).parent / "task_yamls"
        if folder.is_dir():
            out.append(folder)
    return out


def cards_dir() -> Path:
    return _resource_dir("hf_dataset_cards")


def cache_dir() -> Path:
    """Root of ambi-plugin's caches: ``$AMBI_CACHE``, else ``$XDG_CACHE_HOME/ambi_plugin``."""
    env = os.environ.get("AMBI_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ambi_plugin"


def looks_like_path(source: str) -> bool:
    """A ``--source`` / ``--hub`` value that is a path, not a Hub id (``OWNER/NAME``): it starts with ``/``, ``.`` or
    ``~``, has more than one ``/``, or names a file (``.zip``, ``.json``, ``.jsonl``, ``.parquet``)."""
    text = str(source)
    return (
        text.startswith(("/", ".", "~"))
        or text.count("/") > 1
        or os.sep != "/"
        and os.sep in text
        or Path(text).suffix.lower() in (".zip", ".json", ".jsonl", ".parquet")
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def remove_stale_tmp(out: str | Path) -> list[Path]:
    """Remove the hidden ``.<out>.tmp-<pid>-*`` folders that builds of ``out`` killed before their cleanup left
    beside it (their process is gone); say so on stderr. A folder of a live process (a build running now) is
    kept. Returns the folders removed."""
    out = Path(out)
    pattern = re.compile(rf"^\.{re.escape(out.name)}\.tmp-(\d+)-")
    removed = []
    try:
        siblings = list(out.parent.iterdir())
    except OSError:
        return []
    for path in siblings:
        m = pattern.match(path.name)
        if m and path.is_dir() and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    if removed:
        names = ", ".join(p.name for p in removed[:5]) + (" ..." if len(removed) > 5 else "")
        print(f"ambi-plugin: removed {len(removed)} temporary folder(s) of killed builds of {out}: {names}",
              file=sys.stderr)  # fmt: skip
    return removed


def replace_dir_atomically(out: str | Path, build: Callable[[Path], object]) -> Path:
    """Run ``build(tmp)`` in a sibling temporary folder, then move it to ``out`` (replacing it).

    The swap is two renames: the old ``out`` to a sibling backup, then the new folder to ``out``; only after that
    is the backup deleted. ``out`` is never half deleted: it is the old complete folder, the new complete folder,
    or (between the two renames) absent. An interrupted or failing build leaves ``out`` as it was and removes the
    temporary folder; if the second rename fails, the backup is renamed back to ``out``.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_tmp(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{os.getpid()}-", dir=out.parent))
    backup = out.parent / f".{out.name}.old-{tmp.name.rsplit('-', 1)[-1]}"  # unique: named after tmp
    swapped = False
    try:
        build(tmp)
        if out.exists():
            out.rename(backup)
        try:
            tmp.rename(out)
            swapped = True
        except BaseException:
            if backup.exists() and not out.exists():
                backup.rename(out)
            raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        if swapped and backup.exists():
            shutil.rmtree(backup, ignore_errors=True)
    return out
