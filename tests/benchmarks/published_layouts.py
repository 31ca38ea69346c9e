"""Fixtures in the layouts the benchmarks' authors (and the Hub) publish, written by the tests.

* :func:`ambibench_release`: ``BLNL/AmbiBench``'s image folder (``test/metadata.jsonl`` with ``question``,
  ``answer``, ``file_name``, ``bbox``, ``type``; ``.png`` placeholder names for motion videos) made from the
  canonical AmbiBench fixtures, plus the dirty rows a real copy can hold;
* :func:`illusionbench_release`: the authors' ``Image_properties.json`` + ``IllusionDataset.zip``, with the quirks
  third-party loaders report (option markers up to ``vi``, answers not among the options, images missing from the
  zip, macOS ``._`` files, U+FFFD, a missing ``Difficult Level`` or ``Category``);
* :func:`illusionbench_lmms_copy`: the same entries as lmms-eval's ``tasks/illusionbench/convert_dataset.py`` writes
  them for its ``lmms-lab-eval/IllusionBench`` copy (one parquet row per question, ``category`` "A" / "B" / "C" or
  "Unknown", integer ``difficulty_level`` with 0 when missing, ``question_id`` = ``<image_name>_<running number>``,
  images missing from the zip left out, no descriptions);
* :func:`hub_cache`: a folder laid out as the HF Hub cache lays out a downloaded dataset repo, so loaders run with
  ``HF_HUB_OFFLINE=1`` exactly as a user's cached download does.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

from PIL import Image

from ambi_plugin.benchmarks import ambibench as AB
from ambi_plugin.core.schema import read_records

# One label per task, in the card's "category + task type" style (several spellings, as a real copy may have).
AMBIBENCH_TYPES = {
    "nonambi_open": "Non-camouflaged",
    "camouflaged_open": "Camouflaged_open",
    "bistable_open": "Bistable_open",
    "bistable_choice": "Bistable_multiple-choice",
    "hybrid_open": "Hybrid",
    "color_open": "Color",
    "multiview_open": "Multi-view",
    "geometric_yes_no": "Geometric",
    "motion_image_yes_no": "Motion_image",
    "motion_coco_yes_no": "Motion_COCO",
    "motion_video_open": "motion_video",
    "multiscene_open": "Multi-scene_open",
    "multiscene_localization": "Multi-scene_localization",
    "multiscene_region": "Multi-scene_region",
    "mixed_open": "Mixed_open",
    "mixed_localization": "Mixed_localization",
    "mixed_region": "Mixed_region description",
}

# Dirty rows every AmbiBench loader must report, skip and count: (row, reason kind)
AMBIBENCH_DIRTY = [
    ({"question": "q", "answer": "cat", "file_name": "dirty_type.png", "bbox": [], "type": "Surreal_open"}, "unknown type"),
    ({"question": "q", "answer": "cat", "file_name": "no_such_image.png", "bbox": [], "type": "Camouflaged_open"},
     "missing media"),
    ({"question": "q", "answer": "", "file_name": "dirty_empty.png", "bbox": [], "type": "Camouflaged_open"},
     "empty answer"),
    ({"question": "Locate the skull.", "answer": "skull", "file_name": "dirty_nobox.png", "bbox": [],
      "type": "Mixed_localization"}, "no bbox"),
    ({"question": "Choices: A: cat, B: dog, C: None Your answer:", "answer": "horse", "file_name": "dirty_choice.png",
      "bbox": [], "type": "Bistable_multiple-choice"}, "answer not among the options"),
    # a category with a task word it does not have: an unknown type, never mapped near
    ({"question": "Choices: A: cat, B: dog, C: None", "answer": "A", "file_name": "dirty_hybrid_choice.png", "bbox": [],
      "type": "Hybrid_multiple-choice"}, "unknown type"),
    ({"question": "Is it moving?", "answer": "No", "file_name": "dirty_static.png", "bbox": [], "type": "Motion_static"},
     "unknown type"),
]  # fmt: skip


def _answer(rec: dict, data: str) -> str:
    t = rec["task_type"]
    if t == "yes_no":
        return "Yes" if rec["answer_bool"] else "No"
    if t == "multi_choice":
        picked = rec["answer_indices"] or [rec["none_index"]]
        return ", ".join(chr(ord("A") + i) for i in picked)
    if t == "localization":
        return str((rec.get("prompt_vars") or {}).get("object") or (rec.get("prompt_vars") or {}).get("objects"))
    firsts = [v["labels"][0].split("|")[0] for v in rec["views"]]
    if data in ("multiscene_open", "multiscene_region", "mixed_region"):
        return "; ".join(", ".join(lbl.split("|")[0] for lbl in v["labels"]) for v in rec["views"])
    if data == "bistable_open":
        return "; ".join(firsts)
    return ", ".join(firsts)


def _question(rec: dict, data: str) -> str:
    if rec["task_type"] == "multi_choice":
        choices = ", ".join(f"{chr(ord('A') + i)}: {o}" for i, o in enumerate(rec["options"]))
        return AB.PROMPT_BISTABLE_CHOICE.format(choices=choices)
    if data == "multiscene_localization":
        return AB.PROMPT_MULTISCENE_LOCALIZATION.format(
            object=rec["prompt_vars"]["object"], width=rec["image_size"][0], height=rec["image_size"][1]
        )
    if data == "mixed_localization":
        return AB.PROMPT_MIXED_LOCALIZATION.format(
            objects=rec["prompt_vars"]["objects"], width=rec["image_size"][0], height=rec["image_size"][1]
        )
    return str(rec.get("question") or AB.TASKS_BY_DATA[data].prompt)


def ambibench_release(canonical: Path, out: Path, *, dirty: bool = True, omit: tuple[str, ...] = ()) -> Path:
    """``out`` laid out as the ``BLNL/AmbiBench`` repo: ``README.md`` + ``test/metadata.jsonl`` + the media; ``omit``
    leaves out the rows of some records names (a copy missing a type)."""
    split = out / "test"
    split.mkdir(parents=True, exist_ok=True)
    rows = []
    for spec in AB.TASKS:
        if spec.data == "motion_static_yes_no" or spec.data in omit:
            continue  # the loader makes the static items from the motion-image rows
        for k, rec in enumerate(read_records(canonical / f"{spec.data}.jsonl")):
            media = rec.get("video") or rec["image"]
            stem = f"{spec.data}_{k:03d}"
            suffix = Path(media).suffix
            name = f"{stem}{suffix}"
            shutil.copyfile(canonical / media, split / name)
            bbox: list = []
            if spec.task_type == "localization":
                boxes = [b["box"] for b in rec["boxes"]]
                bbox = boxes[0] if len(boxes) == 1 else boxes
            elif spec.task_type == "region":
                bbox = rec["region"]
            rows.append(
                {
                    "question": _question(rec, spec.data),
                    "answer": _answer(rec, spec.data),
                    # the card: motion-video rows name .png placeholders for their .mp4 files
                    "file_name": f"{stem}.png" if spec.data == "motion_video_open" else name,
                    "bbox": bbox,
                    "type": AMBIBENCH_TYPES[spec.data],
                }
            )
    if dirty:
        for row, _ in AMBIBENCH_DIRTY:
            if not row["file_name"].startswith("no_such"):
                Image.new("RGB", (32, 24), (200, 190, 180)).save(split / row["file_name"])
            rows.append(row)
    (split / "metadata.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (out / "README.md").write_text("---\nlicense: mit\n---\n# AmbiBench Metadata\n", encoding="utf-8")
    return out


def hub_cache(cache: Path, repo_id: str, files: Path, *, commit: str | None = None) -> Path:
    """Lay ``files`` (a repo's content) out under ``cache`` as huggingface_hub caches a downloaded dataset repo:
    ``datasets--<owner>--<name>/{refs/main, snapshots/<commit>/..., blobs/}``. Returns ``cache`` (HF_HUB_CACHE)."""
    repo_dir = Path(cache) / ("datasets--" + repo_id.replace("/", "--"))
    commit = commit or hashlib.sha1(repo_id.encode()).hexdigest()
    snap = repo_dir / "snapshots" / commit
    blobs = repo_dir / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    for src in sorted(p for p in Path(files).rglob("*") if p.is_file()):
        data = src.read_bytes()
        blob = blobs / hashlib.sha256(data).hexdigest()
        if not blob.exists():
            blob.write_bytes(data)
        dst = snap / src.relative_to(files)
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.symlink_to(Path("../" * (len(dst.relative_to(repo_dir).parts) - 1)) / "blobs" / blob.name)
    (repo_dir / "refs").mkdir(parents=True, exist_ok=True)
    (repo_dir / "refs" / "main").write_text(commit)
    return Path(cache)


# ----------------------------------------------------------------------------- IllusionBench


def _png(path: Path, seed: int) -> None:
    Image.new("RGB", (40, 30), ((seed * 37) % 256, (seed * 91) % 256, 120)).save(path)


def illusionbench_entries() -> list[dict]:
    """Image_properties.json entries: clean ones for every letter category and question type, plus dirty rows."""
    entries = []
    for i, (cat, level) in enumerate([("A", 1), ("A", 2), ("B", 3), ("B", 1), ("C", 2), ("C", 3)]):
        name = f"illusion_{i:02d}.png"
        entries.append(
            {
                "image_property": {
                    "image_name": name,
                    "Category": cat,
                    "Difficult Level": level,
                    "Description": f"There is a visual illusion: two lines of equal length look different ({i}).",
                },
                "qa_data": [
                    {"Question": f"The two lines in image {i} have the same length.", "Question Type": "TF",
                     "Correct Answer": "True" if i % 2 == 0 else "False"},
                    {"Question": f"What is shown in image {i}? i. A hat ii. A t-shirt iii. A cup iv. A dog",
                     "Question Type": "select", "Correct Answer": "ii. A t-shirt" if i % 2 else "A cup"},
                ],
            }
        )  # fmt: skip
    # dirty: more than four options (markers up to vi); an answer among no option; a missing image; U+FFFD
    entries[0]["qa_data"].append(
        {"Question": "Which? i. a ii. b iii. c iv. d v. e vi. f", "Question Type": "select", "Correct Answer": "vi. f"}
    )
    entries[1]["qa_data"].append(
        {"Question": "Which? i. red ii. blue iii. green iv. gray", "Question Type": "select", "Correct Answer": "pink"}
    )
    entries[2]["qa_data"].append(
        {"Question": "The circles are the same size.", "Question Type": "TF", "Correct Answer": "Maybe"}
    )
    entries[3]["qa_data"].append(
        {"Question": "The lines are parall\ufffdl.", "Question Type": "TF", "Correct Answer": "True"}
    )
    entries.append(
        {
            "image_property": {"image_name": "missing_from_zip.png", "Category": "B", "Difficult Level": 2,
                               "Description": "A missing picture."},
            "qa_data": [{"Question": "It moves.", "Question Type": "TF", "Correct Answer": "False"}],
        }
    )  # fmt: skip
    # kept with the breakdown value "unknown": no "Difficult Level" (lmms-eval's converter writes 0), no "Category"
    # (the converter writes "Unknown")
    entries.append(
        {
            "image_property": {"image_name": "no_level.png", "Category": "A", "Description": "Lines that bend (6)."},
            "qa_data": [{"Question": "The lines are straight.", "Question Type": "TF", "Correct Answer": "True"}],
        }
    )
    entries.append(
        {
            "image_property": {"image_name": "no_category.png", "Difficult Level": 2, "Description": "A vase (7)."},
            "qa_data": [{"Question": "Two faces look at each other.", "Question Type": "TF", "Correct Answer": "True"}],
        }
    )
    return entries


# lmms-eval's converter (tasks/illusionbench/convert_dataset.py, EvolvingLMMs-Lab/lmms-eval pull request #1035):
# the defaults it writes for a missing "Category" / "Difficult Level"
LMMS_MISSING_CATEGORY = "Unknown"
LMMS_MISSING_LEVEL = 0


def illusionbench_release(out: Path) -> Path:
    """``out`` laid out as the authors' Hub repo: ``Image_properties.json`` + ``IllusionDataset.zip``."""
    out.mkdir(parents=True, exist_ok=True)
    entries = illusionbench_entries()
    (out / "Image_properties.json").write_text(json.dumps(entries, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp = out / ".images"
    tmp.mkdir(exist_ok=True)
    with zipfile.ZipFile(out / "IllusionDataset.zip", "w") as zf:
        for i, e in enumerate(entries):
            name = e["image_property"]["image_name"]
            if name.startswith("missing"):
                continue
            _png(tmp / name, i)
            zf.write(tmp / name, f"IllusionDataset/{name}")
            zf.writestr(f"__MACOSX/IllusionDataset/._{name}", b"\x00\x05\x16\x07")  # macOS resource forks
            zf.writestr(f"IllusionDataset/._{name}", b"\x00\x05\x16\x07")
    shutil.rmtree(tmp)
    (out / "README.md").write_text("---\nlicense: cc-by-4.0\n---\n# IllusionBench\n", encoding="utf-8")
    return out


def lmms_illusionbench_features():
    """The columns and types of lmms-lab's IllusionBench copy (as its converter writes them)."""
    import datasets

    return datasets.Features(
        {
            "image": datasets.Image(),
            "question": datasets.Value("string"),
            "answer": datasets.Value("string"),
            "question_type": datasets.Value("string"),
            "category": datasets.Value("string"),
            "question_id": datasets.Value("string"),
            "image_name": datasets.Value("string"),
            "difficulty_level": datasets.Value("int32"),
        }
    )


def illusionbench_lmms_copy(out: Path) -> Path:
    """``out`` laid out as lmms-eval's ``lmms-lab-eval/IllusionBench`` copy (``data/test-*.parquet`` + README), its
    rows made from :func:`illusionbench_entries` the way lmms-eval's converter makes them."""
    import datasets

    rows = []
    counter = 0
    for i, entry in enumerate(illusionbench_entries()):
        prop = entry["image_property"]
        name = prop["image_name"]
        if name.startswith("missing"):
            continue  # the converter leaves out images missing from the zip
        tmp = out / ".img.png"
        tmp.parent.mkdir(parents=True, exist_ok=True)
        _png(tmp, i)
        image = Image.open(tmp).convert("RGB")
        for qa in entry["qa_data"]:
            rows.append(
                {
                    "image": image,
                    "question": qa["Question"],
                    "answer": qa["Correct Answer"],
                    "question_type": qa["Question Type"],
                    "category": prop.get("Category", LMMS_MISSING_CATEGORY),
                    "question_id": f"{name}_{counter}",
                    "image_name": name,
                    "difficulty_level": prop.get("Difficult Level", LMMS_MISSING_LEVEL),
                }
            )
            counter += 1
        tmp.unlink()
    features = lmms_illusionbench_features()
    (out / "data").mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_list(rows, features=features).to_parquet(str(out / "data" / "test-00000-of-00001.parquet"))
    (out / "README.md").write_text("---\nlicense: cc-by-nc-4.0\n---\n# IllusionBench (lmms-eval layout)\n")
    return out
