"""Tests of the synthetic suite: API, schema, determinism, exactness of the ground truth, caching."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from ambi_plugin.core.schema import read_records
from ambi_plugin.synth import DEFAULT_N, SYNTH_TASKS, SYNTH_VERSION, build_suite, ensure_suite
from ambi_plugin.synth import suite as suite_mod
from ambi_plugin.synth.ambiguous import hybrid_source
from ambi_plugin.synth.color import luminance
from ambi_plugin.synth.imaging import gaussian_blur
from ambi_plugin.synth.shapes import SHAPE_LABELS

REPO = Path(__file__).resolve().parents[2]
N = 6


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    return build_suite(tmp_path_factory.mktemp("a") / "suite", seed=0, n=N)


@pytest.fixture(scope="module")
def suite_again(tmp_path_factory) -> Path:
    return build_suite(tmp_path_factory.mktemp("b") / "suite", seed=0, n=N)


def records(folder: Path, task: str) -> list[dict]:
    return read_records(folder / f"{task}.jsonl")


def pixels(folder: Path, rec: dict) -> np.ndarray:
    with Image.open(folder / rec["image"]) as im:
        return np.asarray(im.convert("RGB")).astype(np.int64)


def crop(img: np.ndarray, box: list[int]) -> np.ndarray:
    x1, y1, x2, y2 = box
    return img[y1 : y2 + 1, x1 : x2 + 1]


# --------------------------------------------------------------------------------------------------
# API, manifest, schema
# --------------------------------------------------------------------------------------------------


def test_public_constants():
    assert DEFAULT_N == 8
    assert len(SYNTH_TASKS) == 18 and len(set(SYNTH_TASKS)) == 18
    assert all(t.startswith("ambi_synth_") for t in SYNTH_TASKS)
    assert isinstance(SYNTH_VERSION, str) and SYNTH_VERSION


def test_manifest_and_counts(suite: Path):
    manifest = json.loads((suite / "manifest.json").read_text())
    assert manifest["version"] == SYNTH_VERSION
    assert manifest["seed"] == 0 and manifest["n"] == N
    assert manifest["green_box"] == {"rgb": [0, 255, 0], "width": 3}
    assert manifest["created_by"] == "ambi-plugin synth"
    assert set(manifest["tasks"]) == set(SYNTH_TASKS)
    for task in SYNTH_TASKS:
        lines = (suite / f"{task}.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == manifest["tasks"][task] == N


def test_records_validate_and_images_open(suite: Path):
    for task in SYNTH_TASKS:
        recs = records(suite, task)  # validates every record
        assert len({r["id"] for r in recs}) == len(recs)
        for rec in recs:
            assert rec["benchmark"] == "ambi_synth"
            assert rec["source"] == f"ambi_synth v{SYNTH_VERSION}"
            assert isinstance(rec["breakdown"], dict) and rec["breakdown"]
            assert all(isinstance(k, str) and isinstance(v, str) for k, v in rec["breakdown"].items())
            assert not Path(rec["image"]).is_absolute() and rec["image"].startswith("images/")
            with Image.open(suite / rec["image"]) as im:
                im.verify()
            if "options" in rec:
                assert rec["option_style"] in ("letter", "letter_lower", "roman")


def test_no_leftover_temporary_folders(suite: Path):
    assert [p.name for p in suite.parent.iterdir()] == ["suite"]


# --------------------------------------------------------------------------------------------------
# Determinism
# --------------------------------------------------------------------------------------------------


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_same_seed_is_identical(suite: Path, suite_again: Path):
    a, b = _files(suite), _files(suite_again)
    assert a.keys() == b.keys()
    for name in a:
        assert a[name] == b[name], f"{name} differs between two builds with the same seed"
    for name in (k for k in a if k.endswith(".png")):
        assert np.array_equal(np.asarray(Image.open(suite / name)), np.asarray(Image.open(suite_again / name)))


def test_different_seed_differs(suite: Path, tmp_path: Path):
    other = build_suite(tmp_path / "other", seed=1, n=N)
    for task in SYNTH_TASKS:
        assert (suite / f"{task}.jsonl").read_bytes() != (other / f"{task}.jsonl").read_bytes(), task
    imgs = sorted(p.name for p in (suite / "images").iterdir())
    same = [n for n in imgs if (suite / "images" / n).read_bytes() == (other / "images" / n).read_bytes()]
    assert not same, f"images identical across seeds: {same}"


# --------------------------------------------------------------------------------------------------
# Exactness: color
# --------------------------------------------------------------------------------------------------


def test_contrast_squares_are_exact(suite: Path):
    pix, hum = records(suite, "ambi_synth_contrast_pixel"), records(suite, "ambi_synth_contrast_human")
    assert {r["is_illusion"] for r in pix} == {True, False}
    for p, h in zip(pix, hum, strict=True):
        assert p["image"] == h["image"] and p["prompt_kind"] == "pixel" and h["prompt_kind"] == "human"
        assert p["question"].startswith("Based on pixel values, ")
        assert h["question"].startswith("Based on human perception, ")
        assert p["options"] == ["A is darker", "B is darker", "They are exactly same"]
        assert p["answer_index"] == p["pixel_answer_index"] and h["answer_index"] == h["human_answer_index"]
        img = pixels(suite, p)
        sq_a, sq_b = crop(img, p["square_box_a"]), crop(img, p["square_box_b"])
        assert sq_a.size and (sq_a == p["square_rgb_a"]).all() and (sq_b == p["square_rgb_b"]).all()
        mean_a, mean_b = luminance(sq_a.reshape(-1, 3).mean(0)), luminance(sq_b.reshape(-1, 3).mean(0))
        if p["is_illusion"]:
            assert p["square_rgb_a"] == p["square_rgb_b"] and np.array_equal(
                sq_a, sq_b[: sq_a.shape[0], : sq_a.shape[1]]
            )
            assert p["pixel_answer_index"] == 2
            brighter_a = luminance(p["background_rgb_a"]) > luminance(p["background_rgb_b"])
            assert h["human_answer_index"] == (0 if brighter_a else 1)
        else:
            assert p["square_rgb_a"] != p["square_rgb_b"]
            assert p["pixel_answer_index"] == (0 if mean_a < mean_b else 1)
            assert h["human_answer_index"] == p["pixel_answer_index"]
        # the backgrounds behind A and B are what the record says (corners of each half)
        hgt, wid = img.shape[:2]
        if p["breakdown"]["layout"] == "left-right":
            assert (img[0, 0] == p["background_rgb_a"]).all() and (img[hgt - 1, wid - 1] == p["background_rgb_b"]).all()
            assert "A on the left and B on the right" in p["question"]
        else:
            assert (img[0, wid - 1] == p["background_rgb_a"]).all() and (img[hgt - 1, 0] == p["background_rgb_b"]).all()
            assert "A on the top and B on the bottom" in p["question"]


def _stripe_side(img: np.ndarray, box: list[int]) -> tuple[np.ndarray, float]:
    region = crop(img, box).reshape(-1, 3)
    black = (region == 0).all(axis=1)
    return region[~black], float(black.mean())


def test_stripes_are_exact(suite: Path):
    pix, hum = records(suite, "ambi_synth_stripe_pixel"), records(suite, "ambi_synth_stripe_human")
    assert {r["is_illusion"] for r in pix} == {True, False}
    for p, h in zip(pix, hum, strict=True):
        assert p["options"] == ["Left is darker", "Right is darker", "They are exactly same"]
        img = pixels(suite, p)
        left, black_l = _stripe_side(img, p["stripe_box_left"])
        right, black_r = _stripe_side(img, p["stripe_box_right"])
        assert (left == p["stripe_rgb_left"]).all() and (right == p["stripe_rgb_right"]).all()
        assert abs(black_l - p["black_fraction_left"]) < 0.08 and abs(black_r - p["black_fraction_right"]) < 0.08
        mean_l, mean_r = luminance(left.mean(0)), luminance(right.mean(0))
        if p["is_illusion"]:
            assert mean_l == mean_r and p["pixel_answer_index"] == 2
            assert abs(black_l - black_r) > 0.1
            assert h["human_answer_index"] == (0 if black_l > black_r else 1)
        else:
            assert abs(mean_l - mean_r) > 10
            assert p["pixel_answer_index"] == (0 if mean_l < mean_r else 1) == h["human_answer_index"]
            assert abs(black_l - black_r) < 0.06
        assert p["breakdown"]["direction"] in ("horizontal", "vertical", "diagonal")
        assert int(p["breakdown"]["n_stripes"]) >= 6


# --------------------------------------------------------------------------------------------------
# Exactness: geometric
# --------------------------------------------------------------------------------------------------


def _red(img: np.ndarray) -> np.ndarray:
    return (img[..., 0] > 180) & (img[..., 1] < 90) & (img[..., 2] < 90)


def _split_on_gap(mask: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Split ``mask`` into two parts at the widest empty gap of its rows (axis 0) or columns (axis 1)."""
    idx = np.nonzero(mask.any(axis=1 - axis))[0]
    cut = int(idx[int(np.argmax(np.diff(idx)))]) + 1
    first, second = mask.copy(), mask.copy()
    if axis == 0:
        first[cut:], second[:cut] = False, False
    else:
        first[:, cut:], second[:, :cut] = False, False
    return first, second


