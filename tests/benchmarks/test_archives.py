"""Release zips are unpacked within limits: only what a loader reads, refused over the size or compression-ratio
limit (a zip bomb) before anything is written, and nothing left behind by a refused or failed unpack."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ambi_plugin.benchmarks.archives import ArchiveRefused
from ambi_plugin.benchmarks.release import unpack_zip

MB = 1 << 20


def _bomb(path: Path, megabytes: int = 64) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("viab/val.json", "[]")
        with zf.open("viab/images/a.png", "w") as fh:  # zeros: ~1000 times smaller packed
            for _ in range(megabytes):
                fh.write(bytes(MB))
    return path


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not p.name.endswith(".lock")] if root.exists() else []


def test_a_zip_bomb_is_refused_by_ambi_build_and_nothing_is_written(tmp_path):
    bomb = _bomb(tmp_path / "bomb.zip")
    assert bomb.stat().st_size < MB
    cache = tmp_path / "cache"
    env = {**os.environ, "AMBI_CACHE": str(cache)}
    run = subprocess.run(
        [sys.executable, "-m", "ambi_plugin.cli", "build", "viabench", "--source", str(bomb), "--out",
         str(tmp_path / "out")],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert f"{bomb}: refused: entry 'viab/images/a.png' inflates" in run.stderr
    assert "AMBI_UNPACK_MAX_RATIO" in run.stderr
    assert _files(cache) == [] and not (tmp_path / "out").exists()


def test_limits_are_set_by_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    bomb = _bomb(tmp_path / "bomb.zip", megabytes=20)
    monkeypatch.setenv("AMBI_UNPACK_MAX_RATIO", "5000")  # the user vouches for this archive
    out = unpack_zip(bomb, benchmark="viabench")
    assert (out / "viab" / "images" / "a.png").stat().st_size == 20 * MB
    plain = tmp_path / "plain.zip"
    with zipfile.ZipFile(plain, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("images/b.png", os.urandom(3 * MB))
    monkeypatch.setenv("AMBI_UNPACK_MAX_GB", "0.002")
    with pytest.raises(
        ArchiveRefused, match=r"unpack to 0\.00 GB, over the limit of 0\.002 GB \(set AMBI_UNPACK_MAX_GB"
    ):
        unpack_zip(plain, benchmark="viabench")
    monkeypatch.setenv("AMBI_UNPACK_MAX_GB", "lots")
    with pytest.raises(ArchiveRefused, match=r"\$AMBI_UNPACK_MAX_GB='lots' is not a number"):
        unpack_zip(plain, benchmark="viabench")


def test_only_what_a_loader_reads_is_unpacked(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    archive = tmp_path / "release.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in {
            "rel/val.json": b"[]",
            "rel/annotations/a.jsonl": b"{}\n",
            "rel/images/x.PNG": b"png",
            "rel/videos/v.mp4": b"mp4",
            "rel/tools/setup.exe": b"MZ",
            "rel/blob.bin": bytes(1000),
            "__MACOSX/rel/._x.PNG": b"junk",
            "../escape.json": b"[]",
        }.items():
            zf.writestr(name, data)
    out = unpack_zip(archive, benchmark="viabench")
    got = sorted(str(p.relative_to(out)) for p in _files(out) if p.name != ".complete")
    assert got == ["rel/annotations/a.jsonl", "rel/images/x.PNG", "rel/val.json", "rel/videos/v.mp4"]
    assert not (tmp_path / "escape.json").exists()


def test_an_unpack_that_fails_midway_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    archive = tmp_path / "torn.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("rel/images/a.png", b"A" * 4096)
        zf.writestr("rel/images/b.png", b"B" * 4096)
    data = bytearray(archive.read_bytes())
    data[data.rindex(b"B" * 16) - 100] ^= 0xFF  # a byte of the second image's data: its CRC check fails
    archive.write_bytes(bytes(data))
    with pytest.raises(zipfile.BadZipFile):
        unpack_zip(archive, benchmark="viabench")
    assert _files(tmp_path / "cache") == []


def test_many_small_members_are_refused_by_the_total_ratio(tmp_path, monkeypatch):
    """Each member is under the 16 MiB floor (so no entry is checked on its own), each inflates ~1000 times; together
    they unpack 20 MiB from ~20 KB: the total ratio refuses them, although the packed size is far below the floor."""
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    archive = tmp_path / "many.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for k in range(20):
            zf.writestr(f"rel/images/{k:02d}.png", bytes(MB))
    packed = sum(i.compress_size for i in zipfile.ZipFile(archive).infolist())
    assert packed < MB and all(i.file_size < 16 * MB for i in zipfile.ZipFile(archive).infolist())
    with pytest.raises(ArchiveRefused, match=r"its files inflate \d+ times .* over the limit of 200"):
        unpack_zip(archive, benchmark="viabench")
    assert _files(tmp_path / "cache") == []


def _illusionbench_with_inner_bomb(out: Path) -> Path:
    """The authors' layout whose ``IllusionDataset.zip`` holds one more image: 20 MiB of zeros (~1000x)."""
    from published_layouts import illusionbench_release

    release = illusionbench_release(out)
    with zipfile.ZipFile(release / "IllusionDataset.zip", "a", compression=zipfile.ZIP_DEFLATED) as zf:
        with zf.open("IllusionDataset/huge.png", "w") as fh:
            for _ in range(20):
                fh.write(bytes(MB))
    return release


def test_illusionbench_inner_zip_goes_through_the_limits_and_leaves_nothing(tmp_path, monkeypatch):
    from ambi_plugin.benchmarks.illusionbench.release import materialize_folder

    cache = tmp_path / "cache"
    monkeypatch.setenv("AMBI_CACHE", str(cache))
    release = _illusionbench_with_inner_bomb(tmp_path / "IllusionBench")
    assert (release / "IllusionDataset.zip").stat().st_size < MB
    with pytest.raises(ArchiveRefused, match=r"IllusionDataset\.zip: refused: entry 'IllusionDataset/huge\.png' "
                       r"inflates \d+ times .*AMBI_UNPACK_MAX_RATIO"):  # fmt: skip
        materialize_folder(release)
    assert _files(cache) == []  # nothing copied out of the inner zip, no converted folder
    monkeypatch.setenv("AMBI_UNPACK_MAX_RATIO", "5000")  # the user vouches for it: read as before
    assert (materialize_folder(release) / "illusionbench_tf.jsonl").is_file()


def test_a_zip_inside_a_release_zip_is_refused_at_unpack_and_nothing_is_kept(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("AMBI_CACHE", str(cache))
    release = _illusionbench_with_inner_bomb(tmp_path / "IllusionBench")
    outer = tmp_path / "IllusionBench.zip"
    with zipfile.ZipFile(outer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in ("Image_properties.json", "IllusionDataset.zip"):
            zf.write(release / name, f"IllusionBench/{name}")
    with pytest.raises(ArchiveRefused) as err:
        unpack_zip(outer, benchmark="illusionbench")
    assert str(err.value).startswith(f"{outer}, inside it: IllusionBench/IllusionDataset.zip: refused: entry")
    assert _files(cache) == []


def test_a_file_that_is_not_a_zip_is_named(tmp_path, monkeypatch):
    from ambi_plugin.benchmarks.archives import NotAZip

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    fake = tmp_path / "AmbiBench.zip"
    fake.write_text("<html>rate limited</html>")
    with pytest.raises(NotAZip, match=rf"^{fake} is not a zip file \(File is not a zip file; 25 bytes\)\. "):
        unpack_zip(fake, benchmark="ambibench")
