"""Release zips are unpacked within limits: only what a loader reads, refused over the size or compression-ratio
limit (a zip bomb) before anything is written, and nothing left behind by a refused or failed unpack."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ambi_plugin.benchmarks.archives import ArchiveRefused, check_zip, is_read
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
    with pytest.raises(NotAZip) as err:
        unpack_zip(fake, benchmark="ambibench")
    assert str(err.value) == (
        f"{fake} is not a zip file (File is not a zip file; 25 bytes). A release read as a zip must be the archive as "
        "downloaded, complete: download it again, or unpack it and point at the folder"
    )


# -- the limits at their exact boundaries, on zips whose headers declare the sizes (what a zip bomb's headers say;
# the limits read only the declared sizes, so nothing of these sizes is written or read)


def _declaring(path: Path, entries: dict[str, tuple[int, int]]) -> Path:
    """A zip whose entries hold ``packed`` stored bytes each and declare ``size`` bytes unpacked: {name: (packed,
    size)}. The central directory, which the limits read, is written at close from the entries' declared sizes."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, (packed, size) in entries.items():
            zf.writestr(name, bytes(packed))
            zf.getinfo(name).file_size = size
    with zipfile.ZipFile(path) as zf:  # the zip as it is read declares what was asked
        assert [(i.compress_size, i.file_size) for i in zf.infolist()] == list(entries.values())
    return path


def test_is_read_keeps_every_path_inside_the_folder_on_any_system():
    assert is_read("rel/images/a.png") and is_read("a.JPG") and is_read("rel\\images\\a.png")
    for name in (
        "",  # no name at all
        "../escape.json", "rel/../../escape.json", "rel\\..\\..\\escape.json",  # up and out, / or \ separated
        "/etc/x.json", "\\etc\\x.json", "//server/share/x.png", "\\\\server\\share\\x.png",  # a root
        "C:/Windows/x.png", "c:x.png", "D:\\x.json",  # a drive letter (absolute or drive-relative on Windows)
    ):  # fmt: skip
        assert not is_read(name), name
    # macOS metadata: anything under __MACOSX, and an AppleDouble ._ file at any depth (the file name, not a folder)
    for name in ("__MACOSX/x.png", "rel/__MACOSX/images/x.png", "._x.png", "rel/._x.png", "rel/images/._x.png"):
        assert not is_read(name), name
    assert is_read("._rel/images/x.png") and is_read("rel/__MACOSX.png")  # only the exact names are metadata
    assert not is_read("rel/tools/setup.exe") and not is_read("rel/README")


