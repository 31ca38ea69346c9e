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


DEEP = "[" * 100_000 + "]" * 100_000  # 10^5 levels: Python's JSON reader raises RecursionError on it


def test_a_metadata_line_nested_1e5_deep_is_a_bad_row(tmp_path, monkeypatch, ambibench_fixtures_dir):
    from ambi_plugin.benchmarks.ambibench.release import materialize_release

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    release = ambibench_release(Path(ambibench_fixtures_dir), tmp_path / "AmbiBench", dirty=False)
    meta = release / "test" / "metadata.jsonl"
    good = meta.read_text(encoding="utf-8").splitlines(keepends=True)
    deep_150 = '{"question": ' + "[" * 150 + "]" * 150 + ', "answer": "x", "file_name": "y.png", "type": "Color"}\n'
    lines = [good[0], '{"question": ' + DEEP + "}\n", *good[1:3], deep_150, *good[3:]]  # good rows after them
    meta.write_text("".join(lines), encoding="utf-8")
    report = read_report(materialize_release(release))
    assert report["identity"]["adds_up"] and report["rows_read"] == len(good) + 2
    assert report["skipped_by_reason"] == {"not JSON": 2}
    too_deep = "not JSON: nested too deeply (more than 100 levels of brackets)"
    assert report["skipped"] == [
        {"id": "metadata.jsonl:2", "reason": too_deep, "task": "(no task)"},
        {"id": "metadata.jsonl:5", "reason": too_deep, "task": "(no task)"},
    ]
    assert report["items_loaded"] == len(good)


def _illusionbench_with(tmp_path: Path, edit) -> tuple[dict, dict]:
    """The load reports of the authors' release as published and with ``edit(entries_text) -> text``."""
    from published_layouts import illusionbench_release

    from ambi_plugin.benchmarks.illusionbench.release import materialize_folder

    reports = []
    for name, change in (("clean", None), ("edited", edit)):
        release = illusionbench_release(tmp_path / name)
        path = release / "Image_properties.json"
        if change is not None:
            path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")
        reports.append(read_report(materialize_folder(release)))
    return reports[0], reports[1]


def test_an_illusionbench_entry_nested_1e5_deep_is_a_bad_row(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))

    def insert_deep(text: str) -> str:
        entries = json.loads(text)
        return json.dumps(entries[:1])[:-1] + ", " + DEEP + ", " + json.dumps(entries[1:])[1:]

    clean, edited = _illusionbench_with(tmp_path, insert_deep)
    assert edited["identity"]["adds_up"] and edited["rows_read"] == clean["rows_read"] + 1
    assert edited["items_loaded"] == clean["items_loaded"]  # every entry after the deep one is read
    new = [s for s in edited["skipped"] if s not in clean["skipped"]]
    assert new == [{"id": "entry 1", "reason": "not JSON: nested too deeply (more than 100 levels of brackets)",
                    "task": "(no task)"}]  # fmt: skip


def test_a_viabench_row_nested_1e5_deep_is_a_bad_row(tmp_path, monkeypatch, shared_data):
    from ambi_plugin.benchmarks import viabench as VB

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "val"
    folder.mkdir()
    (folder / "images").symlink_to(shared_data / "via_bench_val" / "images")
    text = (shared_data / "via_bench_val" / "val.json").read_text(encoding="utf-8")
    (folder / "val.json").write_text("[" + DEEP + ", " + text.lstrip()[1:], encoding="utf-8")
    report = read_report(VB.materialize_local(folder))
    assert report["identity"]["adds_up"] and report["items_loaded"] == 249
    assert report["skipped_by_reason"] == {"not JSON": 1}
    assert report["skipped"][0]["id"] == "row1" and report["skipped"][0]["reason"].endswith(
        "levels of brackets) (row 1)"
    )


def test_an_rcid_authors_entry_nested_1e5_deep_is_a_bad_row(tmp_path, monkeypatch):
    from test_rcid_release import authors_copy

    from ambi_plugin.benchmarks.rcid.authors import materialize_authors

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    copy, human = authors_copy(tmp_path / "built")
    path = copy / "questions.json"
    path.write_text("[" + DEEP + ", " + path.read_text(encoding="utf-8").lstrip()[1:], encoding="utf-8")
    report = read_report(materialize_authors(copy, human_file=human))
    assert report["identity"]["adds_up"] and report["items_loaded"] == 10  # as without the deep entry
    assert report["skipped_by_reason"] == {"missing image": 1, "not JSON": 1}
    assert {"id": "contrast_entry0", "reason": "not JSON: nested too deeply (more than 100 levels of brackets)",
            "task": "ambi_rcid_contrast_pixel"} in report["skipped"]  # fmt: skip


def _long_question_release(tmp_path: Path, fixtures: Path, chars: int) -> tuple[Path, int, str]:
    marker = "LONGTEXT"
    row = {**BOMB_ROW, "file_name": "long.png", "question": marker + "x" * (chars - len(marker))}
    release, good = _release_with(tmp_path, fixtures, [(json.dumps(row) + "\n").encode()])
    from PIL import Image

    Image.new("RGB", (32, 24)).save(release / "test" / "long.png")
    return release, good, marker


def _holds(folder: Path, text: str) -> bool:
    return any(text.encode() in p.read_bytes() for p in folder.rglob("*") if p.is_file())


