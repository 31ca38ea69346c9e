"""An item our hooks cannot read is that item's error, never the run's.

An unreadable image or video (truncated, missing, undecodable) used to raise inside the model's generation loop and
end the whole run, answers already produced included. Now :func:`ambi_plugin.runtime.hooks.doc_to_visual` notes the
record id and the reason here and hands the model a small blank image; the item is then scored as an empty answer
(wrong; an item error only, never also counted in ``unparsed`` / ``unparsed_rate``) with ``item_error`` set, and the results JSON's ``ambi_plugin.item_errors``
lists, per task, the count and the ids with their reasons. ``AMBI_STRICT=1`` makes such an error fatal again.

Counts are per run (kept on its state, :mod:`ambi_plugin.runtime.run_state`) and per process: under data parallelism
each rank knows its own items (the results section is rank 0's).
"""

from __future__ import annotations

import sys

from ambi_plugin.config import strict_mode
from ambi_plugin.runtime.run_state import current

MAX_LISTED = 50  # ids kept per task in the results JSON (the count is always exact)


def strict() -> bool:
    return strict_mode()


def _key(rec: dict) -> tuple[str, str]:
    """A record by its id and its media: ids repeat across tasks (and releases), an unreadable file is per media."""
    return (str(rec.get("id")), repr(rec.get("video") or rec.get("image")))


def note_record(rec: dict, reason: str) -> None:
    """The record's visuals could not be read; told once on stderr."""
    key = _key(rec)
    state = current()
    with state.lock:
        state.item_errors_by_record[key] = reason
        first = key not in state.item_errors_told
        state.item_errors_told.add(key)
    if first:
        print(f"ambi-plugin: item error (scored as wrong; AMBI_STRICT=1 stops instead): {reason}", file=sys.stderr)


def any_errors() -> bool:
    """Whether some record of the run could not be read (the usual case: none)."""
    return bool(current().item_errors_by_record)


def error_of(rec: dict) -> str | None:
    by_record = current().item_errors_by_record
    if not by_record:  # the usual case: every item read
        return None
    return by_record.get(_key(rec))


def scored_response(rec: dict, response):
    """The response to score: the model's, or an empty answer for an item whose visuals could not be read."""
    return "" if error_of(rec) is not None else response


def mark(item: dict, rec: dict) -> dict:
    """Set ``item_error`` on a scored item whose visuals could not be read."""
    error = error_of(rec)
    if error is not None:
        item["item_error"] = error
    return item


def note_task(task: str, rid, reason: str) -> None:
    state = current()
    with state.lock:
        state.item_errors_by_task.setdefault(task, {})[str(rid)] = reason


def summary() -> dict[str, dict]:
    """Per task: ``{"count": n, "items": [{"id", "reason"}, ...]}`` (at most :data:`MAX_LISTED` items)."""
    state = current()
    with state.lock:
        return {
            task: {
                "count": len(items),
                "items": [{"id": rid, "reason": why} for rid, why in list(items.items())[:MAX_LISTED]],
            }
            for task, items in sorted(state.item_errors_by_task.items())
        }


def placeholder_image():
    """What the model sees instead of an unreadable image: 28 x 28 mid-gray (one Qwen2.5-VL patch)."""
    from PIL import Image

    return Image.new("RGB", (28, 28), (128, 128, 128))


__all__ = [
    "any_errors",
    "error_of",
    "mark",
    "scored_response",
    "note_record",
    "note_task",
    "placeholder_image",
    "strict",
    "strict_mode",
    "summary",
]
