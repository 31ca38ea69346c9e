"""The judge prompts, kept verbatim as module constants, and how their slots are filled.

Sources (see ``docs/judges.md``):

* ``ambibench_set_match``: AmbiBench Appendix A.5 ("LLM Judge Prompt"). Verbatim, including the
  ``**bold**`` markers. The paper's last lines read ``Set 1: predicted`` / ``Set 2: ground_truth``; PROTOCOL
  puts the **ground truth in Set 1** and the prediction in Set 2 (A.10 only holds that way), so the slots
  are named for what they hold.
* ``illusionbench_true_false`` / ``illusionbench_multiple_choice``: IllusionBench Appendix B.2, verbatim,
  typographic apostrophes and the stray closing ``]`` of the MC prompt included. The ``#user:`` role
  marker is the chat role, not text.
* ``illusionbench_description``: IllusionBench Appendix C.1, verbatim.
* ``viabench_mcq_match``: **ours**. VIA-Bench (Appendix E) says a judge model arbitrates the answer but
  does not print the prompt; this one asks which option the response finally chose.
* ``answer_extraction``: **ours**. The optional LLM extraction (``--extract-with-judge``) of an answer the rules
  could not read, as VLMEvalKit and lmms-eval's MMBench do; it asks what the answer commits to, never to solve.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

AMBIBENCH_SET_MATCH = """You are a linguistic expert. Compare the following two sets of words and determine whether **every word** in Set 1 can be matched with **exactly one word** in Set 2 such that they meet **any** of these relationships:
1. They are **synonyms** (same or very similar meaning), e.g., "car" and "automobile".
2. They have a **hypernym/hyponym** relationship (one is a broader or narrower category of the other), e.g., "fruit" and "apple".
3. They are **exactly the same word**.
Notes:
- The order of words does not matter.
- Each word in Set 1 must have a unique matching word in Set 2.
- If **any word** in Set 1 cannot be matched, return: False.
- Only if **all words** can be matched, return: True.
Set 1: {ground_truth}
Set 2: {predicted}
Answer with only one word: True or False."""

ILLUSIONBENCH_TRUE_FALSE = (
    "Given the question {question}, the correct answer is {correct_answer}, and the respondent\u2019s answer is "
    "{response}. Determine if the respondent\u2019s answer is correct (1) or incorrect (0). If the answers match "
    "(both \u2018True\u2019 or both \u2018False\u2019), output 1. Otherwise, output 0. Only return the result as a "
    "single digit."
)

ILLUSIONBENCH_MULTIPLE_CHOICE = (
    "Given the question {question_and_options}, the correct answer is the option {correct_option}. The "
    "respondent\u2019s answer is {response}. Determine if the respondent\u2019s answer is correct (1) or incorrect "
    "(0). If uncertain, also provide 0. Only return the result as a single digit.]"
)

ILLUSIONBENCH_DESCRIPTION = (
    "Respondent description is \u2018{response}\u2019, reference description is \u2018{golden}\u2019. Evaluate if "
    "there is a conflict between the image contents in the respondent\u2019s answer and the reference answer. Rate "
    "as follows: 2: No conflict. 1: Minor conflict, less controversial than the reference. 0: Clear conflict, more "
    "controversial than the reference. Only focus on conflicts between the descriptions. Differences in detail or "
    "omitted information are not considered conflicts. Just answer the rate number, do not output any other word."
)

# Ours: VIA-Bench does not print its judge prompt (Appendix E is empty in the released text).
VIABENCH_MCQ_MATCH = """You are judging the answer of a model to a multiple-choice question. Read the question, the options and the model's response, and decide which single option the response finally chooses. The response may give the option letter, the option text, or both, possibly after some reasoning; judge by its final answer, not by options it mentions and rejects. If the response chooses no option, chooses several options, or cannot be understood, answer None.

Question: {question}
Options:
{options}
Response: {response}

