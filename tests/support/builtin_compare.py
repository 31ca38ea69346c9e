"""Our answer parsing next to lmms-eval's built-in ``illusionbench`` / ``illusionvqa`` tasks, on realistic
model outputs. It calls lmms-eval's installed functions (nothing of theirs is copied) and renders the
comparison tables of ``docs/illusionbench.md`` and ``docs/illusionvqa.md``
(``python bench/compare_builtin_parsing.py`` prints them).

Each case gives a model output, the gold answer and what a careful human reads in the output
(``meant``: an option label, True / False, or None when the output gives no answer). A parser is right
on a case when its verdict (correct / wrong) equals the verdict of the human reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ambi_plugin.core.parsing import option_label
from ambi_plugin.core.scoring import score_item

# Records the cases are asked about (Fig. 4 of IllusionBench; IllusionVQA-Comprehension test id 0).
TF_FALSE = {"id": "tf-false", "benchmark": "illusionbench", "category": "real_scene", "task_type": "true_false",
            "question": "The man is drinking from the can.", "answer_bool": False}  # fmt: skip
TF_TRUE = {**TF_FALSE, "id": "tf-true", "question": "There is a visual illusion in the image.", "answer_bool": True}
MC = {"id": "mc", "benchmark": "illusionbench", "category": "real_scene", "task_type": "choice",
      "question": "What is the man wearing?", "options": ["A hat", "A t-shirt", "A jacket", "A dress"],
      "option_style": "roman", "answer_format": "roman", "answer_index": 1}  # fmt: skip
MC3 = {**MC, "id": "mc3", "answer_index": 2}
VQA = {"id": "0", "benchmark": "illusionvqa", "category": "color", "task_type": "choice",
       "question": "Are the two birds the same color?", "options": ["No.", "Yes.", "Cannot tell from the image."],
       "option_style": "letter_lower", "answer_format": "letter", "answer_index": 1}  # fmt: skip


@dataclass(frozen=True)
class Case:
    record: dict
    response: str
    meant: Any  # option index, True/False, or None (no answer given)


ILLUSIONBENCH_CASES: tuple[Case, ...] = (
    Case(TF_FALSE, "False", False),
    Case(TF_FALSE, "I think it is false", False),
    Case(TF_FALSE, "The statement is false.", False),
    Case(TF_FALSE, "This description is not correct.", False),
    Case(TF_FALSE, "Not true.", False),
    Case(TF_FALSE, "There is no drinking here, so the statement is False.", False),
    Case(TF_FALSE, "No.", False),
    Case(TF_TRUE, "True, there is a visual illusion.", True),
    Case(TF_TRUE, "Correct.", True),
    Case(TF_TRUE, "Yes, it is correct.", True),
    Case(TF_FALSE, "I cannot determine this from the image.", None),
    Case(MC, "ii", 1),
    Case(MC, "II.", 1),
    Case(MC, "(ii) A t-shirt", 1),
    Case(MC, "The answer is ii.", 1),
    Case(MC, "A t-shirt", 1),
    Case(MC3, "I think it is iii.", 2),
    Case(MC, "I would choose ii", 1),
    Case(MC, "Option iv: A dress", 3),
    Case(MC, "vi", 5),
)

ILLUSIONVQA_CASES: tuple[Case, ...] = (
    Case(VQA, "B", 1),
    Case(VQA, "b.", 1),
    Case(VQA, "(B)", 1),
    Case(VQA, "B. Yes.", 1),
    Case(VQA, "Answer: B", 1),
    Case(VQA, "The answer is B", 1),
    Case(VQA, "The correct option is (b) Yes.", 1),
    Case(VQA, "Yes.", 1),
    Case(VQA, "**B**", 1),
    Case(VQA, "The birds look different, but the pixels are identical.\n'Answer': b", 1),
    Case(VQA, "A. No.", 0),
    Case(VQA, "E", 4),
    Case(VQA, "I cannot tell.", None),
)


def _human_correct(case: Case) -> bool:
    rec = case.record
    if case.meant is None:
        return False
    if rec["task_type"] == "true_false":
        return case.meant == rec["answer_bool"]
    return case.meant == rec["answer_index"]


def _show(rec: dict, value: Any) -> str:
    if value is None:
        return "no answer"
    if rec["task_type"] == "true_false":
        return str(value)
    if value < 0 or value >= len(rec["options"]):
        return "a label not offered"
    return option_label(value, rec.get("option_style") or "letter")


def ours(case: Case) -> tuple[str, bool]:
    """(what our parser reads, whether it scores the item correct)."""
    item = score_item(case.record, case.response)
    if not item["parsed"]:
        return "unparsed (counted)", bool(item["correct"])
    value = item.get("pred_bool") if case.record["task_type"] == "true_false" else item.get("pred")
    return _show(case.record, value), bool(item["correct"])


def builtin(case: Case) -> tuple[str, bool]:
    """(what lmms-eval's built-in task reads, whether it scores the item correct), by calling its code."""
    rec = case.record
    if rec["benchmark"] == "illusionbench":
        from lmms_eval.tasks.illusionbench.utils import illusionbench_process_results

        tf = rec["task_type"] == "true_false"
        gold = ("True" if rec["answer_bool"] else "False") if tf else option_label(rec["answer_index"], "roman")
        doc = {"question_type": "TF" if tf else "select", "answer": gold, "category": rec["category"]}
        out = illusionbench_process_results(doc, [case.response])["illusionbench_acc"]
        return repr(out["parsed_pred"]), bool(out["is_correct"])
    from lmms_eval.api.metrics import exact_match_hf_evaluate
    from lmms_eval.tasks.illusionvqa.utils import MultiChoiceRegexFilter

    # illusionvqa.yaml: filter "flexible-extract", then exact_match with ignore_case and ignore_punctuation
    flt = MultiChoiceRegexFilter(regex_pattern="([A-Z])\\.", group_select=0, ignore_case=True, ignore_punctuation=True)
    doc = {"question": rec["question"], "options": rec["options"], "answer": rec["options"][rec["answer_index"]]}
    filtered = flt.apply([[case.response]], [doc])[0]
    target = chr(ord("A") + rec["answer_index"])  # illusionvqa_doc_to_target
    score = exact_match_hf_evaluate([filtered], [target], ignore_case=True, ignore_punctuation=True)["exact_match"]
    return repr(filtered), bool(score == 1.0)


def rows(cases: tuple[Case, ...]) -> list[dict]:
    out = []
    for case in cases:
        human = _human_correct(case)
        our_read, our_ok = ours(case)
        their_read, their_ok = builtin(case)
        gold = (
            str(case.record["answer_bool"])
            if case.record["task_type"] == "true_false"
            else _show(case.record, case.record["answer_index"])
        )
        out.append(
            {
                "response": case.response,
                "gold": gold,
                "meant": _show(case.record, case.meant),
                "human_correct": human,
                "ours": our_read,
                "ours_right": our_ok == human,
                "builtin": their_read,
                "builtin_right": their_ok == human,
            }
        )
    return out


def markdown(cases: tuple[Case, ...]) -> str:
    """The comparison table (one row per case; a wrong verdict is marked **wrong**)."""

    def cell(text: str) -> str:
        return text.replace("\n", "\\n").replace("|", "\\|")

    lines = [
        "| model output | gold | a human reads | ours reads | ours | lmms-eval built-in reads | built-in |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows(cases):
        lines.append(
            f"| `{cell(r['response'])}` | {r['gold']} | {r['meant']} | {cell(r['ours'])} | "
            f"{'right' if r['ours_right'] else '**wrong**'} | `{cell(r['builtin'])}` | "
            f"{'right' if r['builtin_right'] else '**wrong**'} |"
        )
    return "\n".join(lines)