def _segment_length(mask: np.ndarray) -> float:
    """Length of a (thick) straight segment: sqrt(12 * variance) along its principal axis."""
    ys, xs = np.nonzero(mask)
    cov = np.cov(np.stack([xs, ys]).astype(float))
    return float(np.sqrt(12.0 * np.linalg.eigvalsh(cov)[-1]))


def _target_sizes(img: np.ndarray, illusion: str) -> tuple[float, float]:
    """Physical size of targets a and b measured from the red pixels (length of lines, sqrt of disc area)."""
    a, b = _split_on_gap(_red(img), 0 if illusion in ("muller-lyer", "ponzo") else 1)
    if illusion in ("ebbinghaus", "delboeuf"):
        return float(np.sqrt(a.sum())), float(np.sqrt(b.sum()))
    return _segment_length(a), _segment_length(b)


def test_geometric_answers_follow_the_pixels(suite: Path):
    tf = records(suite, "ambi_synth_geometric_tf")
    yn = records(suite, "ambi_synth_geometric_yn")
    mc = records(suite, "ambi_synth_geometric_mc")
    letter = records(suite, "ambi_synth_geometric_letter")
    desc = records(suite, "ambi_synth_description")
    for t, y, m, lt, d in zip(tf, yn, mc, letter, desc, strict=True):
        assert t["image"] == y["image"] == m["image"] == lt["image"] == d["image"]
        stim = t["stimulus"]
        a, b = _target_sizes(pixels(suite, t), stim["illusion"])
        if stim["larger"] == "equal":
            assert abs(a - b) / max(a, b) < 0.03, (stim, a, b)
        else:
            first = stim["larger"] in ("upper", "left")
            assert (a > b) == first, (stim, a, b)
        assert t["breakdown"]["image_category"] in ("classic", "trap", "no_illusion")
        assert t["breakdown"]["difficulty"] in ("easy", "neutral", "hard")
        if t["breakdown"]["image_category"] == "trap":
            assert stim["looks_larger"] not in (None, stim["larger"]) and stim["larger"] != "equal"
        if t["breakdown"]["image_category"] == "no_illusion":
            assert stim["illusion_strength"] == 0 and stim["looks_larger"] is None
        # every answer names the physical truth
        truth = stim["larger"]
        chosen_mc = m["options"][m["answer_index"]].lower()
        chosen_letter = lt["options"][lt["answer_index"]].lower()
        if truth == "equal":
            assert "same" in chosen_mc and "same" in chosen_letter
        else:
            assert chosen_mc.startswith(f"the {truth} ") and chosen_letter == f"the {truth} one"
        for rec in (t, y):
            q = rec["question"].lower()
            claims_equal = "same" in q
            claim_true = (truth == "equal") if claims_equal else (q.split()[1 if rec is t else 2] == truth)
            assert rec["answer_bool"] == claim_true, rec["question"]
        assert len(m["options"]) == 4 and 2 <= len(lt["options"]) <= 4
        assert all(k == k.lower() for k in d["key_terms"] + d["conflict_terms"])
    for rows in (tf, yn):
        assert sum(r["answer_bool"] for r in rows) == (N + 1) // 2


