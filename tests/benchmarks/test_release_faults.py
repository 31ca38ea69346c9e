"""One bad row never sinks a release: a decompression-bomb image, a line nested 10^5 deep, a 200 MB text field are
bad rows (skipped, counted, named with id and reason), the rest of the release loads; and a release that is not
what its variable says is named with the file and the variable, with the fix that applies (issue 30, items 5, 6,
8 and the newcomer's "File is not a zip file")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from published_layouts import ambibench_release
from support.bombs import png_bomb

from ambi_plugin.benchmarks.release import read_report
from ambi_plugin.core.schema import read_records

BOMB_ROW = {"question": "What is hidden here?", "answer": "snake", "file_name": "bomb.png", "bbox": [],
            "type": "Camouflaged_open"}  # fmt: skip


def _release_with(tmp_path: Path, fixtures: Path, extra: list[bytes]) -> tuple[Path, int]:
    """The published layout (clean) with ``extra`` lines appended to its metadata.jsonl; returns the folder and the
    number of good rows."""
    release = ambibench_release(fixtures, tmp_path / "AmbiBench", dirty=False)
    meta = release / "test" / "metadata.jsonl"
    good = len(meta.read_text(encoding="utf-8").splitlines())
    meta.write_bytes(meta.read_bytes() + b"".join(extra))
    return release, good


def _loaded(out: Path) -> int:
    return sum(len(read_records(p)) for p in out.glob("*.jsonl") if p.stem != "motion_static_yes_no")


def test_a_decompression_bomb_image_is_a_bad_row_and_the_rest_loads(tmp_path, monkeypatch, ambibench_fixtures_dir):
    from ambi_plugin.benchmarks.ambibench.release import materialize_release

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    release, good = _release_with(tmp_path, Path(ambibench_fixtures_dir), [(json.dumps(BOMB_ROW) + "\n").encode()])
    bomb = png_bomb(release / "test" / "bomb.png")
    assert bomb.stat().st_size < 100_000  # 48 KB on disk, 400 million pixels
    out = materialize_release(release)
    report = read_report(out)
    assert report["identity"]["adds_up"] and report["rows_read"] == good + 1
    assert report["skipped_by_reason"] == {"image too large": 1}
    (row,) = report["skipped"]
    assert row["id"] == "bomb" and row["task"] == "ambibench_camouflaged_open"
    assert "bomb.png is 400000000 pixels, over the limit of 178956970" in row["reason"]  # PIL's check first
    assert "AMBI_MAX_IMAGE_PIXELS" in row["reason"]
    assert _loaded(out) == good == report["items_loaded"]  # every good row kept


def test_the_pixel_limit_is_set_by_its_variable(tmp_path, monkeypatch, ambibench_fixtures_dir):
    """A realistic limit, lowered by the variable: a 4000 x 3000 photo refused at 10 megapixels, kept at 20."""
    from ambi_plugin.benchmarks.ambibench.release import materialize_release

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    release, good = _release_with(tmp_path, Path(ambibench_fixtures_dir), [(json.dumps(BOMB_ROW) + "\n").encode()])
    png_bomb(release / "test" / "bomb.png", 4000, 3000)
    monkeypatch.setenv("AMBI_MAX_IMAGE_PIXELS", "10000000")
    report = read_report(materialize_release(release))
    assert [s["id"] for s in report["skipped"]] == ["bomb"]
    assert "4000 x 3000 = 12000000 pixels, over the limit of 10000000" in report["skipped"][0]["reason"]
    monkeypatch.setenv("AMBI_MAX_IMAGE_PIXELS", "20000000")
    report = read_report(materialize_release(release))
    assert report["skipped"] == [] and report["items_loaded"] == good + 1


def test_the_same_image_at_answer_time_is_refused_whatever_pils_global_limit(tmp_path, monkeypatch):
    """VLMEvalKit sets PIL's global limit to 10^9 on import: the image is still refused from its header, before a
    pixel is decoded (doc_to_visual makes that the item's error)."""
    from PIL import Image

    from ambi_plugin.core.images import ImageTooLargeError, decode

    bomb = png_bomb(tmp_path / "bomb.png")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1_000_000_000)
    with pytest.raises(ImageTooLargeError, match=r"bomb\.png is 20000 x 20000 = 400000000 pixels"):
        decode(bomb)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 89_478_485)  # PIL's default refuses first: same error class
    with pytest.raises(
        ImageTooLargeError, match=r"image too large: bomb\.png is 400000000 pixels, over the limit of 178956970"
    ):
        decode(bomb)


def test_a_release_that_is_not_a_zip_names_the_file_and_the_variable(tmp_path, monkeypatch):
    """The preflight names the file and the variable, and never tells to set the variable that is set."""
    from ambi_plugin.lmms.preflight import run_preflight

    fake = tmp_path / "AmbiBench.zip"
    fake.write_text("<html>429 Too Many Requests</html>")
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("AMBI_AMBIBENCH_DIR", str(fake))
    (problem,) = run_preflight(["ambibench_camouflaged_open"]).problems
    assert problem.what == (
        f"the local copy of ambibench (AMBI_AMBIBENCH_DIR={fake}) is not a zip file (File is not a zip file; 34 bytes)."
    )
    assert problem.fix.startswith(f"AMBI_AMBIBENCH_DIR is {fake}: point it at the release as downloaded, complete")
    assert "export AMBI_AMBIBENCH_DIR" not in problem.fix and "--local-dir DIR" in problem.fix


def test_the_preflight_suggests_a_download_only_where_the_data_is_missing(monkeypatch):
    """A Hub copy that is there but cannot be converted is not fixed by downloading it as before (issue 30, item 5:
    the preflight said `hf download`)."""
    from ambi_plugin.benchmarks.archives import ArchiveRefused
    from ambi_plugin.benchmarks.hub import DataUnavailableError
    from ambi_plugin.lmms.preflight import _fix_for_source

    monkeypatch.delenv("AMBI_AMBIBENCH_DIR", raising=False)
    monkeypatch.setenv("AMBI_CONFIG", "/nonexistent/config.yaml")
    missing = _fix_for_source("ambi://ambibench", "x", DataUnavailableError("not in the HF cache"))
    assert missing.startswith("hf download BLNL/AmbiBench --repo-type dataset (then rerun)")
    broken = _fix_for_source("ambi://ambibench", "x", RuntimeError("cannot convert"))
    assert broken.startswith("the copy was found but could not be read (above)") and "--force-download" in broken
    refused = _fix_for_source("ambi://ambibench", "x", ArchiveRefused("over the limit"))
    assert refused.startswith("if you trust this archive, raise the limit named above") and "hf download" not in refused
