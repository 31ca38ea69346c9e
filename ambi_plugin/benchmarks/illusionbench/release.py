"""IllusionBench as published: the authors' release and lmms-eval's converted Hub copy, bad rows counted.

**The authors' release** (Hub repo :data:`AUTHORS_REPO`): ``Image_properties.json`` plus ``IllusionDataset.zip``.
The JSON is a list with one entry per image::

    {"image_property": {"image_name", "Category", "Difficult Level", "Description"},
     "qa_data": [{"Question", "Question Type": "TF" | "select", "Correct Answer"}, ...]}

Multiple-choice options are written inside ``Question`` ("... i. A hat ii. A t-shirt iii. ... iv. ...") and
``Correct Answer`` is "ii. A t-shirt" or the option text. Rows: each question of an entry is a row, and so is its
``Description`` (an empty one is a bad row of the description task: skipped, counted; the questions stay). An
entry listed again for the same image: identical, its rows are merged duplicates; different, its rows are kept under
ids ``<image>#<entry number>:...`` and flagged. ``Category`` is a letter: A (Classic Cognitive), B (Real
Scene), C (Trap), as the copies on the Hub publish it; Ishihara and no-illusion images are not told apart, so those
breakdowns are reported as NaN (PROTOCOL). ``$AMBI_ILLUSIONBENCH_CATEGORY_MAP`` ("C=ishihara") overrides single
letters; the others keep their published meaning. ``Description`` is the golden description.

**lmms-eval's copy** (``lmms-lab-eval/IllusionBench``, made by lmms-eval's ``tasks/illusionbench/convert_dataset.py``:
one row per question with the image embedded, ``category`` "A" / "B" / "C" ("Unknown" when missing),
``difficulty_level`` an integer (0 when missing), no golden descriptions): read by
``illusionbench.records_from_lmms_rows`` row by row, bad rows skipped and counted the same way. Its description task
has no records: it runs on zero rows and reports NaN, with the reason in the load summary and the results JSON.

Bad rows (reported with their id and reason, skipped, counted; the rest runs): an image listed but missing from the
zip, more than four options (markers up to ``vi``), an answer among no option, a true/false answer that is neither,
an unknown question type. A category or difficulty the release does not give (missing, "Unknown", level 0) is no
reason to drop a row: it is kept with the breakdown value ``unknown`` (in the overall metrics, in no subset) and its
id is flagged in the load report. macOS ``._`` entries of the zip are ignored (counted in a note); text with U+FFFD
characters is kept as published and its row ids are flagged.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.benchmarks.archives import check_zip, open_zip
from ambi_plugin.benchmarks.illusionbench.release_rows import (  # noqa: F401 - re-exported
    _MARKER,
    _ROMAN,
    ANNOTATIONS,
    AUTHORS_REPO,
    CONVERTER_VERSION,
    FLAG_CATEGORY,
    FLAG_DIFFICULTY,
    FLAG_FFFD,
    FLAG_SAME_IMAGE,
    IMAGE_SUFFIXES,
    IMAGES_ZIP,
    LETTER_CATEGORIES,
    LMMS_REPO,
    NOTE_LETTERS,
    NOTE_UNKNOWN,
    _declare_categories,
    _flag_unknown,
    _images_of,
    _is_tf,
    _known,
    _question_record,
    _write,
    category_of,
    option_count,
)
from ambi_plugin.benchmarks.release import LoadReport, hub_snapshot, unpack_zip
from ambi_plugin.benchmarks.rows import BadRow, check_row, iter_array, short_id
from ambi_plugin.config import strict_mode
from ambi_plugin.inputfiles import named_input


def convert_authors(root: Path, out: Path, report: LoadReport, *, shuffle_seed: int) -> dict[str, int]:
    """``Image_properties.json`` (+ its images) below ``root`` -> canonical records in ``out``."""
    from tqdm import tqdm

    ann = next(iter(sorted(root.rglob(ANNOTATIONS))), None)
    if ann is None:
        raise FileNotFoundError(f"{root}: no {ANNOTATIONS} (the IllusionBench authors' annotations)")
    try:  # entry by entry: one nested too deeply is a bad row, the others are read (benchmarks/rows.py)
        with named_input(ann, "annotation file"):
            entries = list(iter_array(ann.read_text(encoding="utf-8"), check_text=False))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{ann}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except ValueError as exc:
        raise ValueError(f"{ann}: {exc} (expected a list of image entries)") from None
    files, members, archive, junk = _images_of(root)
    if archive is not None:
        check_zip(archive)  # the unpack limits, before a byte of it is copied (refused: nothing is kept)
    cat_map = IB.parse_map(os.environ.get("AMBI_ILLUSIONBENCH_CATEGORY_MAP"))
    diff_map = IB.parse_map(os.environ.get("AMBI_ILLUSIONBENCH_DIFFICULTY_MAP"))
    out_recs: dict[str, list[dict]] = {name: [] for name in IB.FILES.values()}
    task_of = {"true_false": "ambi_illusionbench_tf", "choice": "ambi_illusionbench_mc"}
    used: set[str] = set()
    first_entry: dict[str, tuple[int, str]] = {}  # image_name -> (entry number, its content), for duplicates
    zf = open_zip(archive) if archive is not None else None
    try:
        for n, entry, unreadable in tqdm(entries, desc="IllusionBench: images", unit="image"):
            if unreadable is not None:
                report.read()
                report.skip(f"entry {n}", unreadable)
                continue
            prop = (entry or {}).get("image_property") if isinstance(entry, dict) else None
            qas = (entry or {}).get("qa_data") if isinstance(entry, dict) else None
            if not isinstance(prop, dict) or not isinstance(qas, list):
                report.read()
                report.skip(f"entry {n}", "bad entry: no image_property / qa_data")
                continue
            try:  # the entry's own fields (its name, category, ...): over the text limit, every row of it is bad
                check_row({k: v for k, v in prop.items() if k != "Description"})
            except BadRow as exc:
                report.read(len(qas) + 1)
                rid = short_id(prop.get("image_name"), f"entry {n}")
                for k, q in enumerate(qas):
                    report.skip(f"{rid}:{'tf' if _is_tf(q) else 'mc'}{k}", str(exc), task=task_of[_kind(q)])
                report.skip(f"{rid}:desc", str(exc), task="ambi_illusionbench_description")
                continue
            name = str(prop.get("image_name") or "").strip()
            content = json.dumps(entry, sort_keys=True, ensure_ascii=False)
            prefix = name
            if name in first_entry:  # the image listed again: identical -> kept once; different -> a distinct id
                earlier, earlier_content = first_entry[name]
                if content == earlier_content:
                    report.read(len(qas) + 1)
                    for k, q in enumerate(qas):
                        report.merge(
                            f"{name}:{'tf' if _is_tf(q) else 'mc'}{k} (entry {n})",
                            f"duplicate row: entry {n} is identical to entry {earlier}",
                            task=task_of["true_false" if _is_tf(q) else "choice"],
                        )
                    report.merge(
                        f"{name}:desc (entry {n})",
                        f"duplicate row: entry {n} is identical to entry {earlier}",
                        task="ambi_illusionbench_description",
                    )
                    continue
                prefix = f"{name}#{n}"
                report.flag(FLAG_SAME_IMAGE, prefix)
            else:
                first_entry[name] = (n, content)
            rows = [(f"{prefix}:{'tf' if _is_tf(q) else 'mc'}{k}", q) for k, q in enumerate(qas)]
            report.read(len(rows) + 1)  # its questions and its description
            problem = None
            if not name or Path(name).name != name:
                problem = f"bad image_name: {name!r}"
            elif name not in files and name not in members:
                problem = f"missing image: {name} is listed but not in the release's images"
            if problem is not None:
                for rid, q in rows:
                    report.skip(rid, problem, task=task_of["true_false" if _is_tf(q) else "choice"])
                report.skip(f"{prefix}:desc", problem, task="ambi_illusionbench_description")
                continue
            desc = str(prop.get("Description") or "").strip()
            if not desc:
                report.skip(
                    f"{prefix}:desc",
                    "no description: the entry's Description is empty (its questions are kept)",
                    task="ambi_illusionbench_description",
                )
            else:
                try:
                    check_row({"Description": desc})
                except BadRow as exc:
                    report.skip(f"{prefix}:desc", str(exc), task="ambi_illusionbench_description")
                    desc = ""
            ids = [rid for rid, _ in rows] + ([f"{prefix}:desc"] if desc else [])
            category = _known(IB.UNKNOWN, category_of, prop.get("Category"), cat_map)
            difficulty = _known(IB.UNKNOWN, IB.normalize_difficulty, prop.get("Difficult Level"), diff_map)
            _flag_unknown(report, ids, category, difficulty)
            if "\ufffd" in desc:
                report.flag(FLAG_FFFD, f"{prefix}:desc")
            image = f"images/{name}"
            for rid, qa in rows:
                text = " ".join(str(qa.get(k, "")) for k in ("Question", "Correct Answer"))
                if "\ufffd" in text:
                    report.flag(FLAG_FFFD, rid)
                kind = _kind(qa)
                try:
                    check_row(qa)  # a text field over AMBI_MAX_TEXT_CHARS: a bad row
                    rec = _question_record(rid, qa, image, category, difficulty, shuffle_seed)
                except ValueError as exc:
                    report.skip(rid, str(exc), task=task_of[kind])
                    continue
                out_recs[IB.FILES[kind]].append(rec)
                report.load()
                used.add(name)
            if desc:
                rec = IB._base(f"{prefix}:desc", "description", image, category, difficulty, AUTHORS_REPO)
                rec["description"] = desc
                out_recs[IB.FILES["description"]].append(rec)
                report.load()
                used.add(name)
        (out / "images").mkdir(parents=True, exist_ok=True)
        for name in sorted(used):
            dst = out / "images" / name
            if name in files:
                shutil.copyfile(files[name], dst)
            else:
                with zf.open(members[name]) as src, dst.open("wb") as fh:  # type: ignore[union-attr]
                    shutil.copyfileobj(src, fh)
    finally:
        if zf is not None:
            zf.close()
    if junk:
        report.note(f"{junk} macOS '._' / __MACOSX entries in the release's images were ignored")
    report.note(NOTE_LETTERS)
    return _write(out, out_recs, report)


def _kind(qa) -> str:
    return "true_false" if _is_tf(qa) else "choice"


def convert_lmms(dsets, out: Path, report: LoadReport, *, source: str, shuffle_seed: int) -> dict[str, int]:
    """lmms-eval's converted copy (one row per question, image embedded) -> canonical records, row by row."""
    from tqdm import tqdm

    from ambi_plugin.benchmarks.hub import save_image

    split = "test" if "test" in dsets else next(iter(dsets))
    out_recs: dict[str, list[dict]] = {IB.FILES["true_false"]: [], IB.FILES["choice"]: []}
    # an override replaces single letters; the others keep their published meaning
    cat_map = {**LETTER_CATEGORIES, **IB.parse_map(os.environ.get("AMBI_ILLUSIONBENCH_CATEGORY_MAP"))}
    diff_map = IB.parse_map(os.environ.get("AMBI_ILLUSIONBENCH_DIFFICULTY_MAP"))
    for n, row in enumerate(tqdm(dsets[split], desc=f"IllusionBench: {source}", unit="row")):
        report.read()
        rid = short_id(row.get("question_id"), f"{short_id(row.get('image_name'), 'row')}:{n}")
        plain = {k: v for k, v in row.items() if k != "image"}
        qtype = short_id(str(row.get("question_type")), "")
        task = "ambi_illusionbench_tf" if IB._words(qtype) == "tf" else "ambi_illusionbench_mc"
        try:
            check_row(plain)  # a text field over AMBI_MAX_TEXT_CHARS: a bad row
        except BadRow as exc:
            report.skip(rid, str(exc), task=task)
            continue
        try:
            if row.get("image") is None:
                raise ValueError("missing image: the row has no image")
            n_options = option_count(str(row.get("question") or "")) if task == "ambi_illusionbench_mc" else 0
            if n_options > 4:
                raise ValueError(f"more than four options: {n_options} option markers (up to {_ROMAN[n_options - 1]}.)")
            got = IB.records_from_lmms_rows(
                [plain],
                shuffle_seed=shuffle_seed,
                source=source,
                category_map=cat_map,
                difficulty_map=diff_map,
                keep_unknown=True,
            )
        except ValueError as exc:
            report.skip(rid, _reason(str(exc)), task=task)
            continue
        name = str(row.get("image_name") or f"{rid}.png")
        save_image(row["image"], out / "images" / name)
        report.load()
        if any("\ufffd" in str(row.get(k) or "") for k in ("question", "answer")):
            report.flag(FLAG_FFFD, rid)
        for key, recs in got.items():
            for rec in recs:
                rec["id"] = rid if rec["id"].endswith(":0") else rec["id"]
                out_recs[key].append(rec)
                _flag_unknown(report, [rec["id"]], *(rec["breakdown"][f] for f in IB.BREAKDOWN_FIELDS))
    report.note(NOTE_LETTERS)
    report.lacks(
        IB.FILES["description"],
        f"lmms-eval's copy ({LMMS_REPO}, made by its tasks/illusionbench/convert_dataset.py) has no golden "
        "descriptions; the authors' release has them (AMBI_ILLUSIONBENCH_HUB=" + AUTHORS_REPO + ")",
    )
    return _write(out, out_recs, report)