# --------------------------------------------------------------------------------------------------
# Exactness: scenes
# --------------------------------------------------------------------------------------------------


def test_localization_boxes_are_tight(suite: Path):
    groups = set()
    for rec in records(suite, "ambi_synth_localization"):
        img = pixels(suite, rec)
        assert rec["prompt_vars"] == {
            "object": rec["boxes"][0]["label"],
            "width": str(img.shape[1]),
            "height": str(img.shape[0]),
        }
        union = np.zeros(img.shape[:2], dtype=bool)
        for b in rec["boxes"]:
            x1, y1, x2, y2 = b["box"]
            union[y1 : y2 + 1, x1 : x2 + 1] = True
        for b, rgb in zip(rec["boxes"], rec["instance_rgb"], strict=True):
            ys, xs = np.nonzero((img == rgb).all(axis=-1))
            assert len(xs), "target color not found"
            assert [xs.min(), ys.min(), xs.max(), ys.max()] == b["box"], "box is not the tight box of its shape"
            assert union[ys, xs].all()
            assert b["label"] == rec["prompt_vars"]["object"]
            assert b["group"] == ("single" if len(rec["boxes"]) == 1 else "combined")
        groups.add(rec["boxes"][0]["group"])
    assert groups  # at least one group seen


def test_region_green_box(suite: Path):
    for rec in records(suite, "ambi_synth_region"):
        img = pixels(suite, rec)
        green = (img == [0, 255, 0]).all(axis=-1)
        x1, y1, x2, y2 = rec["region"]
        expected = np.zeros_like(green)
        expected[y1 : y2 + 1, x1 : x2 + 1] = True
        expected[y1 + 3 : y2 - 2, x1 + 3 : x2 - 2] = False
        assert np.array_equal(green, expected)
        assert [v["name"] for v in rec["views"]] == ["layer1", "layer2"]
        assert rec["views"][0]["labels"] == [f"letter {rec['navon_global'].lower()}|{rec['navon_global'].lower()}"]


