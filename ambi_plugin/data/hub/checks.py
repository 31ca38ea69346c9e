"""Checks every record must pass to be built or published: one problem line each, naming the record.

Shared by ``ambi build`` (records read from a canonical folder) and ``ambi validate`` (rows of a built folder):
required fields (the record schema), known category, unique ids within a records file, every image present and
decodable, boxes and regions inside the image, answers among the options.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from dataclasses import dataclass, field

from ambi_plugin.core.schema import RecordError, validate_record
from ambi_plugin.data.hub.features import media_paths


@dataclass
class Checked:
    """What checking one record found: its problems, and the media it read (path -> bytes, path -> size)."""

    problems: list[str] = field(default_factory=list)
    media: dict[str, bytes] = field(default_factory=dict)
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)
    video: bytes | None = None


def decode_size(blob: bytes) -> tuple[int, int]:
    """Decode an image fully (not only its header); return (width, height). Raises on a broken file."""
    from ambi_plugin.core.images import decode

    im = decode(blob, mode=None)  # a truncated file raises, whatever PIL's global policy (core/images.py)
    return im.width, im.height


def _inside(box: list, size: tuple[int, int]) -> bool:
    w, h = size
    x1, y1, x2, y2 = (float(v) for v in box)
    return 0 <= x1 <= x2 <= w and 0 <= y1 <= y2 <= h


def check_record(
    rec: object,
    *,
    where: str,
    read: Callable[[str], bytes | None],
    categories: Container[str] | None,
    seen: set[str],
) -> Checked:
    """Check one record; ``read(path)`` returns a media file's bytes or None when it is missing."""
    out = Checked()
    try:
        validate_record(rec)  # type: ignore[arg-type]
    except RecordError as exc:
        out.problems.append(f"{where}: {exc}")
        return out
    assert isinstance(rec, dict)
    rid = str(rec["id"])
    if rid in seen:
        out.problems.append(f"{where}: record id={rid!r}: duplicate id (ids must be unique within a records file)")
    seen.add(rid)
    if categories is not None and rec["category"] not in categories:
        out.problems.append(f"{where}: record id={rid!r}: unknown category {rec['category']!r}")
    if rec["task_type"] in ("true_false", "yes_no") and not isinstance(rec.get("answer_bool"), bool):
        out.problems.append(f"{where}: record id={rid!r}: field 'answer_bool' must be true or false")
    if "options" in rec and rec.get("options") is not None:
        n = len(rec["options"])
        for key in ("source_answer_index",):
            src = rec.get("source_options")
            if rec.get(key) is not None and not (isinstance(src, list) and 0 <= rec[key] < len(src)):
                out.problems.append(f"{where}: record id={rid!r}: field '{key}' is not an index into 'source_options'")
        unknown = rec.get("gold_unknown") is True  # a release without answers (VIA-Bench's challenge split)
        if rec["task_type"] == "choice" and not unknown and not 0 <= int(rec.get("answer_index", -1)) < n:
            out.problems.append(f"{where}: record id={rid!r}: the answer is not among the {n} options")
    for path in media_paths(rec):
        blob = read(path)
        if blob is None:
            out.problems.append(f"{where}: record id={rid!r}: field 'image': {path!r} is missing")
            continue
        try:
            out.sizes[path] = decode_size(blob)
        except Exception as exc:  # noqa: BLE001 - any decoder failure is a bad image
            from PIL import UnidentifiedImageError

            why = "not an image file" if isinstance(exc, UnidentifiedImageError) else f"{type(exc).__name__}: {exc}"
            out.problems.append(f"{where}: record id={rid!r}: field 'image': {path!r} does not decode ({why})")
            continue
        out.media[path] = blob
    if isinstance(rec.get("video"), str):
        out.video = read(rec["video"])
        if out.video is None:
            out.problems.append(f"{where}: record id={rid!r}: field 'video': {rec['video']!r} is missing")
    own = media_paths({"image": rec.get("image")})
    size = out.sizes.get(own[0]) if own else None
    if size is not None:
        for b in rec.get("boxes") or []:
            if not _inside(b["box"], size):
                out.problems.append(
                    f"{where}: record id={rid!r}: box {b['box']} of {b.get('label', '')!r} lies outside the "
                    f"{size[0]}x{size[1]} image"
                )
        if rec.get("region") and not _inside(rec["region"], size):
            out.problems.append(f"{where}: record id={rid!r}: region {rec['region']} lies outside the image")
    return out


__all__ = ["Checked", "check_record", "decode_size"]
