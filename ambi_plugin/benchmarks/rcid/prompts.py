"""RCID's question templates, prompt families and the prompting variants of Figure 8.

Figure 1 gives the wording: "<prefix>, how do the colors of ... compare? Here are some options you can
choose: I. A is darker II. B is darker III. They are exactly same" (contrast), "I. Left is darker II. Right
is darker III. They are exactly same" (stripe, PROTOCOL), and "<prefix>, what color is the athlete's uniform?"
(filter, open). The prefixes vary in the paper ("Based on / According to / Evaluated by pixel values",
"According to human perception", "Through human eyes"); we use one per family. Figure 8's variants are not
printed: the CoT, illusion-hint and few-shot texts below are ours.
"""

from __future__ import annotations

TYPES = ("contrast", "stripe", "filter")
FAMILIES = ("pixel", "human", "neutral")
VARIANTS = ("cot", "illusion", "fewshot_ni", "fewshot_hl")  # on the neutral question (Figure 8)

OPTIONS = {
    "contrast": ["A is darker", "B is darker", "They are exactly same"],
    "stripe": ["Left is darker", "Right is darker", "They are exactly same"],
}
SAME = 2
PREFIX = {"pixel": "Based on pixel values, ", "human": "Based on human perception, ", "neutral": ""}

# Templates for images whose release carries no question (ours; the paper's questions name scene objects).
QUESTION = {
    "contrast": "how do the colors of the two regions marked A and B compare?",
    "stripe": "how do the colors of the striped regions on the left and right compare?",
    "filter": "what color is the main object in the image?",
}
MC_PROMPT = "{question} Here are some options you can choose: {options_inline}"
FILTER_PROMPT = "{question}"

# Figure 8 variants (our wording, the paper describes them in section 4.2). The CoT instruction starts on a
# line of its own, after the options (or the open question).
COT_SUFFIX = {
    "mc": (
        "\nFirst consider whether any factors in the image might affect color perception, then reason step by "
        "step. End your reply with 'Answer: ' and the numeral of your choice."
    ),
    "filter": (
        "\nFirst consider whether any factors in the image might affect color perception, then reason step by "
        "step. End your reply with 'Answer: ' and the color."
    ),
}
ILLUSION_PREFIX = "This image contains an illusion. "
FEWSHOT_INTRO = (
    "The image is a 2x2 grid. The top-left, top-right and bottom-left panels are examples; the bottom-right "
    "panel is the image to answer about.\n{examples}\nNow answer for the bottom-right image. "
)
FEWSHOT_EXAMPLE = "Example {n} ({where}): {question} Answer: {answer}"
PANELS = ("top left", "top right", "bottom left")
N_SHOTS = 3


def question_with(family: str, question: str) -> str:
    """``question`` (lower-case start, no prefix) as the family asks it; neutral questions start upper case."""
    text = PREFIX[family] + question
    return text[:1].upper() + text[1:]


def breakdown_fields(illusion_type: str) -> tuple[str, ...]:
    """PROTOCOL breakdowns: contrast layout and foreground-background RGB distance, stripe direction and
    count, filter scene composition (Fig. 11) and true color."""
    return BREAKDOWNS[illusion_type][0]


BREAKDOWNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # type: (fields, every value of those fields)
    "contrast": (("layout", "rgb_distance"), ("left_right", "up_down", "near", "far")),
    "stripe": (("direction", "stripe_count"), ("horizontal", "vertical", "diagonal", "few", "many")),
    "filter": (("scene", "true_color"), ("single", "multiple", "red", "yellow", "green", "blue")),
}
FEW_STRIPES = 10  # fewer colored stripes than this = "few" (Fig. 7b: more stripes, stronger illusion)


def task_name(illusion_type: str, variant: str) -> str:
    return f"ambi_rcid_{illusion_type}_{variant}"


def dataset_name(illusion_type: str, variant: str) -> str:
    """The records file a task reads: CoT and illusion-hint reuse the neutral records."""
    family = "neutral" if variant in ("cot", "illusion") else variant
    return f"rcid_{illusion_type}_{family}"


def file_names() -> list[str]:
    return [f"rcid_{t}_{f}" for t in TYPES for f in (*FAMILIES, "fewshot_ni", "fewshot_hl")]