def _corr(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a.ravel(), b.ravel())[0, 1])


def test_hybrid_frequency_split(suite: Path):
    for rec in records(suite, "ambi_synth_hybrid_open"):
        gray = pixels(suite, rec).astype(float).mean(axis=-1) / 255.0
        near, far = hybrid_source(rec["hybrid_near"]), hybrid_source(rec["hybrid_far"])
        s_low, s_high = rec["hybrid_sigma_low"], rec["hybrid_sigma_high"]
        low = gaussian_blur(gray, s_low)
        assert _corr(low, far) > _corr(low, near) + 0.1
        high = gray - gaussian_blur(gray, s_high)
        assert _corr(high, near - gaussian_blur(near, s_high)) > _corr(high, far - gaussian_blur(far, s_high))
        assert [v["name"] for v in rec["views"]] == ["near", "far"]
        assert rec["views"][0]["labels"] == [SHAPE_LABELS[rec["hybrid_near"]]]
        assert rec["views"][1]["labels"] == [SHAPE_LABELS[rec["hybrid_far"]]]


def test_multichoice_answers(suite: Path):
    recs = records(suite, "ambi_synth_multichoice")
    assert any(r["answer_indices"] == [4] for r in recs)
    assert sum(len(r["answer_indices"]) == 2 for r in recs) >= len(recs) // 2
    for rec in recs:
        assert rec["none_index"] == 4 and rec["options"][4] == "None" and len(rec["options"]) == 5
        present = [i for i, o in enumerate(rec["options"][:4]) if o in rec["shapes_drawn"]]
        assert rec["answer_indices"] == (present or [4])
        assert all(o in SHAPE_LABELS for o in rec["options"][:4])