def test_a_text_field_over_the_limit_is_a_bad_row(tmp_path, monkeypatch, ambibench_fixtures_dir):
    """The limit lowered by its variable: a 5,000-character question is refused at 1,000, kept at 10,000."""
    from ambi_plugin.benchmarks.ambibench.release import materialize_release

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    release, good, marker = _long_question_release(tmp_path, Path(ambibench_fixtures_dir), 5000)
    monkeypatch.setenv("AMBI_MAX_TEXT_CHARS", "1000")
    out = materialize_release(release)
    report = read_report(out)
    assert report["identity"]["adds_up"] and report["items_loaded"] == good
    assert report["skipped"] == [{"id": "long", "task": "ambibench_camouflaged_open", "reason": (
        "text too long: field 'question' holds 5000 characters, over the limit of 1000 (set AMBI_MAX_TEXT_CHARS "
        "to allow more)")}]  # fmt: skip
    assert not _holds(out, marker)  # never converted or cached
    monkeypatch.setenv("AMBI_MAX_TEXT_CHARS", "10000")
    out = materialize_release(release)
    assert read_report(out)["skipped"] == [] and _holds(out, marker)


def test_a_one_megabyte_question_is_refused_by_the_default_limit(tmp_path, monkeypatch, ambibench_fixtures_dir):
    from ambi_plugin.benchmarks.ambibench.release import materialize_release

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("AMBI_MAX_TEXT_CHARS", raising=False)
    release, good, marker = _long_question_release(tmp_path, Path(ambibench_fixtures_dir), 1_000_000)
    out = materialize_release(release)
    report = read_report(out)
    assert report["skipped_by_reason"] == {"text too long": 1} and report["items_loaded"] == good
    assert "holds 1000000 characters, over the limit of 100000" in report["skipped"][0]["reason"]
    assert not _holds(out, marker)


def test_an_illusionbench_question_over_the_limit_is_its_own_bad_row(tmp_path, monkeypatch):
    """One question of an entry too long: that question is skipped, the entry's other questions and its description
    are kept."""
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("AMBI_MAX_TEXT_CHARS", "2000")
    name = {}

    def lengthen(text: str) -> str:
        entries = json.loads(text)
        entry = next(e for e in entries if len(e["qa_data"]) >= 2 and not e["image_property"]["image_name"]
                     .startswith("missing"))  # fmt: skip
        name["image"] = entry["image_property"]["image_name"]
        entry["qa_data"][0]["Question"] += " " + "y" * 3000
        return json.dumps(entries)

    clean, edited = _illusionbench_with(tmp_path, lengthen)
    assert edited["identity"]["adds_up"] and edited["items_loaded"] == clean["items_loaded"] - 1
    (new,) = [s for s in edited["skipped"] if s not in clean["skipped"]]
    assert new["id"].startswith(f"{name['image']}:") and new["id"].endswith("0")
    assert new["reason"].startswith("text too long: field 'Question' holds 30")


def test_viabench_missing_images_are_counted_under_one_reason(tmp_path, monkeypatch):
    """Each missing image used to be its own ``skipped_by_reason`` key (the reason held the absolute folder, twice):
    the kind is the key, the image and the row are in the row's own reason (issue 30, item 13)."""
    from PIL import Image

    from ambi_plugin.benchmarks import viabench as VB

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "val"
    (folder / "images").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(folder / "images" / "0.jpg")
    rows = [{"image_name": f"{k}.jpg", "Question": f"Question {k}?", "option": "A. x\nB. y\nC. Not Sure"}
            for k in range(4)]  # fmt: skip
    (folder / "val.json").write_text(json.dumps(rows), encoding="utf-8")
    report = read_report(VB.materialize_local(folder))
    assert report["identity"]["adds_up"] and report["items_loaded"] == 1
    assert report["skipped_by_reason"] == {"missing image": 3}
    reason = {s["id"]: s["reason"] for s in report["skipped"]}["2"]
    assert reason == f"missing image: 2.jpg is not in {folder / 'images'} (row 3)"


def test_a_limit_variable_that_is_not_a_number_is_a_setting_error_not_a_bad_row(tmp_path, monkeypatch):
    """A mistyped limit stops the conversion naming the variable (it would otherwise skip every row)."""
    from ambi_plugin.benchmarks.rows import TextLimitError, check_row
    from ambi_plugin.core.images import ImageLimitError, max_pixels
    from ambi_plugin.lmms.preflight import _fix_for_source

    monkeypatch.setenv("AMBI_MAX_TEXT_CHARS", "lots")
    with pytest.raises(TextLimitError, match=r"\$AMBI_MAX_TEXT_CHARS='lots' is not a positive number"):
        check_row({"question": "q"})
    monkeypatch.setenv("AMBI_MAX_IMAGE_PIXELS", "-5")
    with pytest.raises(ImageLimitError, match=r"\$AMBI_MAX_IMAGE_PIXELS='-5' is not a positive number"):
        max_pixels()
    monkeypatch.setenv("AMBI_CONFIG", "/nonexistent/config.yaml")
    monkeypatch.delenv("AMBI_AMBIBENCH_DIR", raising=False)
    fix = _fix_for_source("ambi://ambibench", "x", TextLimitError("x"))
    assert fix.startswith("set the variable named above to a positive number")
