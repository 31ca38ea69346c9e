"""Read the public RCID copy as published and turn it into the canonical schema.

What could be checked (Nov 2026, with the search tool): the Hub page of ``mao1207/RCID`` shows one subset
(``default``) and one split (``test``) of 867 rows; its viewer did not load, and no card text, column list
or class names could be read. The authors' GitHub repository (``mao1207/RCID``) links the dataset and says
nothing about its layout. Everything else below is **assumed** (docs/rcid.md, "What the Hub loader assumes"):

* an ``imagefolder`` layout: columns ``image`` and ``label`` (a class per image), no questions, no answers;
* the class names of :data:`LABELS`:

  - ``look_like_different``: the two regions are the same in pixels but people see them differ: an illusion;
    pixel answer "They are exactly same", human answer either "darker" option (the class does not say which
    side looked darker, so both count as human-like);
  - ``look_like_same``: the regions differ in pixels but look the same: an illusion; human answer "exactly
    same", pixel answer either "darker" option;
  - ``same`` / ``different`` (also ``is_same`` / ``is_different``): controls, humans agree with the pixels;

* the illusion type in a ``type`` / ``illusion_type`` column, else a folder of the image path named
  ``contrast``, ``stripe`` or ``filter``, else ``default_type`` (``$AMBI_RCID_TYPE``) when the user knows the
  copy holds one type.

The questions come from the paper's templates (:data:`prompts.QUESTION`). Filter images need color lists
the class cannot give. A row we cannot score (unknown class, unknown type, a filter row, an unreadable
image) is reported with its id and reason, skipped and counted. When a quarter or more of the rows are
skipped (:data:`LOUD_SHARE`), a warning names the classes the loader did not know, so a release that
differs from these assumptions cannot pass unnoticed (it is also kept in ``manifest.json`` and the load
report).
"""

from __future__ import annotations

import logging
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from . import prompts as P
from .records import RcidItem, write_copy

HUB_ID = "mao1207/RCID"
LOUD_SHARE = 0.25  # warn loudly when at least this share of the rows is skipped
log = logging.getLogger(__name__)

SAME, DARKER = [P.SAME], [0, 1]
# class -> (is_illusion, pixel answers, human answers)
LABELS: dict[str, tuple[bool, list[int], list[int]]] = {
    "look_like_different": (True, SAME, DARKER),
    "look_like_same": (True, DARKER, SAME),
    "same": (False, SAME, SAME),
    "is_same": (False, SAME, SAME),
    "different": (False, DARKER, DARKER),
    "is_different": (False, DARKER, DARKER),
}


def _label_name(row: dict, names: list[str] | None) -> str | None:
    lab = row.get("label")
    if isinstance(lab, int) and names and 0 <= lab < len(names):
        return names[lab]
    return None if lab is None else str(lab)


def _image_path(image: Any) -> str:
    if isinstance(image, dict):
        return str(image.get("path") or "")
    return str(getattr(image, "filename", "") or "")


def _type_of(row: dict, path: str, default_type: str | None) -> str | None:
    for key in ("type", "illusion_type"):
        val = str(row.get(key) or "").strip().lower()
        if val in P.TYPES:
            return val
    parts = [p.lower() for p in re.split(r"[\\/]", path)[:-1]]
    found = [t for t in P.TYPES if t in parts]
    if len(found) == 1:
        return found[0]
    return default_type


def convert_split(rows, names: list[str] | None, split: str, root: Path, *, default_type: str | None):
    """Rows of one split -> (items, skipped); images are saved under ``root/images/<split>/``."""
    from ambi_plugin.benchmarks.hub import save_image

    items: list[RcidItem] = []
    skipped: list[dict] = []
    seen: set[str] = set()
    for k, row in enumerate(rows):
        image = row.get("image")
        path = _image_path(image)
        stem = re.sub(r"[^\w.-]+", "_", Path(path).stem) if path else ""
        rid = f"{split}_{stem}" if stem else f"{split}_{k:04d}"
        rid = rid if rid not in seen else f"{rid}_{k}"
        seen.add(rid)
        label = _label_name(row, names)
        ttype = _type_of(row, path, default_type)
        reason, kind = None, None
        if label is None:
            reason, kind = "no class label (the folders give none: files at mixed depths?)", "unknown_label"
        elif label not in LABELS:
            reason = f"label {label!r} is not one we can score (known: {', '.join(LABELS)})"
            kind = "unknown_label"
        elif ttype is None:
            reason = "illusion type unknown (no type column, no contrast/stripe/filter folder; set AMBI_RCID_TYPE)"
            kind = "unknown_type"
        elif ttype == "filter":
            reason, kind = "filter image without acceptable color lists (the class gives none)", "filter"
        elif image is None:
            reason, kind = "no image", "no_image"
        if reason is None:
            rel = f"images/{split}/{rid}.png"
            try:
                save_image(image, root / rel)
                from PIL import Image

                with Image.open(root / rel) as im:
                    im.load()
            except Exception as exc:  # noqa: BLE001 - a bad image is a bad row, never fatal
                reason, kind = f"image cannot be read ({type(exc).__name__}: {exc})", "bad_image"
                (root / rel).unlink(missing_ok=True)
        if reason is not None:
            skipped.append({"id": rid, "reason": reason, "kind": kind, "label": label})
            log.warning("RCID: skipped row %s: %s", rid, reason)
            continue
        is_ill, pixel, human = LABELS[label]
        items.append(
            RcidItem(
                id=rid,
                illusion_type=ttype,
                image=rel,
                is_illusion=is_ill,
                question=P.QUESTION[ttype],
                pixel=list(pixel),
                human=list(human),
                source=f"{HUB_ID}:{split}",
                extra={"label": label, "split": split},
            )
        )
    return items, skipped


