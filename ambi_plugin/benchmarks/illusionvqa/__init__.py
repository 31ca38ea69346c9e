"""IllusionVQA (Shahgir et al., 2024; ``../shared/seeds/002_*``): description, records, importer, Hub loader.

Two tasks, each 0-shot and 4-shot (soft-localization also 4-shot + CoT), all multiple choice with
options labelled ``a.``, ``b.`` ... (2 to 8 options in the released data):

* **Comprehension**: 435 questions over 370 images. The release labels 16 fine classes; the paper's 12
  classes (Table 4) keep eleven of them and fold the five rare ones (counting, perspective, angle
  constancy, occlusion, repeating pattern) into "miscellaneous" (:func:`fold_category`). Records carry
  ``breakdown: {category, question_type}`` (Table 1 rows; Table 5 question types).
* **Soft-Localization**: 1000 questions, four answers (left / right / both / neither), 250 each.

Canonical files (next to ``images/``): ``illusionvqa_comprehension.jsonl``,
``illusionvqa_comprehension_4shot.jsonl``, ``illusionvqa_soft_localization.jsonl``,
``illusionvqa_soft_localization_4shot.jsonl`` (its examples also carry the CoT reasoning, used by the
4-shot + CoT task). A 4-shot record lists the four example images, then its own (``image``), and the
examples' text in ``fewshot`` (see :mod:`ambi_plugin.core.fewshot`). Images are resized when given to a
model (``preprocess``: longest side 512, LANCZOS, downscale only; soft-localization also grayscale).
"""

from __future__ import annotations

from ambi_plugin.benchmarks.illusionvqa.description import (  # noqa: F401 - re-exported
    BENCHMARK,
    CATEGORIES,
    CONVERTER_VERSION,
    COT_DEFAULT_DESCRIPTION,
    COT_REASONING_TEMPLATE,
    FILES,
    HUB_COMPREHENSION,
    HUB_SOFT_LOCALIZATION,
    IMAGE_SPECIFIC,
    INSTRUCTION_0SHOT,
    INSTRUCTION_4SHOT,
    INSTRUCTION_4SHOT_COT,
    PAPER_COUNTS,
    PAPER_QUESTION_TYPE_COUNTS,
    PREPROCESS_COMPREHENSION,
    PREPROCESS_SOFT_LOCALIZATION,
    QUESTION_TYPE_TITLES,
    QUESTION_TYPES,
    SOFT_LOCALIZATION_CATEGORY,
    SOFT_LOCALIZATION_OPTIONS,
    TASKS,
    TITLES,
)
from ambi_plugin.benchmarks.illusionvqa.hub import (  # noqa: F401 - re-exported
    FLAG_SAME_ID,
    _content,
    _convert_task,
    _hub_rows,
    _resolve_source,
    materialize_from_hub,
    materialize_local,
)
from ambi_plugin.benchmarks.illusionvqa.records import (  # noqa: F401 - re-exported
    _FOLD,
    _gold_index,
    _image_dir,
    _reason,
    _words,
    build_records,
    check_fewshot,
    cot_reasoning,
    fewshot_records,
    fold_category,
    harness_tasks,
    import_jsonl,
    question_type,
    record_from_row,
    records_from_release,
    write_dataset,
)
