"""AmbiBench (ambiguous images): the one description both harnesses read.

Categories, tasks (task type, answer format, the Table 7 prompt verbatim, positional views, metrics,
the paper's table column), the per-model box coordinate systems, the green region box, the video
frame sampling, and the Hub loader ``materialize_from_hub()`` that ``dataset_path: ambi://ambibench``
falls back to when no local copy is configured (``$AMBI_AMBIBENCH_DIR`` / ``data.ambibench``).

The task YAMLs in ``task_yamls/ambibench/`` are rendered from :data:`TASKS` by
``python -m ambi_plugin.benchmarks.ambibench.yamls`` (a test keeps them in sync). Choices where the
paper is silent or contradicts itself follow ``PROTOCOL.md`` and are listed in ``docs/ambibench.md``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCHMARK = "ambibench"
TASK_PREFIX = "ambibench_"
VERSION = 1

# The nine categories (Table 5) plus the non-ambiguous COCO baseline (Table 1 "Non-Ambi.").
CATEGORIES: tuple[str, ...] = (
    "nonambi",
    "camouflaged",
    "bistable",
    "hybrid",
    "color",
    "multiview",
    "geometric",
    "motion",
    "multiscene",
    "mixed",
)

# Region description: the region is drawn on the image as a green rectangle (our choice, recorded
# in every region record as ``region_style``): pure green, line width 0.5% of the longer side, >= 3 px.
GREEN_RGB = (0, 255, 0)
GREEN_MIN_WIDTH = 3
GREEN_WIDTH_FRACTION = 0.005

# Motion video: frames handed to the model (our choice; core/video.py): 8, uniform, first and last included.
VIDEO_FRAMES = 8

# ----------------------------------------------------------------------------- prompts (Table 7)
# Verbatim from Table 7, typos kept ("a object detection expert", "an video", "an multi-layer").
# Template fields: {question}, {choices}, {object}, {objects}, {width}, {height} (see runtime/hooks.py).

PROMPT_CAMO = (
    "You are a camouflage detection expert. Carefully examine the image and locate the camouflaged object, "
    "provide the object name in one word. Output ONLY in the following format: Object: 'object name in one word'."
)
PROMPT_NONCAMO = (
    "You are a camouflage detection expert. Look at the image carefully and identify what one main object in the "
    "scene. The output is ONLY in the following format: Object: 'object name in one word'."
)
PROMPT_BISTABLE_OPEN = (
    "You are given a bistable image (an image that can be perceived in more than one way). Identify two possible "
    "distinct objects or visual features that a person might recognize in this image. Respond with only the object "
    "words, separated by commas, like 'Object1, Object2', without explanations or extra words."
)
PROMPT_BISTABLE_CHOICE = (
    "You are given a bistable image (an image that can be perceived in more than one way). Identify which objects "
    "from the following choices are present in the image. Select **all applicable answers** by returning their "
    "**letters only**, separated by commas (e.g., A, C). If none of the objects are present, choose **E**. "
    "Choices: {choices} Your answer:"
)
PROMPT_HYBRID = (
    "This is a hybrid image. What two different objects or scenes can be perceived in it, one when focusing on fine "
    "details (Object 1) and the other when viewed from a distance (Object 2)? Respond with only two object words, "
    "separated by commas, in the form of 'Object1, Object2', where Object1 is the one focusing on fine details, and "
    "Object2 is the one viewing from a distance."
)
# Ours (the paper prints no prompt for its 7 triple hybrids): Table 7's hybrid prompt extended to three distances.
PROMPT_HYBRID_TRIPLE = (
    "This is a hybrid image. What three different objects or scenes can be perceived in it, one when focusing on "
    "fine details (Object 1), one when viewed from a middle distance (Object 2) and the other when viewed from far "
    "away (Object 3)? Respond with only three object words, separated by commas, in the form of 'Object1, Object2, "
    "Object3', where Object1 is the one focusing on fine details, Object2 is the one viewing from a middle distance, "
    "and Object3 is the one viewing from far away."
)
PROMPT_COLOR = (
    "This image contains two subimages with different colors. The left and right subimages depict different objects "
    "or scenes. Respond with exactly two words or two phrases, separated by a comma, in the format 'Object1, "
    "Object2', where Object1 describes the left subimage and Object2 describes the right subimage."
)
PROMPT_MULTIVIEW = (
    "You are given an image. Look at the image normally and describe what object or scene you see. Then imagine "
    "rotating the image (90 degrees or 180 degrees, whichever makes sense) and describe what new object or scene it "
    "looks like after rotation. Respond with exactly two words or two short phrases, separated by a comma, in the "
    "format 'Object1, Object2'. Do not add extra words or explanations."
)
# Table 7 prints one geometric question ("Is the gray line in the image horizontal?"); the question varies per item.
PROMPT_GEOMETRIC = "{question} The answer should be short and concise, and without explanations."
PROMPT_MOTION_IMAGE = "Do you think the scene in the image is moving? Respond ONLY with Yes or No."
# Ours (A.7 describes the inverted "static" prompt but does not print it).
PROMPT_MOTION_STATIC = "Do you think the scene in the image is static? Respond ONLY with Yes or No."
PROMPT_MOTION_VIDEO = (
    "You are given an video. Watch the video and describe what object or scene you see. Respond with exactly one "
    "word or one short phrase. Do not add extra words or explanations."
)
PROMPT_MULTISCENE_OPEN = (
    "You are given a multi-layer optical illusion image that contains two layers of meaning, where each layer "
    "represents a different interpretation of the same image. List all possible objects or scenes for both layers. "
    "Use short words or phrases and separate two layers with a semicolon ';'. Format your answer strictly as: "
    "'layer1 objects; layer2 objects' Do not add any extra explanation."
)
# Table 7's template bug fixed (PROTOCOL): the queried object in all three slots ("all the possible
# objects ... all the elephants ... no elephant" in Table 7, "all the possible skull" in A.10).
PROMPT_MULTISCENE_LOCALIZATION = (
    "You are a object detection expert. Carefully examine the image and locate the position of all the possible "
    "{object} in the image, provide the bounding box coordinates of all the {object}, the image size is Width: "
    "{width}, Height: {height}. If only one exists in the image, output in the following format: "
    "'[(x_min, y_min, x_max, y_max)]', if multiple exist in the image, output in the following format: "
    "'[(x_min, y_min, x_max, y_max), (x_min, y_min, x_max, y_max), ...]', if no {object} exist in the image, "
    "return 'None'."
)
PROMPT_MULTISCENE_REGION = (
    "You are given a multi-layer optical illusion image that contains two layers of meaning in the green bounding "
    "box, where each layer represents a different interpretation of the same image. Within the **green bounding "
    "box** in the image, list all possible objects or scenes for both layers do not interpret objects outside the "
    "bounding box. Use short words or phrases and separate two layers with a semicolon ';'. Format your answer "
    "strictly as: 'layer1 objects; layer2 objects' Do not add any extra explanation."
)
PROMPT_MIXED_OPEN = (
    "You are given an image that contains one or more 'hidden objects', these objects can only be recognized by "
    "carefully observing their outlines, edges, or subtle shapes. By looking at the image carefully, list all "
    "possible objects or scenes that are hidden in the image. If you can't find any hidden objects, just list all "
    "possible objects or scenes that existing in the image. Use short words or phrases, separate with commas, format "
    "your answer strictly as: 'object1, object2', do not add any extra explanation."
)
PROMPT_MIXED_LOCALIZATION = (
    "You are a object detection expert. You are given an image with some objects existing in the image. Carefully "
    "examine the image and locate the position of the {objects} in the image by providing the bounding box "
    "coordinates, the image size is Width: {width}, Height: {height}. Output exactly in the following format: "
    "'[(x_min, y_min, x_max, y_max)]', do not add any extra explanation. If you can't find {objects} in the image, "
    "return 'None'."
)
# Table 7 prints this one with typographic quotes around the semicolon; kept as printed.
PROMPT_MIXED_REGION = (
    "You are given an multi-layer optical illusion image that contains two layers of meaning in the green bounding "
    "box, where each layer represents a different interpretation of the same image. Within the **green bounding "
    "box** in the image, list all possible objects or scenes for both layers do not interpret objects outside green "
    "bounding box. Use short words or phrases and separate two layers with a semicolon \u2018;\u2019. Format your "
    "answer strictly as: \u2018layer1 objects; layer2 objects\u2019 Do not add any extra explanation."
)

# ----------------------------------------------------------------------------- per-model settings

# Coordinate systems models answer boxes in (PROTOCOL; core/coords.py). lmms-eval model names.
# qwen_resized uses lmms-eval 0.7's qwen2_5_vl defaults; change them with your --model_args.
MODEL_BOX_FORMATS: dict[str, dict[str, Any]] = {
    "qwen2_5_vl": {"box_format": "qwen_resized", "min_pixels": 256 * 28 * 28, "max_pixels": 1605632},
    "qwen3_vl": {"box_format": "norm1000"},
    "internvl2": {"box_format": "norm1000"},
    "internvl3": {"box_format": "norm1000"},
    "internvl3_5": {"box_format": "norm1000"},
}


# ----------------------------------------------------------------------------- tasks


@dataclass(frozen=True)
class TaskSpec:
    """One AmbiBench task: records ``<data>.jsonl`` of ``ambi://ambibench``, a prompt, metrics, a paper column."""

    name: str
    category: str
    task_type: str
    answer_format: str
    prompt: str
    views: tuple[str, ...]  # positional views, each reported as acc_<view>
    paper: str
    prompt_note: str = "Table 7, verbatim"
    extra_prompts: Mapping[str, str] = field(default_factory=dict)
    settings: Mapping[str, Any] = field(default_factory=dict)
    breakdown: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # field -> values (by_<field>)
    per_model_boxes: bool = False
    max_new_tokens: int | None = None

    @property
    def data(self) -> str:
        """The records name (``dataset_name``): the task name without the ``ambibench_`` prefix."""
        return self.name[len(TASK_PREFIX) :]

    @property
    def process_results(self) -> str | None:
        """The breakdown ``process_results`` function, when the task reports metrics by record fields."""
        return "ambi_plugin.runtime.breakdown.by_" + "_and_".join(self.breakdown) if self.breakdown else None

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metric names the task reports, in the order ``core.scoring.metric_names`` gives them."""
        from ambi_plugin.core.scoring import BREAKDOWN_BASES, METRICS_BY_TYPE

        names = list(METRICS_BY_TYPE[self.task_type])
        names[1:1] = [f"acc_{v}" for v in self.views]
        for values in self.breakdown.values():
            for value in values:
                names += [f"{base}_{value}" for base in BREAKDOWN_BASES[self.task_type]]
        return tuple(dict.fromkeys(names))


TASKS: tuple[TaskSpec, ...] = (
    TaskSpec(
        "ambibench_nonambi_open", "nonambi", "open", "object", PROMPT_NONCAMO, (),
        "Table 1 Non-Ambi. (MS-COCO baseline)", "Table 7 Noncamo, verbatim",
    ),
    TaskSpec(
        "ambibench_camouflaged_open", "camouflaged", "open", "object", PROMPT_CAMO, (), "Table 1 Camo.",
        "Table 7 Camo, verbatim",
    ),
    TaskSpec(
        "ambibench_bistable_open", "bistable", "open", "comma_list", PROMPT_BISTABLE_OPEN, (),
        "Table 1 Bistable open",
    ),
    TaskSpec(
        "ambibench_bistable_choice", "bistable", "multi_choice", "letter_set", PROMPT_BISTABLE_CHOICE,
        (), "Table 1 Bistable choice (chance 10%)",
        "Table 7, verbatim; the example's choices become {choices}",
    ),
    TaskSpec(
        "ambibench_hybrid_open", "hybrid", "open", "comma_list", PROMPT_HYBRID, ("near", "far", "very_far"),
        "Table 1 Hybrid; Table 12 Hybrid Combined / Near / Far",
        "Table 7, verbatim; triple hybrids: prompt_triple (ours)",
        extra_prompts={"prompt_triple": PROMPT_HYBRID_TRIPLE},
    ),
    TaskSpec(
        "ambibench_color_open", "color", "open", "comma_list", PROMPT_COLOR, ("color", "gray"),
        "Table 1 Color; Table 12 Color Combined / Color / Gray",
    ),
    TaskSpec(
        "ambibench_multiview_open", "multiview", "open", "comma_list", PROMPT_MULTIVIEW, ("upright", "rotated"),
        "Table 1 Multi-view; Table 12 Multi-view Combined / w/o Rotation / w Rotation",
    ),
    TaskSpec(
        "ambibench_geometric_yes_no", "geometric", "yes_no", "yes_no", PROMPT_GEOMETRIC, (),
        "Table 1 Geometric", "Table 7, verbatim, with the item's question",
    ),
    TaskSpec(
        "ambibench_motion_image_yes_no", "motion", "yes_no", "yes_no", PROMPT_MOTION_IMAGE, (),
        "Table 1 Motion image; Table 14 Motion (ours)",
    ),
    TaskSpec(
        "ambibench_motion_static_yes_no", "motion", "yes_no", "yes_no", PROMPT_MOTION_STATIC, (),
        "Table 14 Motion (static prompt)", "ours (A.7 describes it, does not print it)",
    ),
    TaskSpec(
        "ambibench_motion_coco_yes_no", "motion", "yes_no", "yes_no", PROMPT_MOTION_IMAGE, (),
        "Table 14 COCO image (static control)", "Table 7 motion image prompt, verbatim",
    ),
    TaskSpec(
        "ambibench_motion_video_open", "motion", "open", "object", PROMPT_MOTION_VIDEO, (),
        "Table 1 Motion video", settings={"video_frames": VIDEO_FRAMES},
    ),
    TaskSpec(
        "ambibench_multiscene_open", "multiscene", "open", "layers", PROMPT_MULTISCENE_OPEN,
        ("layer1", "layer2"), "Table 2 Multi-scene Open",
    ),
    TaskSpec(
        "ambibench_multiscene_localization", "multiscene", "localization", "boxes", PROMPT_MULTISCENE_LOCALIZATION,
        (), "Table 2 Multi-scene loc(single) / loc(combined)",
        "Table 7, verbatim, template bug fixed (the object in all three slots)",
        breakdown={"group": ("single", "combined")}, per_model_boxes=True, max_new_tokens=512,
    ),
    TaskSpec(
        "ambibench_multiscene_region", "multiscene", "region", "layers", PROMPT_MULTISCENE_REGION,
        ("layer1", "layer2"), "Table 2 Multi-scene Region",
    ),
    TaskSpec(
        "ambibench_mixed_open", "mixed", "open", "comma_list", PROMPT_MIXED_OPEN, (), "Table 2 Mixed Open",
    ),
    TaskSpec(
        "ambibench_mixed_localization", "mixed", "localization", "boxes", PROMPT_MIXED_LOCALIZATION, (),
        "Table 2 Mixed localization", "Table 7, verbatim, with the item's objects",
        per_model_boxes=True, max_new_tokens=512,
    ),
    TaskSpec(
        "ambibench_mixed_region", "mixed", "region", "layers", PROMPT_MIXED_REGION, ("layer1", "layer2"),
        "Table 2 Mixed Region",
    ),
)  # fmt: skip

TASKS_BY_NAME: dict[str, TaskSpec] = {t.name: t for t in TASKS}
TASKS_BY_DATA: dict[str, TaskSpec] = {t.data: t for t in TASKS}
ALL_GROUP = "ambibench_all"


def group_name(category: str) -> str:
    return f"{TASK_PREFIX}{category}"


def groups() -> dict[str, list[str]]:
    """One group per category (``ambibench_<category>``), in :data:`CATEGORIES` order."""
    return {group_name(c): [t.name for t in TASKS if t.category == c] for c in CATEGORIES}


def region_line_width(width: int, height: int) -> int:
    """Width of the green region box for an image of this size (our choice, see :data:`GREEN_RGB`)."""
    return max(GREEN_MIN_WIDTH, round(GREEN_WIDTH_FRACTION * max(width, height)))


def draw_region(image, region: list[float]):
    """A copy of ``image`` (PIL) with the region drawn as the green box; returns (image, region_style)."""
    from PIL import ImageDraw

    out = image.convert("RGB").copy()
    width = region_line_width(out.width, out.height)
    x1, y1, x2, y2 = (round(float(v)) for v in region)
    ImageDraw.Draw(out).rectangle([x1, y1, x2, y2], outline=GREEN_RGB, width=width)
    return out, {"rgb": list(GREEN_RGB), "width": width, "drawn_by": "ambi-plugin"}


def materialize_from_hub(source: str | None = None, *, revision: str | None = None) -> Path:
    """The authors' release ``BLNL/AmbiBench`` (or ``$AMBI_AMBIBENCH_HUB``: another repo id, or a local folder laid
    out as the Hub repo) from the HF Hub or its offline cache, converted once into a canonical-schema folder in the
    cache (``ambi_plugin.benchmarks.ambibench.release``)."""
    from ambi_plugin.benchmarks.ambibench.release import materialize_from_hub as from_release

    source = source or os.environ.get("AMBI_AMBIBENCH_HUB")
    if source and (Path(source).expanduser() / "build_info.json").is_file():
        from ambi_plugin.benchmarks.built import materialize_built  # our own published layout (parquet)

        return materialize_built(source, revision=revision)
    return from_release(source, revision=revision)


def materialize_local(path: Path) -> Path:
    """A configured local copy (``$AMBI_AMBIBENCH_DIR``): the release as downloaded (a folder with
    ``metadata.jsonl``, or its zip) is converted once; a canonical folder is used as it is."""
    from ambi_plugin.benchmarks.ambibench.release import is_release, materialize_release

    path = Path(path).expanduser()
    if is_release(path):
        return materialize_release(path)
    if not path.is_dir():
        raise FileNotFoundError(
            f"the local copy of ambibench is configured as {str(path)!r}, which is neither a folder nor a .zip"
        )
    return path


def import_jsonl(jsonl: Path, images: Path, out: Path, *, layout: str = "release") -> dict[str, int]:
    """``ambi import ambibench``: rows (a JSONL file or folder, media relative to ``images``) -> canonical folder.

    ``layout="visual_anagrams"``: ``jsonl`` is the gallery's labels.json (multi-view records)."""
    from ambi_plugin.benchmarks.ambibench.importer import import_release, import_visual_anagrams

    if layout == "visual_anagrams":
        folder = import_visual_anagrams(images, out, labels=jsonl)
    elif layout == "release":
        folder = import_release(images, out, annotations=jsonl, progress=True)
    else:
        raise ValueError(f"Expected argument `layout` to be one of ('release', 'visual_anagrams') but got {layout!r}")
    return dict(json.loads((Path(folder) / "manifest.json").read_text())["records"])


__all__ = [
    "ALL_GROUP",
    "BENCHMARK",
    "CATEGORIES",
    "GREEN_RGB",
    "MODEL_BOX_FORMATS",
    "TASKS",
    "TASKS_BY_DATA",
    "TASKS_BY_NAME",
    "TaskSpec",
    "VIDEO_FRAMES",
    "draw_region",
    "group_name",
    "groups",
    "import_jsonl",
    "materialize_from_hub",
    "materialize_local",
    "region_line_width",
]
