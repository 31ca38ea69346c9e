"""VIA-Bench's description: categories, prompts, system prompts, variants and the paper's reference rows.

Sources: ``../shared/seeds/003_*`` (sections 2-4, Appendices A-G) and PROTOCOL.md (VIA-Bench). What the
paper does not print (the Match regex of Appendix D, the judge prompt of Appendix E, the normal and the
manual-CoT system prompts of Appendix G) is written by us and marked **ours** here and in the docs.
"""

from __future__ import annotations

BENCHMARK = "viabench"
VERSION = 2  # 2: own blind system prompt, Match reads option text and rejects "I cannot ...", not_sure_rate_judge_<cat>

# Table 3.2's column order (VA first), with the paper's names (Appendix A).
CATEGORIES: tuple[str, ...] = ("va", "ci", "mi", "gi", "gsi", "vi")
TITLES: dict[str, str] = {
    "va": "Visual Anomalies (VA)",
    "ci": "Color Illusions (CI)",
    "mi": "Motion Illusions (MI)",
    "gi": "Gestalt Illusions (GI)",
    "gsi": "Geometric and Spatial Illusions (GSI)",
    "vi": "General Visual Illusions (VI)",
}
# PROTOCOL: category sizes of the validation set used for the paper's table (1,004 QA pairs in all).
PAPER_COUNTS: dict[str, int] = {"va": 239, "ci": 201, "mi": 156, "gi": 117, "gsi": 162, "vi": 129}

NOT_SURE = "Not Sure"
UNCATEGORIZED = "uncategorized"  # the public challenge split publishes no category labels

# Section 2.1 / 4.2: the output-format instruction (the paper prints "Answer: []"; the placeholder is ours).
FORMAT_INSTRUCTION = "Please provide your answer in the following format: Answer: [X]"
# The user turn follows the public challenge layout ("Question:" / "Option:" headers) and ends with the
# format instruction; Appendix C: the image comes first, then this prompt.
PROMPT = "Question:\n{question}\nOption: \n{options}\n" + FORMAT_INSTRUCTION

# Appendix G (Fig. 6 is not in the released text). Zero-shot CoT is the paper's "Let's think step by step";
# the normal, manual-CoT and blind system prompts are ours (the blind one mentions no image: none is given).
SYSTEM_NORMAL = "You are a helpful assistant. Look at the image carefully and answer the multiple-choice question."
SYSTEM_BLIND = "You are a helpful assistant. Answer the multiple-choice question."
SYSTEM_ZERO_SHOT_COT = "Let's think step by step."
SYSTEM_MANUAL_COT = (
    "You are a careful visual analyst. Before you answer, reason step by step: "
    "1. Describe exactly what is visible in the image, counting and comparing where the question asks for it. "
    "2. Note where the image may be an illusion or an anomaly, and where what such scenes usually look like "
    "could mislead you. "
    "3. Check every option against the visual evidence, not against what is typical. "
    "4. Choose the option the evidence supports; choose Not Sure only if the image does not let you decide. "
    "Then give your final answer in the requested format."
)
SYSTEM_PROMPTS: dict[str, str] = {
    "normal": SYSTEM_NORMAL,
    "zs_cot": SYSTEM_ZERO_SHOT_COT,
    "manual_cot": SYSTEM_MANUAL_COT,
    "blind": SYSTEM_BLIND,
}
OURS = frozenset({"SYSTEM_NORMAL", "SYSTEM_MANUAL_COT", "SYSTEM_BLIND", "MATCH_REGEX", "viabench_mcq_match"})

# Variant -> (task suffix, title, max_new_tokens). Blind = the same questions with no image (section 4.3).
VARIANTS: dict[str, tuple[str, str, int]] = {
    "normal": ("", "normal (w/o CoT)", 1024),
    "zs_cot": ("_zs_cot", "zero-shot CoT", 2048),
    "manual_cot": ("_manual_cot", "manual CoT", 2048),
    "blind": ("_blind", "blind (no image)", 1024),
}

# Records names in a local copy (``ambi://viabench``).
VAL_NAME = "viabench_val"


def records_name(category: str) -> str:
    return f"viabench_{category}"


# Table 3.2 rows shipped as references: (Match, Judge) per category, in CATEGORIES order, and Avg.
PAPER_ROWS: dict[str, dict] = {
    "Random Choice": {"avg": 29.13, "cells": [(28.45, 28.45), (28.36, 28.36), (32.69, 32.69), (23.08, 23.08),
                                              (29.63, 29.63), (32.56, 32.56)]},
    "GPT-4-Turbo (blind)": {"avg": 39.61, "cells": [(2.85, 2.85), (25.87, 25.87), (87.95, 87.95), (35.04, 35.04),
                                                    (61.11, 61.11), (24.81, 24.81)]},
    "Gemini-3-pro": {"avg": 69.23, "cells": [(43.51, 44.49), (53.33, 56.82), (69.87, 99.36), (79.32, 83.76),
                                             (81.23, 89.88), (61.24, 67.91)]},
    "Qwen2.5-VL-7B-Instruct": {"avg": 48.00, "cells": [(22.93, 22.93), (22.09, 22.09), (78.97, 78.97),
                                                       (34.53, 34.19), (76.30, 76.30), (53.33, 53.33)]},
    "Human": {"avg": 93.30, "cells": [(87.45, 87.45), (85.57, 85.57), (100.0, 100.0), (96.58, 96.58),
                                      (98.75, 98.75), (91.47, 91.47)]},
}  # fmt: skip


def paper_avg(cells: list[tuple[float, float]]) -> float:
    """PROTOCOL: Avg = mean of the 12 Match and Judge cells."""
    values = [v for pair in cells for v in pair]
    return sum(values) / len(values)
