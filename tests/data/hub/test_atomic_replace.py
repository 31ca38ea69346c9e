"""paths.replace_dir_atomically: ``out`` is always a complete folder (old or new) or, between two renames, absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from ambi_plugin import paths
from ambi_plugin.paths import replace_dir_atomically


def _tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in folder.rglob("*") if p.is_file()}


def _fill(version: str, n: int = 3):
    def build(tmp: Path) -> None:
        for i in range(n):
            (tmp / "data").mkdir(exist_ok=True)
            (tmp / "data" / f"{i}.txt").write_text(f"{version} {i}")

    return build


OLD = {f"data/{i}.txt": f"old {i}" for i in range(3)}
NEW = {f"data/{i}.txt": f"new {i}" for i in range(3)}


def test_out_is_never_half_deleted(tmp_path, monkeypatch):
    """Every filesystem step of the swap sees ``out`` complete (old), or absent, or complete (new); the old copy
    is deleted only once the new one is in place."""
    out = tmp_path / "out"
    replace_dir_atomically(out, _fill("old"))
    seen: list[dict | None] = []

    def snapshot():
        seen.append(_tree(out) if out.exists() else None)

    real_rename, real_rmtree = Path.rename, paths.shutil.rmtree

    def rename(self, target):
        snapshot()
        result = real_rename(self, target)
        snapshot()
        return result

    def rmtree(path, *args, **kwargs):
        snapshot()
        assert Path(path) != out
        return real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(Path, "rename", rename)
    monkeypatch.setattr(paths.shutil, "rmtree", rmtree)
    replace_dir_atomically(out, _fill("new"))
    assert seen and all(state in (OLD, None, NEW) for state in seen)
    assert seen[0] == OLD and seen[-1] == NEW
    assert _tree(out) == NEW and [p.name for p in tmp_path.iterdir()] == ["out"]  # backup and temp folder gone


def test_a_failing_swap_puts_the_old_folder_back(tmp_path, monkeypatch):
    out = tmp_path / "out"
    replace_dir_atomically(out, _fill("old"))
    real_rename = Path.rename

    def rename(self, target):
        if Path(target) == out and self.name.startswith(".out.tmp-"):
            raise OSError("simulated: the new folder cannot be moved into place")
        return real_rename(self, target)

    monkeypatch.setattr(Path, "rename", rename)
    with pytest.raises(OSError, match="simulated"):
        replace_dir_atomically(out, _fill("new"))
    assert _tree(out) == OLD and [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_failing_build_leaves_out_alone_and_a_first_build_creates_it(tmp_path):
    out = tmp_path / "sub" / "out"

    def broken(tmp: Path) -> None:
        _fill("new")(tmp)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        replace_dir_atomically(out, broken)
    assert not out.exists() and list(out.parent.iterdir()) == []
    assert replace_dir_atomically(out, _fill("old")) == out and _tree(out) == OLD
    with pytest.raises(KeyboardInterrupt):
        replace_dir_atomically(out, broken)
    assert _tree(out) == OLD and [p.name for p in out.parent.iterdir()] == ["out"]
