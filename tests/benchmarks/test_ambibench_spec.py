"""The AmbiBench description: prompts verbatim from the paper, YAMLs in sync, groups, names, docs."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from ambi_plugin.benchmarks import ambibench as AB
from ambi_plugin.benchmarks.ambibench.yamls import differences, render
from ambi_plugin.runtime.taskindex import index

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT.parent / "shared" / "seeds" / "000_0f6751f139c676ec.txt"
OURS = {AB.PROMPT_HYBRID_TRIPLE, AB.PROMPT_MOTION_STATIC}  # written by us (docs say so)


def _squash(text: str) -> str:
    """Whitespace, HTML bold and LaTeX markup removed (the paper's PDF-to-text rendering)."""
    text = text.replace("<b>", "").replace("</b>", "").replace("$", "").replace("\\dots", "...")
    text = re.sub(r"_\{(min|max)\}", r"_\1", text)
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def paper() -> str:
    if not PAPER.is_file():
        pytest.skip(f"the AmbiBench paper text is absent ({PAPER})")
    return _squash(PAPER.read_text(encoding="utf-8"))


PAPER_PROMPTED = [t for t in AB.TASKS if t.prompt not in OURS]  # our own prompts are marked, not checked


def test_our_prompts_are_the_documented_exceptions():
    assert 0 < len(AB.TASKS) - len(PAPER_PROMPTED) <= 3


@pytest.mark.parametrize("spec", PAPER_PROMPTED, ids=[t.name for t in PAPER_PROMPTED])
def test_prompt_is_verbatim_from_the_paper(paper, spec):
    fragments = [lit for lit, *_ in string.Formatter().parse(spec.prompt) if lit.strip()]
    assert fragments
    for fragment in fragments:
        assert _squash(fragment) in paper, f"{spec.name}: {fragment!r} is not in the paper"


def test_verbatim_check_can_fail(paper):
    assert _squash("Respond with only two object words, separated by commas") in paper
    assert _squash("Respond with only three object words, separated by commas") not in paper


def test_yamls_are_generated_from_the_spec():
    assert differences() == [], "run: python -m ambi_plugin.benchmarks.ambibench.yamls"
    assert len(render()) == len(AB.TASKS) + len(AB.CATEGORIES) + 1


def test_groups_cover_every_task_once():
    idx = index()
    all_group = idx[AB.ALL_GROUP]
    assert all_group.members == [AB.group_name(c) for c in AB.CATEGORIES]
    members = [t for g in all_group.members for t in idx[g].members]
    assert sorted(members) == sorted(t.name for t in AB.TASKS)
    assert len(members) == len(set(members))
    for spec in AB.TASKS:
        info = idx[spec.name]
        assert (info.benchmark, info.category, info.task_type) == ("ambibench", spec.category, spec.task_type)
        assert info.config["dataset_path"] == "ambi://ambibench" and info.config["dataset_name"] == spec.data


def test_metric_lists_follow_views_and_breakdowns():
    by = AB.TASKS_BY_NAME
    assert {"acc_near", "acc_far", "acc_very_far"} <= set(by["ambibench_hybrid_open"].metrics)
    assert {"acc_color", "acc_gray"} <= set(by["ambibench_color_open"].metrics)
    assert {"acc_upright", "acc_rotated"} <= set(by["ambibench_multiview_open"].metrics)
    loc = set(by["ambibench_multiscene_localization"].metrics)
    assert {"ap50", "ap50_single", "ap50_combined", "hit_rate_single", "hit_rate_combined"} <= loc
    assert by["ambibench_bistable_choice"].metrics[0] == "exact_match"


def test_localization_tasks_carry_per_model_box_formats():
    idx = index()
    for name in ("ambibench_multiscene_localization", "ambibench_mixed_localization"):
        kw = idx[name].config["lmms_eval_specific_kwargs"]
        assert kw["default"]["box_format"] == "absolute"
        assert kw["qwen2_5_vl"]["box_format"] == "qwen_resized" and kw["qwen2_5_vl"]["max_pixels"] == 1605632
        assert kw["internvl3"]["box_format"] == "norm1000"
        assert all(entry["prompt"] == kw["default"]["prompt"] for entry in kw.values())
    video = idx["ambibench_motion_video_open"].config["lmms_eval_specific_kwargs"]["default"]
    assert video["video_frames"] == AB.VIDEO_FRAMES


def test_docs_list_every_task_with_its_metrics():
    doc = (ROOT / "docs" / "ambibench.md").read_text(encoding="utf-8")
    for spec in AB.TASKS:
        row = next((ln for ln in doc.splitlines() if ln.startswith(f"| `{spec.name}`")), None)
        assert row is not None, f"docs/ambibench.md has no row for {spec.name}"
        listed = re.findall(r"`([a-z0-9_]+)`", row.split("|")[-2])
        assert listed == list(spec.metrics), f"{spec.name}: docs list {listed}, the task reports {spec.metrics}"


def test_region_box_style_is_fixed():
    from PIL import Image

    img, style = AB.draw_region(Image.new("RGB", (1000, 400), (255, 255, 255)), [100, 100, 300, 200])
    assert style == {"rgb": [0, 255, 0], "width": 5, "drawn_by": "ambi-plugin"}
    assert img.getpixel((100, 150)) == (0, 255, 0) and img.getpixel((200, 150)) == (255, 255, 255)
    assert AB.region_line_width(100, 80) == 3


def test_docs_print_every_prompt():
    doc = _squash((ROOT / "docs" / "ambibench.md").read_text(encoding="utf-8"))
    for spec in AB.TASKS:
        for prompt in (spec.prompt, *spec.extra_prompts.values()):
            assert _squash(prompt) in doc, f"docs/ambibench.md lacks the prompt of {spec.name}"