def _reason(text: str) -> str:
    """A loader message as ``kind: detail``."""
    low = text.lower()
    for key, kind in (
        ("matches no option", "answer not among the options"),
        ("four options", "more than four options"),
        ("cannot find the options", "no options"),
        ("neither true nor false", "bad true/false answer"),
        ("question_type", "unknown question type"),
    ):
        if key in low:
            return text if low.startswith(kind) else f"{kind}: {text}"
    return text


# ----------------------------------------------------------------------------- materialising


def _layout(folder: Path) -> str:
    if any(folder.rglob(ANNOTATIONS)):
        return "authors"
    if any(folder.glob("illusionbench_*.jsonl")):
        return "canonical"
    return "hub-parquet"


def materialize_folder(folder: str | Path, *, source: str | None = None, shuffle_seed: int | None = None) -> Path:
    """A release folder (the authors' JSON + zip, or lmms-eval's parquet copy) converted once into the cache."""
    from ambi_plugin.benchmarks.hub import benchmark_cache, materialize, source_key

    folder = Path(folder).expanduser()
    if folder.is_file() and folder.suffix.lower() == ".zip":
        folder = unpack_zip(folder, benchmark=IB.BENCHMARK)
    layout = _layout(folder)
    if layout == "canonical":
        return folder
    seed = IB.SHUFFLE_SEED if shuffle_seed is None else int(shuffle_seed)
    env = [os.environ.get(k, "") for k in ("AMBI_ILLUSIONBENCH_CATEGORY_MAP", "AMBI_ILLUSIONBENCH_DIFFICULTY_MAP")]
    root = folder.resolve()
    out = benchmark_cache(IB.BENCHMARK, source_key(CONVERTER_VERSION, str(root), str(seed), *env, read=[root]))
    if (out / ".complete").is_file():
        return out
    label = source or str(folder)

    def build(tmp: Path) -> None:
        report = LoadReport(IB.BENCHMARK, label, strict=strict_mode())
        if layout == "authors":
            counts = convert_authors(folder, tmp, report, shuffle_seed=seed)
        else:
            from ambi_plugin.benchmarks.hub import load_hub_dataset

            counts = convert_lmms(
                load_hub_dataset(str(folder), benchmark=IB.BENCHMARK), tmp, report, source=label, shuffle_seed=seed
            )
        (tmp / "manifest.json").write_text(
            json.dumps(
                {"benchmark": IB.BENCHMARK, "source": label, "layout": layout, "shuffle_seed": seed, "counts": counts}
            )
            + "\n"  # fmt: skip
        )
        report.emit(tmp)

    return materialize(out, build)


