"""The answers no parser could read, per task: up to :data:`MAX_EXAMPLES` with their ids, for the results JSON.

The ``unparsed`` aggregation (:mod:`ambi_plugin.runtime.aggregate`, and VIA-Bench's) runs once per task over every
item lmms-eval gathered (all processes), and calls :func:`note` with them. Each item carries its task's name
(``item["task"]``, set by the ``process_results`` patch of :mod:`ambi_plugin.lmms.patches`). The results writer
(:mod:`ambi_plugin.lmms.results_meta`) puts :func:`examples` in its section as::

    "unparsed": {"<task>": {"count": 3, "examples": [{"id": "...", "response": "...", "reason": "no_label"}, ...]}}

and ``ambi results`` prints them as a short list. The per-item samples (``--log_samples``) hold every item's
``parsed``, ``parse_reason`` and ``response`` already.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ambi_plugin.runtime.run_state import current

MAX_EXAMPLES = 20
MAX_RESPONSE_CHARS = 300
# kept on the run's state (runtime/run_state.py): ``unparsed`` and, with --extract-with-judge, ``read_by``
# ({task: {"rule": n, "judge": n, "none": n}})


def _is_unparsed(item: Any) -> bool:
    """An answer no parser could read; an item error (runtime/item_errors.py) is that, not an unread answer."""
    return isinstance(item, dict) and item.get("parsed") is False and not item.get("item_error")


def note(items: Iterable[Any]) -> None:
    """Remember the unparsed items of one task's aggregation (the count, and up to MAX_EXAMPLES of them) and, when
    the extraction step is on (runtime/extraction.py), how every answer was read."""
    items = list(items)
    _note_read_by(items)
    bad = [it for it in items if _is_unparsed(it)]
    if not bad:
        return
    task = str(bad[0].get("task") or "?")
    examples = []
    for it in bad[:MAX_EXAMPLES]:
        text = str(it.get("response") or "")
        if len(text) > MAX_RESPONSE_CHARS:
            text = text[: MAX_RESPONSE_CHARS - 3] + "..."
        examples.append({"id": it.get("id"), "response": text, "reason": it.get("parse_reason") or ""})
    state = current()
    with state.lock:
        state.unparsed[task] = {"count": len(bad), "examples": examples}


def _note_read_by(items: list[Any]) -> None:
    from ambi_plugin.runtime.extraction import enabled

    if not enabled() or not items:
        return
    counts = {"rule": 0, "judge": 0, "none": 0}  # item errors are neither: no answer was given to read
    task = "?"
    for it in items:
        if isinstance(it, dict):
            task = str(it.get("task") or task)
            how = None if it.get("item_error") else it.get("read_by")
            if how in counts:
                counts[how] += 1
    state = current()
    with state.lock:
        state.read_by[task] = counts


def read_by() -> dict[str, dict[str, int]]:
    """{task: {"rule", "judge", "none"}} of every task of the run aggregated with the extraction step on."""
    state = current()
    with state.lock:
        return {task: dict(v) for task, v in sorted(state.read_by.items())}


def format_read_by(section: dict[str, Any]) -> str:
    """The lines ``ambi results`` prints for ``ambi_plugin.read_by``."""
    lines = []
    for task, c in sorted((section or {}).items()):
        if isinstance(c, dict):
            lines.append(f"{task}: rule {c.get('rule', 0)}, judge {c.get('judge', 0)}, unread {c.get('none', 0)}")
    return "\n".join(lines)


def examples() -> dict[str, dict[str, Any]]:
    """{task: {"count", "examples"}} of every task of the run aggregated with an unparsed answer."""
    state = current()
    with state.lock:
        return {task: dict(v) for task, v in sorted(state.unparsed.items())}


def clear() -> None:
    """Forget the run's unparsed answers and read-by counts."""
    state = current()
    with state.lock:
        state.unparsed.clear()
        state.read_by.clear()


def format_examples(section: dict[str, Any], *, per_task: int = 5) -> str:
    """The short list ``ambi results`` prints: per task, the count and the first ``per_task`` answers."""
    lines = []
    for task, info in sorted((section or {}).items()):
        if not isinstance(info, dict):
            continue
        try:
            count = str(int(info.get("count") or 0))
        except (TypeError, ValueError):
            count = repr(info.get("count"))
        lines.append(f"{task}: {count} unparsed")
        examples = info.get("examples")
        for ex in (examples if isinstance(examples, list) else [])[:per_task]:
            if not isinstance(ex, dict):  # a results JSON edited or written by another tool: shown as it is
                lines.append(f"  - {ex!r}"[:90])
                continue
            text = " ".join(str(ex.get("response") or "").split())
            text = text if len(text) <= 80 else text[:77] + "..."
            lines.append(f"  - {ex.get('id')}: {text!r} ({ex.get('reason') or 'unread'})")
    return "\n".join(lines)
