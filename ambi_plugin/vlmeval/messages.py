"""Turn one of our docs into a VLMEvalKit message: ``[{"type": "image" | "video" | "text", "value": ...}]``.

The prompt text and the visuals come from the task YAML's own hooks, called as lmms-eval calls them
(:class:`ambi_plugin.runtime.task.TaskPrompt`): ``doc_to_text`` and ``doc_to_visual`` (images first, then the text,
VLMEvalKit's usual order), or ``doc_to_messages`` when the YAML has it (IllusionVQA's interleaved few-shot
examples; VIA-Bench's system prompts, whose text leads the message since VLMEvalKit's messages have no roles). VLMEvalKit models read images from files: an image lmms-eval would get unchanged from an
RGB file is passed as that file; any other (preprocessed, converted to RGB, a sampled video frame) is
written once as PNG under ``$AMBI_CACHE/vlmeval/images`` (named by a hash of its pixels), so both
harnesses see the same pixels. A video record without ``video_frames`` in its YAML is passed as a
``video`` item: VLMEvalKit models that take video accept it, the others refuse it with their own error.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from ambi_plugin.paths import cache_dir
from ambi_plugin.runtime import hooks
from ambi_plugin.runtime.task import TaskPrompt


def _image_dir() -> Path:
    path = cache_dir() / "vlmeval" / "images"
    path.mkdir(parents=True, exist_ok=True)
    return path


def save_image(image: Any) -> str:
    """Write a PIL image as PNG named by its content (once) and return the path."""
    digest = hashlib.sha256(f"{image.mode}{image.size}".encode() + image.tobytes()).hexdigest()[:24]
    out = _image_dir() / f"{digest}.png"
    if not out.exists():
        tmp = out.with_name(f"{out.stem}.{os.getpid()}.{id(image)}.tmp.png")
        image.save(tmp, format="PNG")
        tmp.replace(out)
    return str(out)


def _is_rgb_file(path: str) -> bool:
    from PIL import Image

    try:
        with Image.open(path) as im:
            return im.mode == "RGB"
    except Exception:  # noqa: BLE001 - doc_to_visual already reported unreadable files
        return False


def _item(visual: Any, source: str | None = None) -> dict:
    if isinstance(visual, str):  # a video file (no video_frames in the YAML)
        return {"type": "video", "value": visual}
    if source is not None and _is_rgb_file(source):
        return {"type": "image", "value": source}
    return {"type": "image", "value": save_image(visual)}


def build_message(task: TaskPrompt, doc: dict) -> list[dict]:
    """Images (or video) then the prompt text, as lmms-eval's simple models get them."""
    rec = hooks.record_of(doc)
    visuals = task.visuals(doc)
    text = task.text(doc)
    plain = (
        not task.task.own_visuals and not rec.get("video") and not task.kwargs.get("preprocess", rec.get("preprocess"))
    )
    sources = hooks.image_paths(rec) if plain else []  # then the visuals are the record's images, in order
    msgs = [_item(v, sources[i] if i < len(sources) else None) for i, v in enumerate(visuals)]
    msgs.append({"type": "text", "value": text})
    return msgs


class MessageError(ValueError):
    """A task's chat messages have a shape VLMEvalKit's one-message ``generate`` cannot take."""


def build_interleaved_message(task: TaskPrompt, doc: dict) -> list[dict]:
    """The task's ``doc_to_messages`` as one VLMEvalKit message (images where the prompt places them).

    VLMEvalKit's ``generate(message)`` has no roles: a system turn's text leads the message; a conversation
    with several user turns or assistant turns is refused (run.py does not hold multi-turn image datasets).
    """
    turns = task.messages(doc)
    system = [t for t in turns if t.get("role") == "system"]
    users = [t for t in turns if t.get("role") == "user"]
    if len(users) != 1 or len(system) + len(users) != len(turns):
        roles = [t.get("role") for t in turns]
        raise MessageError(
            f"task {task.task.name}, record id={hooks.record_of(doc).get('id')!r}: doc_to_messages gives turns "
            f"{roles}; VLMEvalKit takes one user message (an optional system turn leads it)"
        )
    msgs = []
    for part in [p for t in system for p in t["content"]] + list(users[0]["content"]):
        if part["type"] == "text":
            msgs.append({"type": "text", "value": part["text"]})
        else:
            msgs.append(_item(part["url"]))
    return msgs


def build(task: TaskPrompt, doc: dict) -> list[dict]:
    """The VLMEvalKit message of ``doc``: interleaved when the YAML has ``doc_to_messages``."""
    return build_interleaved_message(task, doc) if task.task.interleaved else build_message(task, doc)


__all__ = ["MessageError", "build", "build_interleaved_message", "build_message", "save_image"]
