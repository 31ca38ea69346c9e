"""VIA-Bench test data: a local copy holding the real public challenge split (``../shared/data/via_bench_val``,
249 questions and images, no answers) and small generated fixtures in the canonical schema, three questions per
category with answers, so every per-category task runs offline."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from ambi_plugin.benchmarks.viabench import spec as S
from ambi_plugin.benchmarks.viabench.release import import_challenge
from ambi_plugin.core.schema import write_dataset

# (question, options without "Not Sure", gold index, question_negated or None) per fixture item
ITEMS: tuple[tuple[str, list[str], int, str | None], ...] = (
    ("How many fingers are in the image?", ["Five fingers", "Six fingers", "Four fingers"], 1, None),
    ("Are the two discs the same color?", ["Yes", "No"], 0, "Are the two discs different colors?"),
    ("Which shape is drawn in the image?", ["A triangle", "A disc", "A square"], 1, None),
)


def _image(path: Path, k: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    im = Image.new("RGB", (64, 48), ((40 * k) % 256, (90 * k) % 256, (50 * k + 70) % 256))
    ImageDraw.Draw(im).ellipse((16, 12, 40, 36), fill=(255, 255, 255))
    im.save(path)


def fixture_records() -> dict[str, list[dict]]:
    """{``viabench_<cat>``: three records} with answers, categories and "Not Sure" last."""
    out: dict[str, list[dict]] = {}
    k = 0
    for cat in S.CATEGORIES:
        recs = []
        for j, (question, options, gold, negated) in enumerate(ITEMS):
            k += 1
            rec = {
                "id": f"{cat}-{j}",
                "benchmark": S.BENCHMARK,
                "category": cat,
                "task_type": "choice",
                "image": f"images/fixture_{cat}_{j}.png",
                "question": question,
                "options": [*options, S.NOT_SURE],
                "option_style": "letter",
                "answer_format": "letter",
                "answer_index": gold,
                "not_sure_index": len(options),
                "breakdown": {"category": cat},
                "source": "ambi-plugin test fixture",
            }
            if negated:
                rec["question_negated"] = negated
            recs.append(rec)
        out[S.records_name(cat)] = recs
    return out


def build_copy(root: Path, shared_data: Path) -> Path:
    """A local copy (``AMBI_VIABENCH_DIR``): the real val split imported as published, plus the fixtures."""
    val = shared_data / "via_bench_val"
    import_challenge(val / "val.json", val / "images", root)
    recs = fixture_records()
    k = 0
    for items in recs.values():
        for rec in items:
            k += 1
            _image(root / rec["image"], k)
    write_dataset(root, recs)
    return root