def test_the_size_limit_is_exact(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_UNPACK_MAX_RATIO", "1e12")  # the size limit alone
    monkeypatch.setenv("AMBI_UNPACK_MAX_GB", "1")
    at = _declaring(tmp_path / "at.zip", {"a.png": (10, 600_000_000), "b.png": (10, 400_000_000)})
    check_zip(at)  # 10^9 bytes: exactly 1 GB, allowed
    over = _declaring(tmp_path / "over.zip", {"a.png": (10, 600_000_000), "b.png": (10, 400_000_001)})
    with pytest.raises(ArchiveRefused) as err:
        check_zip(over)
    assert str(err.value) == (
        f"{over}: refused: its files would unpack to 1.00 GB, over the limit of 1 GB (set AMBI_UNPACK_MAX_GB to "
        "allow more); nothing was unpacked"
    )
    odd = _declaring(tmp_path / "odd.zip", {"a.png": (10, 1_005_000_001)})
    with pytest.raises(ArchiveRefused, match=r"would unpack to 1\.01 GB, over the limit of 1 GB "):
        check_zip(odd)  # 1.005000001 GB, rounded to two decimals
    # the default, 64 GB: sixteen entries of 4 GB are allowed, one byte more is not
    monkeypatch.delenv("AMBI_UNPACK_MAX_GB")
    sizes = {f"v/{k:02d}.mp4": (10, 4_000_000_000) for k in range(16)}
    check_zip(_declaring(tmp_path / "64.zip", sizes))
    sizes["v/15.mp4"] = (10, 4_000_000_001)
    with pytest.raises(ArchiveRefused, match=r"would unpack to 64\.00 GB, over the limit of 64 GB "):
        check_zip(_declaring(tmp_path / "64+1.zip", sizes))


def test_the_ratio_limit_and_its_floor_are_exact(tmp_path, monkeypatch):
    floor = 16 * MB
    # an entry of exactly 16 MiB is never checked, however well it packs; one byte more is
    check_zip(_declaring(tmp_path / "floor.zip", {"a.png": (1, floor)}))
    over = _declaring(tmp_path / "floor+1.zip", {"a.png": (1, floor + 1)})
    with pytest.raises(ArchiveRefused) as err:
        check_zip(over)
    assert str(err.value) == (
        f"{over}: refused: entry 'a.png' inflates {floor + 1} times (1 -> {floor + 1} bytes), over the limit of 200 "
        "(set AMBI_UNPACK_MAX_RATIO to allow more); nothing was unpacked"
    )
    # the default ratio, 200: 100 000 -> 20 000 000 bytes is exactly 200 (allowed, for the entry and the total)
    check_zip(_declaring(tmp_path / "200.zip", {"a.png": (100_000, 20_000_000)}))
    over = _declaring(tmp_path / "200+.zip", {"a.png": (100_000, 20_000_001)})
    with pytest.raises(ArchiveRefused, match=r"entry 'a\.png' inflates 200 times \(100000 -> 20000001 bytes\), over"):
        check_zip(over)
    # a set limit, with an entry that packs to 1 byte: 10^7 allowed, 10^7 + 1 refused
    monkeypatch.setenv("AMBI_UNPACK_MAX_RATIO", "1e7")
    check_zip(_declaring(tmp_path / "1e7.zip", {"a.png": (2, 20_000_000)}))
    with pytest.raises(
        ArchiveRefused, match=r"inflates 17000000 times \(1 -> 17000000 bytes\), over the limit of 1e\+07"
    ):
        check_zip(_declaring(tmp_path / "1e7+.zip", {"a.png": (1, 17_000_000)}))
    # an entry that declares no packed byte at all and more than the floor is over any ratio
    with pytest.raises(ArchiveRefused, match=r"entry 'a\.png' inflates 17000000 times \(0 -> 17000000 bytes\)"):
        check_zip(_declaring(tmp_path / "empty.zip", {"a.png": (0, 17_000_000)}))


def test_the_total_ratio_and_its_floor_are_exact(tmp_path):
    half = 8 * MB  # each entry under the floor: only the total is checked
    check_zip(_declaring(tmp_path / "floor.zip", {"a.png": (1, half), "b.png": (0, half)}))  # 16 MiB: not checked
    over = _declaring(tmp_path / "floor+1.zip", {"a.png": (1, half), "b.png": (0, half + 1)})
    with pytest.raises(ArchiveRefused) as err:
        check_zip(over)
    assert str(err.value) == (
        f"{over}: refused: its files inflate {2 * half + 1} times (1 -> {2 * half + 1} bytes), over the limit of 200 "
        "(set AMBI_UNPACK_MAX_RATIO to allow more); nothing was unpacked"
    )
    check_zip(_declaring(tmp_path / "200.zip", {"a.png": (50_000, 10_000_000), "b.png": (50_000, 10_000_000)}))
    with pytest.raises(ArchiveRefused, match=r"its files inflate 200 times \(100000 -> 20000001 bytes\), over"):
        check_zip(_declaring(tmp_path / "200+.zip", {"a.png": (50_000, 10_000_000), "b.png": (50_000, 10_000_001)}))
    # members a loader does not read are not unpacked, so they count neither way
    check_zip(_declaring(tmp_path / "skipped.zip", {"a.png": (100_000, 20_000_000), "b.bin": (0, 15 * MB)}))


def test_a_limit_variable_must_be_a_positive_number(tmp_path, monkeypatch):
    archive = _declaring(tmp_path / "small.zip", {"a.png": (10, 10)})
    monkeypatch.setenv("AMBI_UNPACK_MAX_GB", "")  # set but empty: the default, as if unset
    monkeypatch.setenv("AMBI_UNPACK_MAX_RATIO", "")
    check_zip(archive)
    for raw in ("0", "-1"):
        monkeypatch.setenv("AMBI_UNPACK_MAX_RATIO", raw)
        with pytest.raises(ArchiveRefused) as err:
            check_zip(archive)
        assert str(err.value) == f"$AMBI_UNPACK_MAX_RATIO='{raw}' must be > 0 (default 200)"
    monkeypatch.setenv("AMBI_UNPACK_MAX_RATIO", "x")
    with pytest.raises(ArchiveRefused) as err:
        check_zip(archive)
    assert str(err.value) == "$AMBI_UNPACK_MAX_RATIO='x' is not a number (default 200)"
