"""Few-shot prompts with interleaved images, harness-neutral.

A few-shot record lists its example images first and its own image last (``image: [ex1, ..., exK,
query]``) and carries the examples' text in ``fewshot``::

    "fewshot": [{"question": "...", "options": ["...", "..."], "answer_index": 1,
                 "reasoning": "The left object is ..."}, ...]

:func:`fewshot_fields` renders the prompt fields a template can use:

* ``{fewshot}``: every example, each rendered with the ``fewshot_template`` (fields ``{n}``,
  ``{question}``, ``{options}``, ``{answer}`` (the option label), ``{answer_text}``, ``{reasoning}``,
  ``{image}``) and joined by ``fewshot_separator`` (default a newline);
* ``{n}``: the number of the query (K + 1); ``{image}``: the query's image placeholder.

Image placeholders follow lmms-eval's interleaving convention ``<image N>`` (1-based): chat backends get
the images at those places through ``ambi_plugin.runtime.hooks.doc_to_messages``; simple backends such as
``qwen2_vl`` and ``qwen3_vl`` replace them themselves. Set ``image_token: ""`` to put every image first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

DEFAULT_IMAGE_TOKEN = "<image {n}>"
DEFAULT_EXAMPLE_TEMPLATE = "Image {n}: {question}\n{options}\n{image}\nAnswer {n}: {answer}"


class FewShotError(ValueError):
    """A few-shot record or template is malformed; the message names the record and the example."""


def _image_count(rec: dict) -> int:
    img = rec.get("image")
    if img is None:
        return 0
    return 1 if isinstance(img, str) else len(img)


def fewshot_fields(rec: dict, kwargs: dict | None, label: Callable[[int], str]) -> dict[str, str]:
    """Prompt fields for a record with ``fewshot`` examples (see the module docstring)."""
    kwargs = kwargs or {}
    rid = rec.get("id")
    examples: Sequence[dict] = rec.get("fewshot") or []
    if not isinstance(examples, list):
        raise FewShotError(f"record id={rid!r}: field 'fewshot' must be a list of examples")
    k = len(examples)
    if _image_count(rec) != k + 1:
        raise FewShotError(
            f"record id={rid!r}: {k} few-shot example(s) need {k + 1} images (examples first, the question's "
            f"last) in field 'image', found {_image_count(rec)}"
        )
    token = str(kwargs.get("image_token", DEFAULT_IMAGE_TOKEN))
    template = str(kwargs.get("fewshot_template", DEFAULT_EXAMPLE_TEMPLATE))
    sep = str(kwargs.get("fewshot_separator", "\n"))
    blocks = []
    for i, ex in enumerate(examples):
        missing = [key for key in ("question", "options", "answer_index") if ex.get(key) is None]
        if missing or not isinstance(ex.get("options"), list):
            raise FewShotError(f"record id={rid!r}: few-shot example {i} lacks {missing or ['options (a list)']}")
        opts = ex["options"]
        ans = ex["answer_index"]
        if not (isinstance(ans, int) and 0 <= ans < len(opts)):
            raise FewShotError(
                f"record id={rid!r}: few-shot example {i} has answer_index {ans!r} for {len(opts)} options"
            )
        values = {
            "n": str(i + 1),
            "question": str(ex["question"]),
            "options": "\n".join(f"{label(j)}. {o}" for j, o in enumerate(opts)),
            "answer": label(ans),
            "answer_text": str(opts[ans]),
            "reasoning": str(ex.get("reasoning") or ""),
            "image": token.format(n=i + 1),
        }
        try:
            blocks.append(template.format(**values))
        except (KeyError, IndexError, ValueError) as exc:
            raise FewShotError(
                f"record id={rid!r}: fewshot_template {template!r} cannot be filled ({type(exc).__name__}: {exc}); "
                f"fields: {', '.join(sorted(values))}"
            ) from None
    return {"fewshot": sep.join(blocks), "n": str(k + 1), "image": token.format(n=k + 1)}


def fewshot_example(rec: dict, *, reasoning: str | None = None) -> dict[str, Any]:
    """The few-shot example form of a choice record (question, options, answer index, reasoning)."""
    out: dict[str, Any] = {
        "question": rec["question"],
        "options": list(rec["options"]),
        "answer_index": int(rec["answer_index"]),
    }
    if reasoning:
        out["reasoning"] = reasoning
    return out
