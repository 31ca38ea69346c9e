"""IllusionVQA on the real released questions (435 + 1000) with generated stand-in images: category fold,
Table 4 / Table 5 counts, prompts (0-shot, 4-shot, 4-shot + CoT), preprocessing and answer reading."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from illusion_fixtures import COMPREHENSION_SHOTS, illusionvqa_copy, illusionvqa_hub_folder, shared_rows

from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.core.answers import gold_response, wrong_response
from ambi_plugin.core.scoring import aggregate, metric_names, score_item
from ambi_plugin.data.sources import harness_rows
from ambi_plugin.runtime.hooks import doc_to_text, doc_to_visual
from ambi_plugin.runtime.taskindex import index

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


@pytest.fixture(scope="module")
def copy(tmp_path_factory, shared_data) -> Path:
    return illusionvqa_copy(tmp_path_factory.mktemp("ivqa"), shared_data)


def _docs(copy: Path, name: str) -> list[dict]:
    from ambi_plugin.core.schema import read_records

    return harness_rows(read_records(copy / f"{name}.jsonl"), copy)


def _kwargs(task: str) -> dict:
    return index()[task].config["lmms_eval_specific_kwargs"]["default"]


# ----------------------------------------------------------------------------- the released data


def test_sixteen_fine_classes_fold_into_the_papers_twelve(shared_data):
    rows = shared_rows(shared_data, "comprehension")
    assert len(rows) == 435 and len({r["image"] for r in rows}) == 370
    assert len({r["category"] for r in rows}) == 16
    for r in rows:
        want = "miscellaneous" if r["category12"] == "misc" else r["category12"]
        assert IV.fold_category(r["category"]) == want, r["id"]
    counts = Counter(IV.fold_category(r["category"]) for r in rows)
    assert counts == Counter(IV.PAPER_COUNTS)  # Table 4, every class
    assert sum(IV.PAPER_COUNTS.values()) == 435


def test_question_types_of_table_5(shared_data):
    rows = shared_rows(shared_data, "comprehension")
    counts = Counter(IV.question_type(r["question"]) for r in rows)
    assert counts["what_is_unusual"] == IV.PAPER_QUESTION_TYPE_COUNTS["what_is_unusual"] == 114
    # The released test split has one "Describe this image." and one "What is hidden in this image?" fewer
    # than Table 5 (80, 22): documented in docs/illusionvqa.md, not forced.
    assert (counts["describe_this_image"], counts["what_is_hidden"], counts["image_specific"]) == (79, 21, 221)
    assert sum(counts.values()) == 435


def test_soft_localization_is_label_balanced(shared_data):
    rows = shared_rows(shared_data, "soft_localization")
    assert len(rows) == 1000
    assert Counter(r["answer"] for r in rows) == dict.fromkeys(IV.SOFT_LOCALIZATION_OPTIONS, 250)
    assert all(r["options"] == list(IV.SOFT_LOCALIZATION_OPTIONS) for r in rows)


def test_instructions_are_verbatim_from_appendix_e():
    paper = SEEDS / "002_1505750a814c456c.txt"
    if not paper.is_file():
        pytest.skip(f"the IllusionVQA paper is absent ({paper})")
    text = " ".join(paper.read_text(encoding="utf-8").split())
    for instr in (IV.INSTRUCTION_0SHOT, IV.INSTRUCTION_4SHOT, IV.INSTRUCTION_4SHOT_COT, IV.COT_REASONING_TEMPLATE):
        assert " ".join(instr.split()) in text, instr[:60]


def test_records_keep_every_gold_answer(shared_data):
    for task, path in (
        ("comprehension", "comprehension_test_435"),
        ("soft_localization", "soft_localization_test_1000"),
    ):
        rows = shared_rows(shared_data, task)
        recs = IV.records_from_release(shared_data / "illusionvqa" / f"{path}.jsonl")
        assert [r["id"] for r in recs] == [str(r["id"]) for r in rows]
        for rec, row in zip(recs, rows):
            assert rec["options"][rec["answer_index"]] == row["answer"]
            assert "abcdefgh"[rec["answer_index"]] == row["answer_letter"]
    assert max(len(r["options"]) for r in shared_rows(shared_data, "comprehension")) == 8  # letters a-h (PROTOCOL)


# ----------------------------------------------------------------------------- every question, end to end in-process


@pytest.mark.parametrize(
    ("task", "dataset", "shots"),
    [
        ("ambi_illusionvqa_comprehension", "illusionvqa_comprehension", 0),
        ("ambi_illusionvqa_comprehension_4shot", "illusionvqa_comprehension_4shot", 4),
        ("ambi_illusionvqa_soft_localization", "illusionvqa_soft_localization", 0),
        ("ambi_illusionvqa_soft_localization_4shot", "illusionvqa_soft_localization_4shot", 4),
        ("ambi_illusionvqa_soft_localization_4shot_cot", "illusionvqa_soft_localization_4shot", 4),
    ],
)
def test_every_question_builds_its_prompt_and_scores(copy, task, dataset, shots):
    kwargs = _kwargs(task)
    docs = _docs(copy, dataset)
    assert len(docs) == (435 if "comprehension" in task else 1000)
    for doc in docs:
        rec = json.loads(doc["record"])
        text = doc_to_text(doc, kwargs)
        assert rec["question"] in text
        letters = [f"{'abcdefgh'[i]}. {o}" for i, o in enumerate(rec["options"])]
        assert all(line in text for line in letters)
        if shots:
            assert [f"<image {k}>" in text for k in range(1, 6)] == [True] * 5
            assert text.index("<image 4>") < text.index("Now you try it.") < text.index("<image 5>")
            assert text.rstrip().endswith("Reasoning:" if task.endswith("cot") else "Answer 5:")
        assert score_item(rec, gold_response(rec))["correct"], rec["id"]
        wrong = score_item(rec, wrong_response(rec))
        assert wrong["parsed"] and not wrong["correct"], rec["id"]
    if task.endswith("cot"):
        assert "Reasoning: The left object is a geometric figure which is" in doc_to_text(docs[0], kwargs)


def test_visuals_are_resized_and_soft_localization_is_gray(copy):
    from PIL import Image

    def size(doc):
        with Image.open(json.loads(doc["record"])["image"]) as im:
            return im.size

    docs = _docs(copy, "illusionvqa_comprehension")
    big = next(d for d in docs if size(d) == (1024, 400))
    (im,) = doc_to_visual(big, _kwargs("ambi_illusionvqa_comprehension"))
    assert im.size == (512, 200) and im.mode == "RGB"
    assert doc_to_visual(big, {"preprocess": {}})[0].size == (1024, 400)  # the YAML's spec wins over the record's
    small = next(d for d in docs if size(d) == (64, 48))
    assert doc_to_visual(small, _kwargs("ambi_illusionvqa_comprehension"))[0].size == (64, 48)  # never upscaled
    soft = _docs(copy, "illusionvqa_soft_localization_4shot")[0]
    ims = doc_to_visual(soft, _kwargs("ambi_illusionvqa_soft_localization_4shot"))
    assert len(ims) == 5  # four examples, then the question's image
    for im in ims:
        r, g, b = (band.tobytes() for band in im.split())
        assert r == g == b and max(im.size) <= 512
    color = doc_to_visual(soft)  # without the YAML's kwargs the record's own preprocess applies
    assert all(len(set(im.getpixel((0, 0)))) == 1 for im in color)


def test_answer_forms_the_issue_lists(copy):
    rec = json.loads(_docs(copy, "illusionvqa_comprehension")[0]["record"])  # options No. / Yes. / Cannot tell
    assert rec["answer_index"] == 1
    for reply in ("B", "b.", "(B)", "Answer: B", "The answer is B", "b", "Yes.", "yes", "'Answer': b"):
        item = score_item(rec, reply)
        assert item["correct"] and item["parsed"], reply
    out = score_item(rec, "D")  # a letter outside the three options: read, and wrong
    assert out["parsed"] and not out["correct"] and out["parse_reason"] == "out_of_range"
    for reply in ("I cannot say.", "", "hmm"):
        item = score_item(rec, reply)
        assert not item["parsed"] and not item["correct"], reply
    items = [score_item(rec, r) for r in ("B", "D", "hmm", "A")]
    assert aggregate("acc", items) == 0.25 and aggregate("unparsed_rate", items) == 0.25


def test_cot_answer_is_read_from_the_final_marker(copy):
    rec = json.loads(_docs(copy, "illusionvqa_soft_localization_4shot")[0]["record"])
    gold = "abcd"[rec["answer_index"]]
    other = "abcd"[(rec["answer_index"] + 1) % 4]
    reply = f"The left object looks like option {other}... Answer: {other}. On reflection it is impossible.\n'Answer': {gold}"
    assert score_item(rec, reply)["correct"]
    assert not score_item(rec, f"'Answer': {gold}. Wait, no. Answer: {other}")["correct"]


def test_breakdown_names_per_category_and_question_type(copy):
    rec = json.loads(_docs(copy, "illusionvqa_comprehension")[0]["record"])
    names = metric_names(rec, by=("category", "question_type"))
    assert names[:2] == ["acc", "unparsed_rate"] and "acc_color" in names and "acc_image_specific" in names
    declared = [m["metric"] for m in index()["ambi_illusionvqa_comprehension"].config["metric_list"]]
    assert {f"acc_{c.replace(' ', '_').replace('-', '_')}" for c in IV.CATEGORIES} <= set(declared)


# ----------------------------------------------------------------------------- Hub layout and few-shot selection


def test_hub_folders_convert_with_train_split_as_examples(tmp_path, shared_data):
    comp = illusionvqa_hub_folder(tmp_path, shared_data, "comprehension", n=30)
    soft = illusionvqa_hub_folder(tmp_path, shared_data, "soft_localization", n=20)
    root = IV.materialize_from_hub(str(comp), str(soft))
    from ambi_plugin.core.schema import read_records

    zero = read_records(root / "illusionvqa_comprehension.jsonl")
    four = read_records(root / "illusionvqa_comprehension_4shot.jsonl")
    rows = shared_rows(shared_data, "comprehension")[:30]
    assert [r["id"] for r in zero] == [str(r["id"]) for r in rows]
    assert [r["options"][r["answer_index"]] for r in zero] == [r["answer"] for r in rows]
    assert [r["category"] for r in zero] == [IV.fold_category(r["category"]) for r in rows]
    assert all(len(r["image"]) == 5 and len(r["fewshot"]) == 4 for r in four)
    assert [s["question"] for s in four[0]["fewshot"]] == [s["question"] for s in COMPREHENSION_SHOTS]
    assert all((root / p).is_file() for r in four for p in r["image"])
    soft4 = read_records(root / "illusionvqa_soft_localization_4shot.jsonl")
    answers = sorted(s["options"][s["answer_index"]] for s in soft4[0]["fewshot"])
    assert answers == sorted(IV.SOFT_LOCALIZATION_OPTIONS)  # one example per answer
    assert all("which is" in s["reasoning"] for s in soft4[0]["fewshot"])


def test_few_shot_selection_is_checked():
    recs = [
        IV.record_from_row({**s, "id": k}, task="comprehension", image=s["image"], where="t")
        for k, s in enumerate(COMPREHENSION_SHOTS)
    ]
    IV.check_fewshot("comprehension", recs)
    with pytest.raises(ValueError, match="4 categories"):
        IV.check_fewshot("comprehension", [recs[0], recs[0], recs[1], recs[2]])
    with pytest.raises(ValueError, match="exactly 4"):
        IV.check_fewshot("comprehension", recs[:3])
    soft = {"question": "q", "options": list(IV.SOFT_LOCALIZATION_OPTIONS), "id": 0}
    same = [IV.record_from_row({**soft, "answer": "Both objects"}, task="soft_localization", image="x", where="t")] * 4
    with pytest.raises(ValueError, match="each answer once"):
        IV.check_fewshot("soft_localization", same)


def test_bad_answer_names_the_record(tmp_path):
    row = {"id": 7, "image": "x.png", "question": "q", "options": ["a", "b"], "answer": "c"}
    with pytest.raises(ValueError, match="id='7'.*'c' matches no option"):
        IV.record_from_row(row, task="comprehension", image="x", where="f.jsonl")