def test_open_tasks_views(suite: Path):
    for rec in records(suite, "ambi_synth_multiview_open"):
        assert [v["name"] for v in rec["views"]] == ["upright", "rotated"]
        assert rec["prompt_vars"]["rotation"] == rec["breakdown"]["rotation"] in ("rot90", "rot180")
        assert rec["views"][0]["labels"] != rec["views"][1]["labels"]
    for rec in records(suite, "ambi_synth_navon_open"):
        assert [v["name"] for v in rec["views"]] == ["layer1", "layer2"]
        assert rec["navon_global"] != rec["navon_local"]
    variants = [r["breakdown"]["variant"] for r in records(suite, "ambi_synth_object_open")]
    assert sorted(set(variants)) == ["camo", "noncamo"]
    for rec in records(suite, "ambi_synth_object_open"):
        assert rec["views"][0]["name"] == "object" and rec["views"][0]["labels"][0] in SHAPE_LABELS.values()


# --------------------------------------------------------------------------------------------------
# Building and caching
# --------------------------------------------------------------------------------------------------


def test_failed_build_leaves_nothing(tmp_path: Path, monkeypatch):
    def boom(ctx):
        raise RuntimeError("generator failed")

    boom_family = suite_mod.Family("boom", ("ambi_synth_boom",), boom)
    monkeypatch.setattr(suite_mod, "FAMILIES", suite_mod.FAMILIES[:1] + (boom_family,))
    with pytest.raises(RuntimeError, match="generator failed"):
        build_suite(tmp_path / "s", seed=0, n=1)
    assert list(tmp_path.iterdir()) == []


def test_bad_arguments(tmp_path: Path):
    with pytest.raises(ValueError):
        build_suite(tmp_path / "s", n=0)
    with pytest.raises(ValueError):
        ensure_suite(seed=-1, root=tmp_path / "s")


def test_ensure_suite_rebuilds_on_version_change(tmp_path: Path):
    root = tmp_path / "cache"
    assert ensure_suite(seed=0, n=1, root=root) == root.resolve()
    manifest = root / "manifest.json"
    first = manifest.stat().st_mtime_ns
    assert ensure_suite(seed=0, n=1, root=root) == root.resolve()
    assert manifest.stat().st_mtime_ns == first  # cached: not rebuilt
    data = json.loads(manifest.read_text())
    data["version"] = "0-old"
    manifest.write_text(json.dumps(data))
    ensure_suite(seed=0, n=1, root=root)
    assert json.loads(manifest.read_text())["version"] == SYNTH_VERSION
    manifest.unlink()
    ensure_suite(seed=0, n=1, root=root)
    assert manifest.is_file()


def test_ensure_suite_default_root_uses_cache(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path))
    folder = ensure_suite(seed=3, n=1)
    assert folder == (tmp_path / "synth" / f"v{SYNTH_VERSION}-seed3-n1").resolve()
    assert (folder / "manifest.json").is_file()


WORKER = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[4])
    import ambi_plugin.synth.suite as s

    log, root, ready = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    original = s.build_suite

    def counted(*args, **kwargs):
        with open(log, "a") as fh:
            fh.write("build\\n")
        time.sleep(1.0)  # widen the race window
        return original(*args, **kwargs)

    s.build_suite = counted
    # both workers start building together, however long each took to import: each says it is ready and waits
    # for the other (a start time on the clock let a slow import miss the race on a busy machine)
    (ready / str(os.getpid())).touch()
    deadline = time.monotonic() + 300
    while len(list(ready.iterdir())) < 2:
        if time.monotonic() > deadline:
            sys.exit("the other worker never became ready")
        time.sleep(0.005)
    print(s.ensure_suite(seed=0, n=1, root=Path(root)))
    """
)


def test_ensure_suite_concurrent_builds_once(tmp_path: Path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    log, root = tmp_path / "builds.log", tmp_path / "cache" / "suite"
    ready = tmp_path / "ready"
    ready.mkdir()
    env = dict(os.environ, AMBI_CACHE=str(tmp_path / "cache"))
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(log), str(root), str(ready), str(REPO)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert Path(out.strip()) == root.resolve()
    assert log.read_text().count("build") == 1
    assert json.loads((root / "manifest.json").read_text())["n"] == 1