def materialize_from_hub(repo: str | None = None, *, shuffle_seed: int | None = None) -> Path:
    """The Hub release (``$AMBI_ILLUSIONBENCH_HUB``, default the authors' :data:`AUTHORS_REPO`; lmms-eval's copy
    and local folders laid out like either work too) from the Hub or the HF cache, converted once."""
    repo = repo or os.environ.get("AMBI_ILLUSIONBENCH_HUB") or AUTHORS_REPO
    path = Path(repo).expanduser()
    if path.exists():
        return materialize_folder(path, source=str(repo), shuffle_seed=shuffle_seed)
    if "/" not in repo or repo.startswith((".", "/", "~")):
        from ambi_plugin.benchmarks.hub import DataUnavailableError

        raise DataUnavailableError(
            f"illusionbench: {repo!r} is neither a folder nor a Hub repo id. Point AMBI_ILLUSIONBENCH_DIR at a local "
            f"copy (the authors' {ANNOTATIONS} + {IMAGES_ZIP}, or its folder), or AMBI_ILLUSIONBENCH_HUB at a repo."
        )
    folder = hub_snapshot(repo, benchmark=IB.BENCHMARK)
    return materialize_folder(folder, source=f"hf://datasets/{repo}", shuffle_seed=shuffle_seed)


__all__ = [
    "AUTHORS_REPO",
    "LETTER_CATEGORIES",
    "LMMS_REPO",
    "category_of",
    "convert_authors",
    "convert_lmms",
    "materialize_folder",
    "materialize_from_hub",
    "option_count",
]
