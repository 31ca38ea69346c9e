"""Read the public RCID copy as published and turn it into the canonical schema.

What the Hub copy ``mao1207/RCID`` is (its Hub pages, checked Nov 2026): an ``imagefolder`` dataset, one split
``test`` of 867 rows, columns ``image`` and ``label``; ``label`` is a ``ClassLabel`` of 4 classes, class 0
``look_like_different``. ``imagefolder`` names the classes after the folders and sorts them, so the other three
sort after ``look_like_different``. The copy holds no question, option, pixel or human answer, and no illusion type.

* **Classes**: read from the dataset's own ``ClassLabel`` (the folder names), never from a list of ours. A class
  name means one of :data:`MEANINGS`; the names we know (:data:`KNOWN_CLASSES`) are mapped, and
  ``$AMBI_RCID_CLASS_MAP`` ("folder name=meaning,...", e.g. ``looks_different=look_like_different``) maps others.
  A row of a class nobody mapped is a bad row ("unknown class"), skipped and counted; the load report lists every
  unknown class with its count and the variable to map it. Nothing is guessed.
* **Illusion type**: a ``type`` / ``illusion_type`` column, else a folder named ``contrast`` / ``stripe`` /
  ``filter`` *inside the download* (the path relative to the copy's folder: the cache or a user folder above it
  never counts), else ``$AMBI_RCID_TYPE``. A copy without it (the Hub copy) is said once in the load report; its
  rows are skipped as "no illusion type" and the tasks report NaN with that reason.
* **Stripe sides** follow the authors' construction code: a file name ending ``_<direction>.png`` (horizontal,
  vertical, diagonal_1, diagonal_2) names the compared sides (Left/Right, Top/Bottom, ...); without it, Left/Right.
* **Filter** rows have no acceptable color lists (the paper's filter data is not public): skipped; the filter tasks
  report NaN with that reason.

The questions come from the paper's templates (:data:`prompts.QUESTION`). A row we cannot score is reported with
its id and reason, skipped and counted. When a quarter or more of the rows are skipped (:data:`LOUD_SHARE`), a
warning names the classes the loader did not know. Results on this copy are zero-shot on its 867-row subset
(:data:`NOTE_ZERO_SHOT`, in the load report and the results JSON).
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
CONVERTER_VERSION = "4"
LOUD_SHARE = 0.25  # warn loudly when at least this share of the rows is skipped
log = logging.getLogger(__name__)

SAME, DARKER = [P.SAME], [0, 1]
# meaning -> (is_illusion, pixel answers, human answers)
MEANINGS: dict[str, tuple[bool, list[int], list[int]]] = {
    "look_like_different": (True, SAME, DARKER),  # same pixels, people see either side darker
    "look_like_same": (True, DARKER, SAME),  # different pixels, people see them the same
    "same": (False, SAME, SAME),  # a control: same pixels, seen the same
    "different": (False, DARKER, DARKER),  # a control: different pixels, seen different
}
# class names whose meaning is known: class 0 of the Hub copy, and names that are a meaning
KNOWN_CLASSES: dict[str, str] = {name: name for name in MEANINGS}
LABELS = {name: MEANINGS[meaning] for name, meaning in KNOWN_CLASSES.items()}  # kept for callers and tests
CLASS_MAP_VAR = "AMBI_RCID_CLASS_MAP"
NOTE_ZERO_SHOT = (
    "zero-shot on the public Hub copy (mao1207/RCID, a 867-image subset): the paper fine-tunes models on "
    "non-illusion images first and evaluates on splits that are not public, so its rows (Table 1, Figures 4 and 8) "
    "are not directly comparable"
)
NOTE_FILTER = (
    "the public copy has no filter data with acceptable color lists (the paper's filter set is not public): the "
    "filter tasks run on zero rows and report NaN"
)
# the authors' stripe construction: the compared sides per stripe direction (named in the image file name)
STRIPE_SIDES = {
    "horizontal": ("Left", "Right"),
    "vertical": ("Top", "Bottom"),
    "diagonal_1": ("Top-left", "Bottom-right"),
    "diagonal_2": ("Bottom-left", "Top-right"),
}


def class_map(text: str | None = None) -> dict[str, str]:
    """The known class names plus ``$AMBI_RCID_CLASS_MAP`` ("name=meaning,..."); raises ValueError for a meaning
    that is not one of :data:`MEANINGS`."""
    text = os.environ.get(CLASS_MAP_VAR, "") if text is None else text
    out = dict(KNOWN_CLASSES)
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        name, sep, meaning = part.partition("=")
        if not sep or meaning.strip() not in MEANINGS:
            raise ValueError(
                f"{CLASS_MAP_VAR}: {part!r} is not 'class name=meaning' with a meaning among {', '.join(MEANINGS)}"
            )
        out[name.strip()] = meaning.strip()
    return out


def _label_name(row: dict, names: list[str] | None) -> str | None:
    lab = row.get("label")
    if isinstance(lab, int) and names and 0 <= lab < len(names):
        return names[lab]
    return None if lab is None else str(lab)


def _image_path(image: Any) -> str:
    if isinstance(image, dict):
        return str(image.get("path") or "")
    return str(getattr(image, "filename", "") or "")


def inside(path: str, download: Path | None) -> list[str]:
    """The folders of ``path`` below the download's folder (none when it is not inside it, or no folder given)."""
    if not path or download is None:
        return []
    p = Path(path)
    for root in dict.fromkeys((Path(download), Path(download).resolve())):
        for cand in (p, p.resolve()):
            try:
                return [x.lower() for x in cand.relative_to(root).parts[:-1]]
            except ValueError:
                continue
    return []


