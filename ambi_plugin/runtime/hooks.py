"""The functions our task YAMLs point to. Thin: all parsing and scoring lives in ``core``.

A task YAML names these with full dotted paths (``!function ambi_plugin.runtime.hooks.doc_to_text``)
so the module is imported once. A doc is one harness row (see :mod:`ambi_plugin.data.sources`):
its ``record`` column holds the full record as JSON; a doc without it is taken as the record.

Prompt templates come from ``lmms_eval_specific_kwargs`` (``default`` or the model's own entry):

* ``prompt``: a ``str.format`` template; fields: ``{question}``, ``{options}`` (one option per line),
  ``{options_inline}`` (on one line), ``{choices}`` (AmbiBench's ``A: x, B: y``), ``{width}``,
  ``{height}`` (of the first image), and every key of the record's ``prompt_vars``.
* ``option_case``: ``"upper"`` / ``"lower"`` forces the case of option labels (RCID writes I, II,
  III; IllusionBench i., ii.); by default the record's ``option_style`` decides.
* ``pre_prompt`` / ``post_prompt``: text put before / after the filled template.
* few-shot records (field ``fewshot``): ``{fewshot}``, ``{n}``, ``{image}`` and the kwargs
  ``fewshot_template``, ``image_token``, ``fewshot_separator`` (see :mod:`ambi_plugin.core.fewshot`).
* ``preprocess``: image preprocessing for ``doc_to_visual`` (see :mod:`ambi_plugin.core.preprocess`).
* ``prompt_<variant>``: the template for records with ``prompt_variant: <variant>`` (AmbiBench's
  triple hybrids: ``prompt_triple``); missing, the prompt does not render.
* ``video_frames``: video records are handed over as this many uniformly sampled frames
  (:mod:`ambi_plugin.core.video`); without it, as the video file.
* ``box_format`` (+ ``min_pixels``, ``max_pixels``): the coordinate system the model answers boxes in,
  applied when scoring (:mod:`ambi_plugin.core.coords`, :mod:`ambi_plugin.runtime.task_kwargs`).
"""

from __future__ import annotations

import string
from functools import lru_cache
from typing import Any

from ambi_plugin.core.answers import gold_response
from ambi_plugin.core.coords import with_model_settings
from ambi_plugin.core.jsonl import loads
from ambi_plugin.core.parsing import option_label
from ambi_plugin.core.scoring import aggregate, answer_format, metric_names, score_item
from ambi_plugin.runtime import extraction, item_errors, task_kwargs
from ambi_plugin.runtime.run_state import current


class PromptError(ValueError):
    """A prompt template needs a field the record does not have."""


def record_of(doc: dict) -> dict:
    """The record of a harness row, decoded from its ``record`` column (one JSON string); a doc without one is the
    record. Decoded at every read and kept by nobody: lmms-eval reads a doc several times, far apart (prompt,
    visuals, scoring), each time as a new row with new strings, and keeping every decoded record for the run cost
    about 1.4 KB per item (docs/performance.md); a decode costs about a microsecond (``core.jsonl.loads``)."""
    raw = doc.get("record") if isinstance(doc, dict) else None
    if isinstance(raw, str):
        return loads(raw)
    return doc


def image_paths(rec: dict) -> list[str]:
    img = rec.get("image")
    if img is None:
        return []
    return [img] if isinstance(img, str) else list(img)


def load_image(path: Any, *, rid: Any = None):
    """Open an image as RGB; a missing or unreadable file names the record and the field."""
    from ambi_plugin.core.images import decode

    if hasattr(path, "convert"):  # already a PIL image (Hub datasets with an Image column)
        return path.convert("RGB")
    try:  # a truncated file is an error even under lmms-eval's LOAD_TRUNCATED_IMAGES (core/images.py)
        return decode(path)
    except Exception as exc:  # noqa: BLE001 - re-raised with context
        raise OSError(f"record id={rid!r}, field 'image': cannot read {path!r} ({type(exc).__name__}: {exc})") from None


