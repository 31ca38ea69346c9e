"""IllusionBench (Zhang et al., 2025; ``../shared/seeds/001_*``): description, layouts, importer, Hub loader.

Canonical records (one JSONL per task type, next to ``images/``; see ``hf_dataset_cards/illusionbench.md``):

* ``illusionbench_tf.jsonl``: true/false statements (``answer_bool``),
* ``illusionbench_mc.jsonl``: four-option questions, roman numerals, options **shuffled** deterministically
  from ``shuffle_seed`` and the record id (the released order is kept in ``source_options`` /
  ``source_answer_index``),
* ``illusionbench_description.jsonl``: golden descriptions.

Every record has ``breakdown: {image_category, difficulty}`` with the slugs of :data:`CATEGORIES` and
:data:`DIFFICULTIES`, so the tasks report each metric per image category and per difficulty.

Layouts read: the per-image layout of our dataset card (:func:`records_from_images`; ``ambi import
illusionbench --jsonl F --images DIR --out OUT``) and the per-question layout of lmms-eval's converted Hub
copy ``lmms-lab-eval/IllusionBench`` (:func:`records_from_lmms_rows`; no golden descriptions there).
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ambi_plugin.core.jsonl import read_jsonl
from ambi_plugin.core.schema import write_dataset as _write_dataset

BENCHMARK = "illusionbench"
HUB_ID = "lmms-lab-eval/IllusionBench"  # lmms-eval's converted copy; the authors' release: illusionbench.release
SHUFFLE_SEED = 0  # our choice: the default seed of the MC option shuffle, also in the task YAMLs' metadata

# Paper order (Tables II, III, V, VI): P1..P5, then difficulty.
CATEGORIES: tuple[str, ...] = ("classic", "real_scene", "no_illusion", "ishihara", "trap")
DIFFICULTIES: tuple[str, ...] = ("easy", "neutral", "hard")
TITLES: dict[str, str] = {
    "classic": "Classical (P1)",
    "real_scene": "Real Scene (P2)",
    "no_illusion": "No Illusion (P3)",
    "ishihara": "Ishihara (P4)",
    "trap": "Trap (P5)",
    "easy": "Easy",
    "neutral": "Neutral",
    "hard": "Hard",
}
BREAKDOWN_FIELDS = ("image_category", "difficulty")
# a category or difficulty the release does not give (PROTOCOL: reported as absent, never guessed): the row counts in
# the overall metrics and in no per-category / per-difficulty subset
UNKNOWN = "unknown"

# Prompts, verbatim from section III and Appendix A (curly quotes and "Roma number" included).
PROMPT_TF = (
    "Given an image, check if the following description is correct, and answer ‘True’ or ‘False’. "
    "Do not explain the reason. Description: {question}"
)
PROMPT_MC = (
    "Given an image, a question, and some options, You have to select the correct one. Do not explain your "
    "reasoning. Answer with only the Roma number that corresponds to the correct option. Do not repeat the "
    "entire answer. Do not explain the reason. {question}\n{options}"
)
PROMPT_DESCRIPTION = "Please provide a description of the content in this image."

FILES: dict[str, str] = {
    "true_false": "illusionbench_tf",
    "choice": "illusionbench_mc",
    "description": "illusionbench_description",
}

_CATEGORY_WORDS: tuple[tuple[str, str], ...] = (
    ("trap", "trap"),
    ("ishihara", "ishihara"),
    ("color blind", "ishihara"),
    ("no illusion", "no_illusion"),
    ("non illusion", "no_illusion"),
    ("none", "no_illusion"),
    ("real", "real_scene"),
    ("classic", "classic"),
    ("cognitive", "classic"),
)
_DIFFICULTY_WORDS = {"easy": "easy", "neutral": "neutral", "medium": "neutral", "hard": "hard", "difficult": "hard"}
_DIFFICULTY_LEVELS = {1: "easy", 2: "neutral", 3: "hard"}  # our reading of lmms-eval's integer difficulty_level


def _words(value: Any) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", str(value).lower()).split())


def parse_map(text: str | None) -> dict[str, str]:
    """``"A=classic,B=real_scene"`` -> {"A": "classic", "B": "real_scene"} (env / CLI overrides)."""
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if part.strip():
            key, sep, val = part.partition("=")
            if not sep:
                raise ValueError(f"expected KEY=VALUE pairs separated by commas, got {part!r}")
            out[key.strip()] = val.strip()
    return out


def normalize_category(value: Any, *, where: str = "", mapping: Mapping[str, str] | None = None) -> str:
    """A released category label -> one of :data:`CATEGORIES` (raises naming the value and the choices)."""
    if mapping and str(value) in mapping:
        value = mapping[str(value)]
    words = _words(value)
    if words.replace(" ", "_") in CATEGORIES:
        return words.replace(" ", "_")
    for key, slug in _CATEGORY_WORDS:
        if key in words:
            return slug
    raise ValueError(
        f"{where}: image category {value!r} is not one of {', '.join(CATEGORIES)} (or a known spelling); "
        "pass a map such as AMBI_ILLUSIONBENCH_CATEGORY_MAP='A=classic,B=real_scene'"
    )


def normalize_difficulty(value: Any, *, where: str = "", mapping: Mapping[str, str] | None = None) -> str:
    """``"Easy"`` / ``1`` -> ``easy``; ``neutral``, ``hard`` likewise (raises naming the value)."""
    if mapping and str(value) in mapping:
        value = mapping[str(value)]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and int(value) in _DIFFICULTY_LEVELS:
        return _DIFFICULTY_LEVELS[int(value)]
    words = _words(value)
    if words.isdigit() and int(words) in _DIFFICULTY_LEVELS:
        return _DIFFICULTY_LEVELS[int(words)]
    for key, slug in _DIFFICULTY_WORDS.items():
        if key in words.split():
            return slug
    raise ValueError(
        f"{where}: difficulty {value!r} is not easy / neutral / hard (or 1 / 2 / 3); "
        "pass a map such as AMBI_ILLUSIONBENCH_DIFFICULTY_MAP='0=easy,1=neutral,2=hard'"
    )


# ----------------------------------------------------------------------------- option shuffling


def shuffle_order(n: int, *, seed: int, key: str) -> list[int]:
    """The presentation order of ``n`` options: a permutation drawn from (seed, key) alone.

    ``random.Random`` seeded with a string is stable across processes and Python versions >= 3.2
    (it hashes the string with SHA-512, not with the salted ``hash()``).
    """
    order = list(range(n))
    random.Random(f"ambi-illusionbench:{int(seed)}:{key}").shuffle(order)
    return order


def shuffle_options(options: Sequence[str], answer_index: int, *, seed: int, key: str) -> tuple[list[str], int]:
    """Options in presentation order and the gold index moved with its option text."""
    order = shuffle_order(len(options), seed=seed, key=key)
    return [options[i] for i in order], order.index(answer_index)


# ----------------------------------------------------------------------------- record builders


def _base(rid: str, task_type: str, image: str, category: str, difficulty: str, source: str) -> dict:
    return {
        "id": rid,
        "benchmark": BENCHMARK,
        "category": category,
        "task_type": task_type,
        "image": image,
        "image_name": Path(image).name,
        "breakdown": {"image_category": category, "difficulty": difficulty},
        "source": source,
    }


def _as_bool(value: Any, *, where: str) -> bool:
    if isinstance(value, bool):
        return value
    word = _words(value)
    if word in ("true", "t", "yes", "1", "correct"):
        return True
    if word in ("false", "f", "no", "0", "incorrect"):
        return False
    raise ValueError(f"{where}: the answer {value!r} is neither True nor False")


def _answer_index(answer: Any, options: Sequence[str], *, where: str) -> int:
    """An MC answer given as a 0-based index, a roman label ("ii", "ii. text") or the option text."""
    if isinstance(answer, int) and not isinstance(answer, bool):
        if 0 <= answer < len(options):
            return answer
        raise ValueError(f"{where}: answer index {answer} is not one of the {len(options)} options")
    text = str(answer).strip()
    norm = [_words(o) for o in options]
    if _words(text) in norm and norm.count(_words(text)) == 1:
        return norm.index(_words(text))
    m = re.match(r"^\(?(iv|i{1,3})\b[.)]?\s*(.*)$", text, re.IGNORECASE)
    if m:
        idx = {"i": 0, "ii": 1, "iii": 2, "iv": 3}[m.group(1).lower()]
        if idx < len(options) and (not m.group(2) or _words(m.group(2)) == norm[idx]):
            return idx
    raise ValueError(f"{where}: the answer {answer!r} matches no option ({options})")


def mc_record(
    rid: str,
    *,
    image: str,
    category: str,
    difficulty: str,
    question: str,
    options: Sequence[str],
    answer: Any,
    shuffle_seed: int,
    source: str,
) -> dict:
    """One multiple-choice record, options shuffled (the released order is kept alongside)."""
    options = [str(o) for o in options]
    if len(options) != 4:
        raise ValueError(f"record id={rid!r}: IllusionBench questions have four options, got {len(options)}")
    gold = _answer_index(answer, options, where=f"record id={rid!r}")
    shown, shown_gold = shuffle_options(options, gold, seed=shuffle_seed, key=rid)
    rec = _base(rid, "choice", image, category, difficulty, source)
    rec.update(
        question=str(question).strip(),
        options=shown,
        option_style="roman",
        answer_format="roman",
        answer_index=shown_gold,
        source_options=options,
        source_answer_index=gold,
        shuffle_seed=int(shuffle_seed),
    )
    return rec


def records_from_images(
    rows: Iterable[Mapping[str, Any]], *, shuffle_seed: int = SHUFFLE_SEED, source: str = "", where: str = "input"
) -> dict[str, list[dict]]:
    """Per-image rows (our card's layout) -> {file name: records}.

    A row: ``image`` (file name), ``category``, ``difficulty``, ``true_false`` ([{statement, answer}]),
    ``multiple_choice`` ([{question, options (4), answer (index, roman label or option text)}]),
    ``description`` (golden), optional ``key_terms`` / ``conflict_terms`` (cues of the offline scorer).
    """
    out: dict[str, list[dict]] = {name: [] for name in FILES.values()}
    for line, row in enumerate(rows, start=1):
        at = f"{where}:{line}"
        name = row.get("image_name") or row.get("image")
        if not isinstance(name, str) or not name:
            raise ValueError(f"{at}: field 'image' must be the image file name")
        category = normalize_category(row.get("category"), where=f"{at} ({name})")
        difficulty = normalize_difficulty(row.get("difficulty"), where=f"{at} ({name})")
        image = f"images/{name}"
        for k, tf in enumerate(row.get("true_false") or []):
            rid = f"{name}:tf{k}"
            rec = _base(rid, "true_false", image, category, difficulty, source)
            rec.update(
                question=str(tf.get("statement") or tf.get("question") or "").strip(),
                answer_bool=_as_bool(tf.get("answer"), where=f"{at} record id={rid!r}"),
            )
            out[FILES["true_false"]].append(rec)
        for k, mc in enumerate(row.get("multiple_choice") or []):
            rid = f"{name}:mc{k}"
            out[FILES["choice"]].append(
                mc_record(
                    rid,
                    image=image,
                    category=category,
                    difficulty=difficulty,
                    question=mc.get("question", ""),
                    options=mc.get("options") or [],
                    answer=mc.get("answer"),
                    shuffle_seed=shuffle_seed,
                    source=source,
                )
            )
        if row.get("description"):
            rid = f"{name}:desc"
            rec = _base(rid, "description", image, category, difficulty, source)
            rec["description"] = str(row["description"]).strip()
            for key in ("key_terms", "conflict_terms"):
                if row.get(key):
                    rec[key] = [str(t) for t in row[key]]
            out[FILES["description"]].append(rec)
    return out


_ROMAN_LABEL = re.compile(r"(?:(?<=\s)|^)\(?(iv|i{1,3})[.)]\s+", re.IGNORECASE)


def parse_inline_options(text: str) -> tuple[str, list[str]] | None:
    """``"What is it? i. A hat ii. A t-shirt iii. ... iv. ..."`` -> (question, [4 options]); None if not found."""
    hits = list(_ROMAN_LABEL.finditer(text))
    want = ["i", "ii", "iii", "iv"]
    for start in range(len(hits)):
        seq = [h for h in hits[start:] if h.group(1).lower() in want]
        chosen, k = [], 0
        for h in seq:
            if k < 4 and h.group(1).lower() == want[k] and (not chosen or h.start() > chosen[-1].end()):
                chosen.append(h)
                k += 1
        if k == 4 and chosen[0] is hits[start]:
            stem = text[: chosen[0].start()].strip()
            bounds = [h.end() for h in chosen]
            ends = [chosen[j + 1].start() for j in range(3)] + [len(text)]
            opts = [text[b:e].strip() for b, e in zip(bounds, ends)]
            if all(opts):
                return stem, opts
    return None


def _or_unknown(normalize, value: Any, *, where: str, mapping: Mapping[str, str] | None, keep: bool) -> str:
    try:
        return normalize(value, where=where, mapping=mapping)
    except ValueError:
        if not keep:
            raise
        return UNKNOWN


def records_from_lmms_rows(
    rows: Iterable[Mapping[str, Any]],
    *,
    shuffle_seed: int = SHUFFLE_SEED,
    source: str = HUB_ID,
    category_map: Mapping[str, str] | None = None,
    difficulty_map: Mapping[str, str] | None = None,
    keep_unknown: bool = False,
) -> dict[str, list[dict]]:
    """Rows of lmms-eval's converted copy (``image, question, answer, question_type (TF/select), category,
    question_id, image_name, difficulty_level``) -> {file name: records}. It has no golden descriptions.

    An unreadable category or difficulty raises, or with ``keep_unknown`` becomes :data:`UNKNOWN` (lmms-eval's
    converter writes a missing ``Difficult Level`` as 0 and a missing ``Category`` as "Unknown")."""
    out: dict[str, list[dict]] = {FILES["true_false"]: [], FILES["choice"]: []}
    for n, row in enumerate(rows):
        rid = str(row.get("question_id") or f"{row.get('image_name')}:{n}")
        at = f"{source} row {n} (question_id={rid!r})"
        name = str(row.get("image_name") or f"{rid}.png")
        category = _or_unknown(
            normalize_category, row.get("category"), where=at, mapping=category_map, keep=keep_unknown
        )
        difficulty = _or_unknown(
            normalize_difficulty, row.get("difficulty_level"), where=at, mapping=difficulty_map, keep=keep_unknown
        )
        image = f"images/{name}"
        qtype = _words(row.get("question_type"))
        if qtype in ("tf", "true false", "judge", "binary"):
            rec = _base(rid, "true_false", image, category, difficulty, source)
            rec.update(question=str(row["question"]).strip(), answer_bool=_as_bool(row.get("answer"), where=at))
            out[FILES["true_false"]].append(rec)
        elif qtype in ("select", "mc", "multiple choice", "choice"):
            parsed = parse_inline_options(str(row["question"]))
            if parsed is None:
                raise ValueError(f"{at}: cannot find the options i. ii. iii. iv. in the question {row['question']!r}")
            stem, options = parsed
            out[FILES["choice"]].append(
                mc_record(
                    rid,
                    image=image,
                    category=category,
                    difficulty=difficulty,
                    question=stem,
                    options=options,
                    answer=row.get("answer"),
                    shuffle_seed=shuffle_seed,
                    source=source,
                )
            )
        else:
            raise ValueError(f"{at}: question_type {row.get('question_type')!r} is neither 'TF' nor 'select'")
    return out


def write_dataset(out: Path, records: Mapping[str, list[dict]]) -> dict[str, int]:
    """Validate and write each record list to ``out/<name>.jsonl``; returns the counts."""
    return _write_dataset(out, dict(records), skip_empty=True)


# ----------------------------------------------------------------------------- importer and Hub loader


def import_jsonl(jsonl: Path, images: Path, out: Path, *, shuffle_seed: int = SHUFFLE_SEED) -> dict[str, int]:
    """Per-image JSONL + image folder -> a canonical local copy in ``out`` (images copied)."""
    jsonl, images, out = Path(jsonl), Path(images), Path(out)
    rows = read_jsonl(jsonl, objects=True)
    records = records_from_images(rows, shuffle_seed=shuffle_seed, source=str(jsonl.name), where=str(jsonl))
    (out / "images").mkdir(parents=True, exist_ok=True)
    for line, row in enumerate(rows, start=1):
        name = row.get("image_name") or row["image"]
        src = images / name
        if not src.is_file():
            raise FileNotFoundError(f"{jsonl}:{line}: image {name!r} is not in {images}")
        shutil.copyfile(src, out / "images" / name)
    counts = write_dataset(out, records)
    (out / "manifest.json").write_text(
        json.dumps({"benchmark": BENCHMARK, "source": str(jsonl), "shuffle_seed": shuffle_seed, "counts": counts})
        + "\n"
    )
    return counts


def materialize_from_hub(source: str | None = None, *, shuffle_seed: int | None = None) -> Path:
    """The Hub release (``$AMBI_ILLUSIONBENCH_HUB``, default the authors' ``MingZhangSJTU/IllusionBench``;
    lmms-eval's ``lmms-lab-eval/IllusionBench`` and local folders laid out like either work too) converted to
    canonical records in the cache, bad rows skipped and counted (``illusionbench.release``); returns the folder."""
    from ambi_plugin.benchmarks.illusionbench.release import materialize_from_hub as from_release

    return from_release(source, shuffle_seed=shuffle_seed)


def materialize_local(path: Path) -> Path:
    """A configured local copy (``$AMBI_ILLUSIONBENCH_DIR``): the authors' release as downloaded
    (``Image_properties.json`` + ``IllusionDataset.zip``, extracted or not, or a zip of it) is converted once;
    a canonical folder is used as it is."""
    from ambi_plugin.benchmarks.illusionbench.release import materialize_folder

    path = Path(path).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"the local copy of illusionbench is configured as {str(path)!r}, which does not exist")
    return materialize_folder(path)