def _type_of(row: dict, folders: list[str], default_type: str | None) -> str | None:
    for key in ("type", "illusion_type"):
        val = str(row.get(key) or "").strip().lower()
        if val in P.TYPES:
            return val
    found = [t for t in P.TYPES if t in folders]
    if len(found) == 1:
        return found[0]
    return default_type


def stripe_direction(path: str) -> str | None:
    """The stripe direction the authors' construction code writes into a file name (``image_3_vertical.png``)."""
    m = re.search(r"_(horizontal|vertical|diagonal_1|diagonal_2)$", Path(path).stem)
    return m.group(1) if m else None


def stripe_options(direction: str | None) -> list[str]:
    first, second = STRIPE_SIDES.get(direction or "horizontal", ("Left", "Right"))
    return [f"{first} is darker", f"{second} is darker", P.OPTIONS["stripe"][P.SAME]]


def convert_split(
    rows,
    names: list[str] | None,
    split: str,
    root: Path,
    *,
    default_type: str | None,
    download: Path | None = None,
    mapping: dict[str, str] | None = None,
):
    """Rows of one split -> (items, skipped); images are saved under ``root/images/<split>/``."""
    from ambi_plugin.benchmarks.hub import save_image

    mapping = class_map() if mapping is None else mapping
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
        ttype = _type_of(row, inside(path, download), default_type)
        reason, kind = None, None
        if label is None:
            reason, kind = "no class label (the folders give none: files at mixed depths?)", "unknown_label"
        elif label not in mapping:
            reason = f"unknown class: {label!r} has no known meaning (map it: {CLASS_MAP_VAR}='{label}=<meaning>')"
            kind = "unknown_label"
        elif ttype is None:
            reason = "no illusion type: the copy gives none (no type column or folder; set AMBI_RCID_TYPE)"
            kind = "unknown_type"
        elif ttype == "filter":
            reason, kind = "filter: no acceptable color lists for a filter image (the class gives none)", "filter"
        elif image is None:
            reason, kind = "no image", "no_image"
        if reason is None:
            rel = f"images/{split}/{rid}.png"
            try:
                save_image(image, root / rel)
                from ambi_plugin.core.images import open_image

                with open_image(root / rel) as im:  # over AMBI_MAX_IMAGE_PIXELS: refused before decoding
                    im.load()
            except Exception as exc:  # noqa: BLE001 - a bad image is a bad row, never fatal
                reason, kind = f"bad image: it cannot be read ({type(exc).__name__}: {exc})", "bad_image"
                (root / rel).unlink(missing_ok=True)
        if reason is not None:
            skipped.append({"id": rid, "reason": reason, "kind": kind, "label": label})
            if kind != "unknown_type":  # said once for the whole copy (convert)
                log.warning("RCID: skipped row %s: %s", rid, reason)
            continue
        meaning = mapping[label]
        is_ill, pixel, human = MEANINGS[meaning]
        extra: dict[str, Any] = {"label": label, "split": split}
        options = None
        if ttype == "stripe":
            direction = stripe_direction(path)
            options = stripe_options(direction)
            if direction:
                extra["direction_from_file_name"] = direction
        items.append(
            RcidItem(
                id=rid,
                illusion_type=ttype,
                image=rel,
                is_illusion=is_ill,
                question=P.QUESTION[ttype],
                pixel=list(pixel),
                human=list(human),
                options=options,
                source=f"{HUB_ID}:{split}",
                extra=extra,
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
        f"{labels}. Known class names: {', '.join(KNOWN_CLASSES)}; map others with {CLASS_MAP_VAR}='<class>="
        f"<meaning>,...' (meanings: {', '.join(MEANINGS)}). The illusion type comes from a type column or a "
        "contrast/stripe/filter folder inside the download; if the copy holds one illusion type, set "
        "AMBI_RCID_TYPE (docs/rcid.md, 'Reading the Hub copy'). Skipped ids and reasons: manifest.json of the copy."
    )


def convert(
    dsets, root: Path, *, source: str, default_type: str | None = None, download: str | Path | None = None
) -> dict:
    """A loaded DatasetDict (or {split: rows}) -> a canonical copy in ``root``; returns the manifest. ``download``
    is the copy's folder: only folders below it can name an illusion type."""
    mapping = class_map()
    items, skipped = [], []
    classes: dict[str, list[str]] = {}
    for split, rows in dsets.items():
        feats = getattr(rows, "features", None) or {}
        names = getattr(feats.get("label"), "names", None) if hasattr(feats, "get") else None
        if names:
            classes[split] = list(names)
        if hasattr(rows, "cast_column") and "image" in feats:
            import datasets

            rows = rows.cast_column("image", datasets.Image(decode=False))  # keep path + bytes
        got, bad = convert_split(
            rows,
            names,
            split,
            root,
            default_type=default_type,
            download=Path(download) if download else None,
            mapping=mapping,
        )
        items += got
        skipped += bad
    notes = []
    unknown = Counter(str(s.get("label")) for s in skipped if s.get("kind") == "unknown_label" and s.get("label"))
    if unknown:
        notes.append(
            "classes with no known meaning (rows skipped): "
            + ", ".join(f"{lab!r} x{n}" for lab, n in unknown.most_common())
            + f"; map them with {CLASS_MAP_VAR}='<class>=<meaning>,...' (meanings: {', '.join(MEANINGS)}; "
            "docs/rcid.md)"
        )
    untyped = sum(1 for s in skipped if s.get("kind") == "unknown_type")
    if untyped:
        notes.append(
            f"{untyped} rows carry no illusion type (no type column, no contrast/stripe/filter folder inside the "
            "download): skipped; set AMBI_RCID_TYPE when the copy holds one type"
        )
    warnings = []
    loud = skip_warning(skipped, len(items) + len(skipped), source)
    if loud:
        warnings.append(loud)
        log.warning("%s\n%s\n%s", "!" * 79, loud, "!" * 79)
    elif skipped:
        log.warning("RCID: %d row(s) skipped; ids and reasons are in the copy's manifest.json", len(skipped))
    manifest = write_copy(root, items, skipped=skipped, source=source, warnings=warnings, notes=notes, classes=classes)
    return manifest


def load_report(manifest: dict, source: str, rows_read: int | None = None, *, hub: bool = True):
    """The shared :class:`~ambi_plugin.benchmarks.release.LoadReport` of a converted copy (its manifest); ``hub``: a
    copy of the Hub release (results on it are zero-shot on a subset: :data:`NOTE_ZERO_SHOT`)."""
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
    for text in [*(manifest.get("notes") or []), *(manifest.get("warnings") or [])]:
        report.note(text)
    untyped = any(s.get("kind") == "unknown_type" for s in skipped)
    for name, n in counts.items():
        if n:
            continue
        ttype = name.split("_")[1]
        if ttype == "filter":
            why = NOTE_FILTER
        elif (manifest.get("images") or {}).get(ttype):
            why = (
                "too few illusion items of this type whose human answer is a single option (the few-shot "
                "human-like examples need one)"
                if name.endswith("fewshot_hl")
                else "too few illusion items of this type for three few-shot examples besides the query"
            )
        else:
            why = f"the copy holds no usable {ttype} rows" + (
                " (its rows carry no illusion type: set AMBI_RCID_TYPE for a one-type copy)" if untyped else ""
            )
        report.lacks(name, why)
    if hub:
        report.note(NOTE_ZERO_SHOT)
        report.results_notes.append(NOTE_ZERO_SHOT)
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
    classes = os.environ.get(CLASS_MAP_VAR, "")
    class_map(classes)  # a bad mapping fails here, with one line
    key = source_key(CONVERTER_VERSION, folder, str(dtype), classes, read=[Path(folder).resolve()])
    out = benchmark_cache("rcid", key)
    if (out / ".complete").is_file():
        return out
    loaded = load_hub_dataset(folder, benchmark="rcid")

    def build(tmp: Path) -> None:
        manifest = convert(loaded, tmp, source=label, default_type=dtype, download=folder)
        load_report(manifest, label).emit(tmp)

    return materialize(out, build)