Answer with only the letter of the chosen option, or None."""

# Ours: the optional extraction step for answers the rules left unread (runtime/extraction.py). The judge is told not
# to solve the question, only to report what the response commits to, and to answer NONE for hedges and refusals.
ANSWER_EXTRACTION = """You read a model's response to a question and report which answer the response commits to. Do not solve the question yourself and do not judge whether the response is right. Judge by the response's final answer, not by options it mentions, discusses or rejects. If the response gives no answer, hedges between answers, refuses, or cannot be understood, reply NONE.

Question: {question}
{options}Response: {response}

Reply with only {allowed}, or NONE."""

TEMPLATES: dict[str, str] = {
    "ambibench_set_match": AMBIBENCH_SET_MATCH,
    "illusionbench_true_false": ILLUSIONBENCH_TRUE_FALSE,
    "illusionbench_multiple_choice": ILLUSIONBENCH_MULTIPLE_CHOICE,
    "illusionbench_description": ILLUSIONBENCH_DESCRIPTION,
    "viabench_mcq_match": VIABENCH_MCQ_MATCH,
    "answer_extraction": ANSWER_EXTRACTION,
}

# Templates written by us (the papers do not print them); everything else is verbatim.
OURS: frozenset[str] = frozenset({"viabench_mcq_match", "answer_extraction"})


def template_hash(name: str) -> str:
    """First 12 hex digits of the template's SHA-256 (recorded in the results)."""
    return hashlib.sha256(TEMPLATES[name].encode("utf-8")).hexdigest()[:12]


def template_hashes() -> dict[str, str]:
    return {name: template_hash(name) for name in TEMPLATES}


def term_entry(term: str) -> str:
    """One set entry: a gold concept's alternatives ``"rabbit|bunny"`` are shown as ``rabbit/bunny``."""
    alts = [a.strip() for a in str(term).split("|") if a.strip()]
    return "/".join(alts)


def render_set(terms: Sequence[str]) -> str:
    """A word set as the A.5 prompt shows it: entries separated by ", "."""
    return ", ".join(e for e in (term_entry(t) for t in terms) if e)


def set_match_prompt(gold: Sequence[str], predicted: Sequence[str]) -> str:
    return AMBIBENCH_SET_MATCH.format(ground_truth=render_set(gold), predicted=render_set(predicted))


def true_false_prompt(question: str, correct_answer: str, response: str) -> str:
    return ILLUSIONBENCH_TRUE_FALSE.format(question=question, correct_answer=correct_answer, response=response)


def multiple_choice_prompt(question_and_options: str, correct_option: str, response: str) -> str:
    return ILLUSIONBENCH_MULTIPLE_CHOICE.format(
        question_and_options=question_and_options, correct_option=correct_option, response=response
    )


def description_prompt(response: str, golden: str) -> str:
    return ILLUSIONBENCH_DESCRIPTION.format(response=response, golden=golden)


def option_letter(i: int) -> str:
    return chr(ord("A") + i)


def mcq_prompt(question: str, options: Sequence[str], response: str) -> str:
    lines = "\n".join(f"{option_letter(i)}. {opt}" for i, opt in enumerate(options))
    return VIABENCH_MCQ_MATCH.format(question=question, options=lines, response=response)


# What the extraction prompt asks for, per answer format (``{allowed}``).
EXTRACTION_ALLOWED = {
    "letter": "the letter of the one option the response chooses",
    "roman": "the letter of the one option the response chooses",
    "letter_set": "the letters of every option the response chooses, separated by commas (for example: A, C)",
    "yes_no": "YES or NO",
    "true_false": "TRUE or FALSE",
}


def extraction_prompt(answer_format: str, question: str, options: Sequence[str], response: str) -> str:
    """The extraction prompt; options are shown lettered A, B, ... whatever the task's own labels."""
    lines = "".join(f"{option_letter(i)}. {opt}\n" for i, opt in enumerate(options))
    block = f"Options:\n{lines}" if lines else ""
    return ANSWER_EXTRACTION.format(
        question=question, options=block, response=response, allowed=EXTRACTION_ALLOWED[answer_format]
    )
