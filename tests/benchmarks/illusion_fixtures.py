"""Generated fixtures for the IllusionBench and IllusionVQA tests: stand-in images, per-image IllusionBench
rows covering every category and difficulty, IllusionVQA local copies built from the real released
questions (``../shared/data/illusionvqa``), and folders laid out like the Hub releases."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from PIL import Image, ImageDraw
from published_layouts import lmms_illusionbench_features

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.benchmarks import illusionvqa as IV

SHARED_IVQA = ("illusionvqa/comprehension_test_435.jsonl", "illusionvqa/soft_localization_test_1000.jsonl")


def stand_in(path: Path, k: int, size: tuple[int, int] = (96, 64)) -> None:
    """A small generated image (a coloured rectangle and a disc), distinct per ``k``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    im = Image.new("RGB", size, ((37 * k) % 256, (91 * k) % 256, (53 * k + 80) % 256))
    d = ImageDraw.Draw(im)
    d.ellipse((size[0] // 4, size[1] // 4, size[0] // 2, size[1] // 2), fill=(255, 255, 255))
    im.save(path)


# ----------------------------------------------------------------------------- IllusionBench


def illusionbench_rows() -> list[dict]:
    """Per-image rows: every (category, difficulty) pair, two statements (one True, one False), two MC
    questions, a golden description with offline cues."""
    rows = []
    k = 0
    for cat in IB.CATEGORIES:
        for diff in IB.DIFFICULTIES:
            k += 1
            name = f"{cat}_{diff}.png"
            rows.append(
                {
                    "image": name,
                    "category": cat.replace("_", " "),
                    "difficulty": diff.capitalize(),
                    "true_false": [
                        {"statement": f"There is a visual illusion in image {k}.", "answer": cat != "no_illusion"},
                        {"statement": f"The disc in image {k} is square.", "answer": False},
                    ],
                    "multiple_choice": [
                        {
                            "question": f"What shape is drawn in image {k}?",
                            "options": ["A disc", "A square", "A triangle", "A star"],
                            "answer": 0,
                        },
                        {
                            "question": f"What colour is the disc in image {k}?",
                            "options": ["Black", "White", "Red", "Green"],
                            "answer": "White",
                        },
                    ],
                    "description": f"In this picture, a white disc lies on a coloured rectangle (image {k}). "
                    + (
                        "There is no visual illusion in the image."
                        if cat == "no_illusion"
                        else "There is a visual illusion in the image."
                    ),
                    "key_terms": ["disc|circle"],
                    "conflict_terms": ["square"],
                }
            )
    return rows


def write_illusionbench_source(root: Path) -> tuple[Path, Path]:
    """The per-image JSONL and its image folder (the importer's input)."""
    images = root / "src_images"
    rows = illusionbench_rows()
    for k, row in enumerate(rows):
        stand_in(images / row["image"], k, size=(700, 300) if k % 2 else (120, 90))
    jsonl = root / "illusionbench.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return jsonl, images


def illusionbench_copy(root: Path) -> Path:
    """A canonical local copy (what AMBI_ILLUSIONBENCH_DIR points at)."""
    jsonl, images = write_illusionbench_source(root)
    out = root / "illusionbench"
    IB.import_jsonl(jsonl, images, out)
    return out


# ----------------------------------------------------------------------------- IllusionVQA

# Four few-shot examples written for the tests (the real ones are in the Hub's train split).
COMPREHENSION_SHOTS = [
    {"image": "shot_impossible.png", "category": "impossible object", "question": "What is unusual about this image?",
     "options": ["Nothing.", "The triangle is geometrically impossible."], "answer": "The triangle is geometrically impossible."},
    {"image": "shot_real.png", "category": "real-scene", "question": "Describe this image.",
     "options": ["A man holds the tower.", "A man poses so he seems to hold the tower.", "The tower is tiny."],
     "answer": "A man poses so he seems to hold the tower."},
    {"image": "shot_size.png", "category": "size", "question": "Which line is longer?",
     "options": ["The upper line.", "The lower line.", "They are the same length."], "answer": "They are the same length."},
    {"image": "shot_hidden.png", "category": "hidden", "question": "What is hidden in this image?",
     "options": ["A cat.", "A face.", "Nothing.", "A tree."], "answer": "A face."},
]  # fmt: skip
SOFT_SHOTS = [
    {"image": f"shot_{i}.png", "question": "Which object is geometrically impossible?", "options": list(IV.SOFT_LOCALIZATION_OPTIONS),
     "answer": IV.SOFT_LOCALIZATION_OPTIONS[i], "category": "soft_localization"}
    for i in (1, 0, 3, 2)
]  # fmt: skip


def shared_rows(shared_data: Path, task: str) -> list[dict]:
    path = shared_data / SHARED_IVQA[0 if task == "comprehension" else 1]
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()]


def illusionvqa_copy(root: Path, shared_data: Path) -> Path:
    """A canonical local copy of both tasks from the real released questions, with generated images and
    the test-written few-shot examples (what AMBI_ILLUSIONVQA_DIR points at)."""
    out = root / "illusionvqa"
    for task, shots in (("comprehension", COMPREHENSION_SHOTS), ("soft_localization", SOFT_SHOTS)):
        src = root / f"ivqa_{task}"
        rows = shared_rows(shared_data, task)
        for k, name in enumerate(sorted({r["image"] for r in rows})):
            stand_in(src / "images" / name, k, size=(1024, 400) if k % 3 == 0 else (64, 48))
        for k, shot in enumerate(shots):
            stand_in(src / "shots" / shot["image"], 100 + k)
        (src / "shots.jsonl").write_text("".join(json.dumps(s) + "\n" for s in shots))
        IV.import_jsonl(
            shared_data / SHARED_IVQA[0 if task == "comprehension" else 1],
            src / "images",
            out,
            task=task,
            fewshot_jsonl=src / "shots.jsonl",
            fewshot_images=src / "shots",
        )
    return out


# ----------------------------------------------------------------------------- Hub-like folders


def _write_parquet(folder: Path, split: str, rows: list[dict], features) -> None:
    import datasets

    folder.mkdir(parents=True, exist_ok=True)
    ds = datasets.Dataset.from_list(rows, features=features)
    ds.to_parquet(str(folder / f"{split}-00000-of-00001.parquet"))


def illusionvqa_hub_folder(root: Path, shared_data: Path, task: str, *, n: int | None = None) -> Path:
    """A folder laid out as the csebuetnlp Hub release (``data/{train,test}-*.parquet`` + README), images
    generated; ``n`` limits the test split to its first n questions."""
    import datasets

    hub = root / f"hub_{task}"
    rows = shared_rows(shared_data, task)[:n]
    features = datasets.Features(
        {
            "image": datasets.Image(),
            "question": datasets.Value("string"),
            "options": datasets.Sequence(datasets.Value("string")),
            "answer": datasets.Value("string"),
            "category": datasets.Value("string"),
            "id": datasets.Value("int64"),
        }
    )

    def row(r: dict, k: int, rid: int) -> dict:
        im = Image.new("RGB", (40 + k % 7, 30), (k % 256, 100, 150))
        return {"image": im, "question": r["question"], "options": r["options"], "answer": r["answer"],
                "category": r.get("category", "soft_localization"), "id": rid}  # fmt: skip

    test = [row(r, k, int(r["id"])) for k, r in enumerate(rows)]
    shots = COMPREHENSION_SHOTS if task == "comprehension" else SOFT_SHOTS
    train = [row(s, 200 + k, k) for k, s in enumerate(shots)]
    _write_parquet(hub / "data", "test", test, features)
    _write_parquet(hub / "data", "train", train, features)
    (hub / "README.md").write_text(f"---\nlicense: cc-by-nc-sa-4.0\n---\n# IllusionVQA {task} (test fixture)\n")
    return hub


def illusionbench_lmms_hub_folder(root: Path) -> tuple[Path, list[dict]]:
    """A folder laid out as lmms-eval's converted copy (one row per question, options inline in the
    question, ``question_type`` TF / select, integer ``difficulty_level``). Returns it and its rows."""

    hub = root / "hub_illusionbench"
    spelled = {
        "classic": "Classic Cognitive Illusion",
        "real_scene": "Real Scene Illusion",
        "no_illusion": "No Illusion",
        "ishihara": "Ishihara Images",
        "trap": "Trap Illusion",
    }
    rows, plain = [], []
    for k, src in enumerate(illusionbench_rows()):
        cat = IB.normalize_category(src["category"])
        level = IB.DIFFICULTIES.index(IB.normalize_difficulty(src["difficulty"])) + 1
        im = Image.new("RGB", (50, 40), (k * 10, 20, 200))
        for j, tf in enumerate(src["true_false"]):
            plain.append({"question": tf["statement"], "answer": "True" if tf["answer"] else "False",
                          "question_type": "TF", "category": spelled[cat], "question_id": f"{src['image']}_{2 * j}",
                          "image_name": src["image"], "difficulty_level": level})  # fmt: skip
        for j, mc in enumerate(src["multiple_choice"]):
            labels = ["i", "ii", "iii", "iv"]
            inline = " ".join(f"{lab}. {o}" for lab, o in zip(labels, mc["options"]))
            gold = mc["answer"] if isinstance(mc["answer"], int) else mc["options"].index(mc["answer"])
            plain.append({"question": f"{mc['question']} {inline}", "answer": labels[gold], "question_type": "select",
                          "category": spelled[cat], "question_id": f"{src['image']}_{2 * j + 1}",
                          "image_name": src["image"], "difficulty_level": level})  # fmt: skip
        rows.extend({**p, "image": im} for p in plain[len(rows) :])
    features = lmms_illusionbench_features()
    _write_parquet(hub / "data", "test", rows, features)
    (hub / "README.md").write_text(
        "---\nlicense: cc-by-nc-4.0\n---\n# IllusionBench, lmms-eval layout (test fixture)\n"
    )
    return hub, plain


# ----------------------------------------------------------------------------- answers with known accuracy

FORMS = ("{l}", "({L})", "Answer: {L}", "The answer is {L}", "{l}.", "{text}")


def _reply(row: dict, index: int, k: int) -> str:
    letter = "abcdefgh"[index]
    return FORMS[k % len(FORMS)].format(l=letter, L=letter.upper(), text=row["options"][index])


def constructed_answers(rows: list[dict]) -> tuple[list[dict], dict[str, int], int]:
    """Per class j (paper order), the first floor(n_j * (j + 1) / 13) questions answered right in a mix of
    accepted forms, the rest wrong (another option's label), three of them unreadable."""
    by_class = defaultdict(list)
    for r in rows:
        by_class[IV.fold_category(r["category"])].append(r)
    answers, right, unreadable = [], {}, 0
    for j, cat in enumerate(IV.CATEGORIES):
        members = by_class[cat]
        k_right = len(members) * (j + 1) // 13
        right[cat] = k_right
        for k, r in enumerate(members):
            gold = r["options"].index(r["answer"])
            if k < k_right:
                reply = _reply(r, gold, k)
            elif k == k_right and unreadable < 3:
                reply, unreadable = "I am not sure.", unreadable + 1
            else:
                reply = "abcdefgh"[(gold + 1) % len(r["options"])].upper()
            answers.append({"id": r["id"], "response": reply})
    return answers, right, unreadable