def skip_warning(skipped: list[dict], total: int, source: str) -> str | None:
    """The loud warning for a read that skipped at least :data:`LOUD_SHARE` of its rows (None otherwise): how
    many, why, and the class labels the loader did not know."""
    if not total or len(skipped) < LOUD_SHARE * total:
        return None
    kinds = Counter(str(s.get("kind") or "other") for s in skipped)
    unknown = Counter(str(s.get("label")) for s in skipped if s.get("kind") == "unknown_label")
    labels = ", ".join(f"{lab!r} ({n})" for lab, n in unknown.most_common()) or "none"
    return (
        f"RCID: {len(skipped)} of {total} rows ({100 * len(skipped) / total:.0f}%) of {source} were skipped "
        f"({', '.join(f'{k} {n}' for k, n in kinds.most_common())}). Class labels this loader does not know: "
        f"{labels}. The loader assumes the classes {', '.join(LABELS)} and the illusion type in a type column or "
        "a contrast/stripe/filter folder (docs/rcid.md, 'What the Hub loader assumes'); the release may differ. "
        "If it holds one illusion type, set AMBI_RCID_TYPE; if its classes differ, extend LABELS in "
        "ambi_plugin/benchmarks/rcid/hub.py. Skipped ids and reasons: manifest.json of the copy."
    )


def convert(dsets, root: Path, *, source: str, default_type: str | None = None) -> dict:
    """A loaded DatasetDict (or {split: rows}) -> a canonical copy in ``root``; returns the manifest."""
    items, skipped = [], []
    for split, rows in dsets.items():
        feats = getattr(rows, "features", None) or {}
        names = getattr(feats.get("label"), "names", None) if hasattr(feats, "get") else None
        if hasattr(rows, "cast_column") and "image" in feats:
            import datasets

            rows = rows.cast_column("image", datasets.Image(decode=False))  # keep path + bytes
        got, bad = convert_split(rows, names, split, root, default_type=default_type)
        items += got
        skipped += bad
    warnings = []
    loud = skip_warning(skipped, len(items) + len(skipped), source)
    if loud:
        warnings.append(loud)
        log.warning("%s\n%s\n%s", "!" * 79, loud, "!" * 79)
    elif skipped:
        log.warning("RCID: %d row(s) skipped; ids and reasons are in the copy's manifest.json", len(skipped))
    return write_copy(root, items, skipped=skipped, source=source, warnings=warnings)


def load_report(manifest: dict, source: str, rows_read: int | None = None):
    """The shared :class:`~ambi_plugin.benchmarks.release.LoadReport` of a converted copy (its manifest)."""
    from ambi_plugin.benchmarks.release import LoadReport

    report = LoadReport("rcid", source)
    counts = manifest.get("counts") or {}
    skipped = manifest.get("skipped") or []
    items = int(manifest.get("items") or 0)
    report.read(rows_read if rows_read is not None else items + len(skipped))
    report.load(items)
    for name, n in counts.items():
        report.wrote(f"ambi_{name}", n)
    for ttype, names in (manifest.get("variants") or {}).items():
        made = (manifest.get("images") or {}).get(ttype, 0)
        if made:
            report.note(
                f"{ttype}: {made} items, each asked in {len(names)} prompt variants ({', '.join(names)}): "
                f"{made * len(names)} records (records are variants of items, not rows of the release)"
            )
    for row in skipped:
        reason = str(row.get("reason", ""))
        kind = reason.split("(", 1)[0].strip() or "bad row"
        report.skip(row.get("id"), reason if ":" in reason.split("(", 1)[0] else f"{kind}: {reason}")
    for text in manifest.get("warnings") or []:
        report.note(text)
    return report


def materialize_from_hub(source: str | None = None, default_type: str | None = None) -> Path:
    """The Hub release (``$AMBI_RCID_HUB``, default ``mao1207/RCID``; a local folder laid out like the Hub
    works too) as canonical records in the cache, fetched through ``huggingface_hub`` into the HF cache (offline,
    ``HF_HUB_OFFLINE=1``, only the cache is read). Bad rows are skipped and counted in the load report."""
    from ambi_plugin.benchmarks.hub import benchmark_cache, load_hub_dataset, materialize, source_key
    from ambi_plugin.benchmarks.release import hub_snapshot

    src = source or os.environ.get("AMBI_RCID_HUB") or HUB_ID
    dtype = default_type or os.environ.get("AMBI_RCID_TYPE") or None
    if dtype is not None and dtype not in P.TYPES:
        raise ValueError(f"AMBI_RCID_TYPE={dtype!r}; expected one of {', '.join(P.TYPES)}")
    local = Path(str(src)).expanduser()
    folder, label = (
        (str(local.resolve()), str(src))
        if local.exists()
        else (str(hub_snapshot(src, benchmark="rcid")), f"hf://datasets/{src}")
    )
    out = benchmark_cache("rcid", source_key("3", folder, str(dtype), read=[Path(folder).resolve()]))
    if (out / ".complete").is_file():
        return out
    loaded = load_hub_dataset(folder, benchmark="rcid")

    def build(tmp: Path) -> None:
        manifest = convert(loaded, tmp, source=label, default_type=dtype)
        load_report(manifest, label).emit(tmp)

    return materialize(out, build)