def doc_to_visual(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """The record's images in order (few-shot examples first). A ``preprocess`` spec in the YAML's
    kwargs, else in the record, is applied (see :mod:`ambi_plugin.core.preprocess`).

    An image or video that cannot be read is that item's error (:mod:`ambi_plugin.runtime.item_errors`): the model gets a
    blank image, the item is scored as wrong and counted; ``AMBI_STRICT=1`` raises instead."""
    rec = record_of(doc)
    try:
        return _visuals(rec, lmms_eval_specific_kwargs)
    except Exception as exc:  # noqa: BLE001 - contained to this item
        if item_errors.strict():
            raise
        item_errors.note_record(rec, f"{type(exc).__name__}: {exc}".splitlines()[0])
        return [item_errors.placeholder_image()]


def _visuals(rec: dict, lmms_eval_specific_kwargs: dict | None) -> list:
    if rec.get("video"):
        n_frames = (lmms_eval_specific_kwargs or {}).get("video_frames")
        if n_frames:  # fixed sampling: n frames, uniform, first and last included (core/video.py)
            from ambi_plugin.core.video import sample_frames

            return sample_frames(rec["video"], int(n_frames), rid=rec.get("id"))
        return [rec["video"]]
    images = [load_image(p, rid=rec.get("id")) for p in image_paths(rec)]
    spec = (lmms_eval_specific_kwargs or {}).get("preprocess", rec.get("preprocess"))
    if spec:
        from ambi_plugin.core.preprocess import preprocess_image

        images = [preprocess_image(im, spec) for im in images]
    return images


@lru_cache(maxsize=1024)
def _label(i: int, style: str, case: str | None) -> str:
    lab = option_label(i, style)
    if case == "upper":
        return lab.upper()
    if case == "lower":
        return lab.lower()
    return lab


_OPTION_FIELDS = frozenset({"options", "options_inline", "choices"})


def prompt_fields(
    rec: dict, kwargs: dict | None = None, *, image_size: bool = True, needed: frozenset[str] | None = None
) -> dict[str, str]:
    """The fields a prompt template can use; ``image_size=False`` skips ``{width}``/``{height}`` (opening
    the image), and ``needed`` (a template's fields) skips the option lists it does not use: the per-item
    hot path."""
    kwargs = kwargs or {}
    fields: dict[str, str] = {"question": rec.get("question") or ""}
    opts = rec.get("options")
    if opts and (needed is None or needed & _OPTION_FIELDS):
        style = rec.get("option_style") or "letter"
        case = kwargs.get("option_case")
        labels = [_label(i, style, case) for i in range(len(opts))]
        if needed is None or "options" in needed:
            fields["options"] = "\n".join(f"{lab}. {o}" for lab, o in zip(labels, opts))
        if needed is None or "options_inline" in needed:
            fields["options_inline"] = " ".join(f"{lab}. {o}" for lab, o in zip(labels, opts))
        if needed is None or "choices" in needed:
            fields["choices"] = ", ".join(f"{lab}: {o}" for lab, o in zip(labels, opts))
    if rec.get("fewshot"):  # {fewshot}, {n}, {image}: interleaved few-shot examples (core/fewshot.py)
        from ambi_plugin.core.fewshot import fewshot_fields

        style, case = rec.get("option_style") or "letter", kwargs.get("option_case")
        fields.update(fewshot_fields(rec, kwargs, lambda i: _label(i, style, case)))
    imgs = image_paths(rec) if image_size else []
    if imgs:
        from PIL import Image

        try:
            with Image.open(imgs[0]) as im:
                fields["width"], fields["height"] = str(im.width), str(im.height)
        except Exception:  # noqa: BLE001 - the visual hook reports unreadable images
            pass
    for key, val in (rec.get("prompt_vars") or {}).items():
        fields[key] = str(val)
    return fields


@lru_cache(maxsize=256)
def _template_fields(template: str) -> frozenset[str]:
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name)


def build_prompt(rec: dict, kwargs: dict | None = None) -> str:
    kwargs = kwargs or {}
    variant = rec.get("prompt_variant")  # e.g. AmbiBench triple hybrids: kwargs "prompt_triple"
    if variant and not kwargs.get(f"prompt_{variant}"):
        raise PromptError(
            f"record id={rec.get('id')!r} has prompt_variant {variant!r}, so lmms_eval_specific_kwargs "
            f"needs a 'prompt_{variant}' template next to 'prompt'"
        )
    template = kwargs[f"prompt_{variant}"] if variant else kwargs.get("prompt", "{question}")
    needed = _template_fields(template)
    fields = prompt_fields(rec, kwargs, image_size=bool(needed & {"width", "height"}), needed=needed)
    missing = sorted(needed - fields.keys())
    if missing:
        available = prompt_fields(rec, kwargs, image_size=False)
        raise PromptError(
            f"record id={rec.get('id')!r}: the prompt template needs {', '.join(missing)}, "
            f"which the record does not provide (available: {', '.join(sorted(available))})"
        )
    text = template.format(**fields)
    return f"{kwargs.get('pre_prompt', '')}{text}{kwargs.get('post_prompt', '')}"


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    return build_prompt(record_of(doc), lmms_eval_specific_kwargs)


def doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    """One chat user turn with the images *interleaved*: the prompt is cut at its image placeholders
    (``image_token``, default ``<image {n}>``) and image n goes there; images without a placeholder come
    first. lmms-eval's chat backends (``qwen2_5_vl`` in 0.7) otherwise put every image before the text."""
    import re

    from ambi_plugin.core.fewshot import DEFAULT_IMAGE_TOKEN

    kwargs = lmms_eval_specific_kwargs or {}
    visuals = doc_to_visual(doc, lmms_eval_specific_kwargs)
    text = doc_to_text(doc, lmms_eval_specific_kwargs)
    token = str(kwargs.get("image_token", DEFAULT_IMAGE_TOKEN))
    pattern = re.escape(token).replace(re.escape("{n}"), r"(\d+)") if "{n}" in token else None
    parts = re.split(f"({pattern})", text) if pattern else [text]
    placed = {int(m) for m in re.findall(pattern, text)} if pattern else set()

    def media(v: Any) -> dict:
        if isinstance(v, str):  # a video path
            return {"type": "video", "url": v}
        return {"type": "image", "url": v}

    content = [media(v) for n, v in enumerate(visuals, start=1) if n not in placed]
    k = 0
    while k < len(parts):
        part = parts[k]
        if pattern and k + 1 < len(parts) and re.fullmatch(pattern, part or "\0"):
            n = int(parts[k + 1])
            if 1 <= n <= len(visuals):
                content.append(media(visuals[n - 1]))
            k += 2
            continue
        if part:
            content.append({"type": "text", "text": part})
        k += 1
    return [{"role": "user", "content": content}]


def doc_to_target(doc: dict) -> str:
    return gold_response(record_of(doc))


def scoring_record(rec: dict, kwargs: dict | None = None) -> dict:
    """The record as the task scores it: the task's per-model scoring settings applied (box_format ...;
    core/coords.py) and, for a yes/no record without a question of its own, its rendered prompt as the question."""
    kwargs = kwargs or {}
    rec = with_model_settings(rec, kwargs)
    if not rec.get("question") and kwargs.get("prompt") and answer_format(rec) in ("yes_no", "true_false"):
        # a yes/no reply that restates the question is read against it: without a question of its own (AmbiBench
        # motion), the record's rendered prompt is the question ("... is the scene in the image static?")
        try:
            rec = {**rec, "question": build_prompt(rec, kwargs)}
        except (PromptError, KeyError, ValueError, IndexError):
            pass
    return rec


def score_record(
    rec: dict, response: str, kwargs: dict | None = None, *, judge=None, extract: bool | None = None
) -> dict:
    """A task's own item score of one text response, wherever it runs: the lmms-eval and VLMEvalKit hooks, and
    ``ambi score`` re-scoring a run's answers (which hands in its ``--judge``; None = the default judge).

    ``read_by`` says how the answer was read (``rule``, ``judge`` or ``none``); with ``extract`` (None: the
    ``AMBI_EXTRACT_WITH_JUDGE`` setting) an answer the rules left unread goes to the judge (runtime/extraction.py)."""
    scored = scoring_record(rec, kwargs)
    item = score_item(scored, response, judge=judge, judge_provider=current().judge_for)  # the run's judge
    if not item["parsed"] and extraction.enabled(extract):
        item = extraction.read_by_judge(scored, item, response, judge=judge)
    else:
        item["read_by"] = "rule" if item["parsed"] else "none"
    item["response"] = response
    return item


def score_response(rec: dict, results: list) -> dict:
    """One item score. An item whose visuals could not be read is scored as an empty answer, with ``item_error``
    set (:mod:`ambi_plugin.runtime.item_errors`)."""
    response = item_errors.scored_response(rec, results[0] if results else "")
    if not isinstance(response, str):  # chat backends may return result objects
        response = getattr(response, "text", None) or str(response)
    # per-model scoring settings of the running task, and a judge handed in for it (runtime/task_kwargs.py)
    return item_errors.mark(score_record(rec, response, task_kwargs.current(), judge=task_kwargs.judge()), rec)


def process_results(doc: dict, results: list) -> dict:
    """Score one response; every metric of the task type gets the same item score to aggregate. An item whose
    visuals could not be read is scored as wrong (:func:`score_response`)."""
    rec = record_of(doc)
    return dict.fromkeys(metric_names(rec), score_response(rec, results))


def expected_metrics(doc: dict, process=None) -> list[str]:
    """The metric names a task's ``process_results`` returns for this doc (used to validate YAMLs)."""
    names_of = getattr(process, "metric_names", None)  # process functions that report extra metrics
    if callable(names_of):
        return list(names_of(record_of(doc)))
    fields = getattr(process, "breakdown_fields", ())
    return metric_names(record_of(doc), by=fields)


__all__ = [
    "aggregate",
    "doc_to_messages",
    "doc_to_target",
    "doc_to_text",
    "doc_to_visual",
    "expected_metrics",
    "process_results",
    "record_of",
]
