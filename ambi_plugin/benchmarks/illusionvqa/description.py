"""IllusionVQA's description: Hub ids, categories and paper counts, question types, prompts, preprocessing, files.

Part of :mod:`ambi_plugin.benchmarks.illusionvqa` (its docstring describes the benchmark); import from there."""

from __future__ import annotations

BENCHMARK = "illusionvqa"
HUB_COMPREHENSION = "csebuetnlp/illusionVQA-Comprehension"
HUB_SOFT_LOCALIZATION = "csebuetnlp/illusionVQA-Soft-Localization"
CONVERTER_VERSION = "4"  # of the Hub loader (materialize_from_hub): a new version converts cached copies again

# Table 1 / Table 8 rows, in the paper's order, with the paper's labels.
CATEGORIES: tuple[str, ...] = (
    "impossible object",
    "real-scene",
    "size",
    "hidden",
    "deceptive design",
    "angle illusion",
    "color",
    "edited-scene",
    "upside-down",
    "positive-negative space",
    "circle-spiral",
    "miscellaneous",
)
TITLES: dict[str, str] = {
    "impossible object": "Impossible Object",
    "real-scene": "Real-Scene",
    "size": "Size",
    "hidden": "Hidden",
    "deceptive design": "Deceptive Design",
    "angle illusion": "Angle Illusion",
    "color": "Color",
    "edited-scene": "Edited-Scene",
    "upside-down": "Upside-Down",
    "positive-negative space": "Pos.-Neg. Space",
    "circle-spiral": "Circle-Spiral",
    "miscellaneous": "Miscellaneous",
}
# Table 4's counts (test split), checked against the released data in the tests.
PAPER_COUNTS: dict[str, int] = dict(zip(CATEGORIES, (134, 64, 46, 45, 37, 26, 23, 21, 7, 7, 6, 19)))

# Table 5's major question types; everything else is image specific.
QUESTION_TYPES: dict[str, str] = {
    "what is unusual about this image": "what_is_unusual",
    "describe this image": "describe_this_image",
    "what is hidden in this image": "what_is_hidden",
}
IMAGE_SPECIFIC = "image_specific"
QUESTION_TYPE_TITLES = {
    "what_is_unusual": '"What is unusual about this image?"',
    "describe_this_image": '"Describe this image."',
    "what_is_hidden": '"What is hidden in this image?"',
    IMAGE_SPECIFIC: "Image-specific Questions",
}
PAPER_QUESTION_TYPE_COUNTS = {
    "what_is_unusual": 114,
    "describe_this_image": 80,
    "what_is_hidden": 22,
    IMAGE_SPECIFIC: 219,
}

SOFT_LOCALIZATION_OPTIONS = ("The left object", "The right object", "Both objects", "Neither object")
SOFT_LOCALIZATION_CATEGORY = "soft_localization"

# Appendix E, verbatim. "{few-shot examples}" is where the examples go.
INSTRUCTION_0SHOT = (
    "You'll be given an image, an instruction, and some options. You have to select the correct one. Do not "
    "explain your reasoning. Answer with only the letter that corresponds to the correct option. Do not repeat "
    "the entire answer."
)
INSTRUCTION_4SHOT = INSTRUCTION_0SHOT + " Here are a few examples: {few-shot examples} Now you try it."
INSTRUCTION_4SHOT_COT = (
    "You'll be given an image, an instruction, and some choices. You have to select the correct one. Reason "
    "about the choices in the context of the question and the image. End your answer with 'Answer': "
    "{letter_of_correct_choice} without the curly brackets. Here are a few examples: {few-shot examples} "
    "Now you try it."
)
COT_REASONING_TEMPLATE = (
    "The left object is a {description} which is {possible/impossible}. "
    "The right object is a {description} which is {possible/impossible}."
)
COT_DEFAULT_DESCRIPTION = "geometric figure"  # our choice: the release does not describe the example objects

PREPROCESS_COMPREHENSION = {"max_side": 512}
PREPROCESS_SOFT_LOCALIZATION = {"max_side": 512, "grayscale": True}

FILES = {
    ("comprehension", 0): "illusionvqa_comprehension",
    ("comprehension", 4): "illusionvqa_comprehension_4shot",
    ("soft_localization", 0): "illusionvqa_soft_localization",
    ("soft_localization", 4): "illusionvqa_soft_localization_4shot",
}
TASKS = ("comprehension", "soft_localization")
