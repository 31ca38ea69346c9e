"""``ambi score``: re-score saved per-item answers without lmms-eval and print the paper's tables.

Answer files (``--answers``), by shape:

* JSONL, one ``{"id": <record id>, "response": "<model output>"}`` per line; ``"task"`` may be present
  (``ambi_replay``'s format: only the rows of the task being scored are used). One answer set, named
  after the file.
* lmms-eval ``--log_samples`` JSONL (``filtered_resps``; the record id from ``doc`` or from our logged item).
  Exactly the logged records are scored (the run's own subset, e.g. under ``--limit``), and the output says so.
* A JSON list (or JSONL) of objects with ``id`` and one column per answer set, as the IllusionVQA authors
  release them (``GPT_0_SHOT``, ``GEM_4_SHOT``, ``HUMAN_ANSWER_1`` ...): ``--column`` picks the columns
  (default: every text column that is not a dataset field). ``--vote C1,C2,C3`` adds their majority vote
  (PROTOCOL: a seeded random tie-break, ``--seed``), as the paper's human row.

Records come from the task's own data source, a folder (``--data-dir``) or a file (``--records``: canonical
records, or IllusionVQA's released-question JSONL, which needs no images).

Scoring: VIA-Bench tasks by :mod:`ambi_plugin.benchmarks.viabench.scoring` (Match and Judge), every other task
by :mod:`ambi_plugin.core.scoring`; IllusionBench's ``--protocol llm`` adds its judge's verdicts.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambi_plugin.core.inputfiles import named_input
from ambi_plugin.core.parsing import option_label, parse_answer
from ambi_plugin.core.scoring import aggregate, answer_format, metric_names, score_item

DATASET_FIELDS = frozenset(
    {"id", "question", "options", "answer", "image", "category", "source", "answer_letter", "image_path_in_hf_zip",
     # fields of the IllusionVQA authors' later answer files that are not answers
     "correct_option_letter", "mcq", "image_path", "image_name", "file_name", "question_type", "split"}
)  # fmt: skip


def is_answer_column(name: str) -> bool:
    """A column the default picker treats as an answer set: not a dataset field, a path / URL, or a gold field."""
    low = name.lower()
    return not (
        name in DATASET_FIELDS or low.endswith(("_path", "_url", "_letter")) or low.startswith(("correct", "gold"))
    )


COMPREHENSION_BY = ("category", "question_type")
GENERIC = "generic"
VIABENCH = "viabench"


class ScoreError(ValueError):
    """Answers or records that cannot be scored; the message names the file, task and record ids."""


@dataclass
class ScoreReport:
    task: str
    kind: str
    text: str
    values: dict[str, dict[str, float]]
    counts: dict[str, int] = field(default_factory=dict)
    review: list[dict] = field(default_factory=list)
    judge: dict[str, Any] = field(default_factory=dict)  # LLM protocol: backend, model, rounds, template hashes
    note: str = ""  # which records were scored, when the answers are a run's logged samples


# ----------------------------------------------------------------------------- answers


def read_rows(path: str | Path) -> list[dict]:
    """A JSON list or a JSONL file of objects."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"answers file {str(path)!r} does not exist")
    with named_input(path, "answers file"):
        return _rows_of(path, path.read_text(encoding="utf-8"))


def _rows_of(path: Path, text: str) -> list[dict]:
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ScoreError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    else:
        rows = []
        for lineno, raw in enumerate(text.splitlines(), start=1):
            if raw.strip():
                try:
                    rows.append(json.loads(raw))
                except json.JSONDecodeError as exc:
                    raise ScoreError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from None
    if not all(isinstance(r, dict) for r in rows):
        raise ScoreError(f"{path}: expected objects (one answer per record), found {type(rows[0]).__name__}")
    return rows


def _first_text(val: Any) -> str | None:
    while isinstance(val, list) and val:
        val = val[0]
    return val if isinstance(val, str) else None


def _row_id(row: dict) -> str | None:
    if row.get("id") is not None:
        return str(row["id"])
    doc = row.get("doc")
    if isinstance(doc, dict) and doc.get("id") is not None:
        return str(doc["id"])
    from ambi_plugin.reports.runs import logged_item

    item = logged_item(row)  # lmms-eval 0.7 samples: our item score, logged under each metric name
    return str(item["id"]) if item and item.get("id") is not None else None


def is_logged_samples(rows: Sequence[dict]) -> bool:
    """Rows of an lmms-eval ``--log_samples`` file (each has ``doc_id`` and ``filtered_resps`` or ``resps``)."""
    return bool(rows) and all("doc_id" in r and ("filtered_resps" in r or "resps" in r) for r in rows)


def logged_subset(recs: Sequence[dict], got: Mapping[str, str], rows: Sequence[dict], *, task: str, source: str):
    """(the records a run logged, in record order; a note saying so): lmms-eval scores the first ``--limit``
    records, and so does a re-score of its samples."""
    no_id = [r.get("doc_id") for r in rows if _row_id(r) is None]
    if no_id:
        raise ScoreError(f"{source}: logged sample(s) with doc_id {no_id[:5]} carry no record id (no item score of "
                         f"ours); was it written by a run of task {task!r}?")  # fmt: skip
    known = {str(r["id"]) for r in recs}
    unknown = sorted(i for i in got if i not in known)
    if unknown:
        raise ScoreError(f"{source}: logged record id(s) {', '.join(unknown[:5])} are not records of task {task!r} "
                         f"({len(unknown)} in all): the records given (--records / --data-dir) are not the run's")  # fmt: skip
    subset = [r for r in recs if str(r["id"]) in got]
    note = f"scored the {len(subset)} record(s) the run logged"
    if len(subset) < len(recs):
        note += f", of {len(recs)} in the task (the run's own subset, e.g. lmms-eval --limit)"
    return subset, note


def answer_columns(
    rows: Sequence[dict],
    *,
    task: str,
    name: str,
    columns: Sequence[str] | None = None,
    source: str = "answers",
    duplicates: dict[str, int] | None = None,
) -> dict[str, dict[str, str]]:
    """{answer set: {record id: response}} from rows of any supported shape (see the module docstring).

    A record id given more than once keeps its **first** answer (a later one never silently wins); the
    answers left out are counted per id in ``duplicates`` when a dict is passed."""
    dups = duplicates if duplicates is not None else {}
    if any("task" in r for r in rows):
        tasks = sorted({str(r.get("task")) for r in rows})
        rows = [r for r in rows if r.get("task") == task]
        if not rows:
            raise ScoreError(f"{source}: no answers for task {task!r} (tasks in the file: {', '.join(tasks)})")
    if columns:
        missing = [c for c in columns if not any(c in r for r in rows)]
        if missing:
            present = sorted({k for r in rows for k in r})
            raise ScoreError(f"{source}: no column {missing} (columns: {', '.join(present)})")
    elif all("response" in r or "filtered_resps" in r or "resps" in r for r in rows):
        out: dict[str, str] = {}
        for r in rows:
            rid = _row_id(r)
            text = r["response"] if "response" in r else _first_text(r.get("filtered_resps") or r.get("resps"))
            if rid is not None and text is not None:
                if rid in out:
                    dups[rid] = dups.get(rid, 0) + 1
                    continue
                out[rid] = str(text)
        return {name: out}
    else:
        columns = sorted({k for r in rows for k, v in r.items() if is_answer_column(k) and isinstance(v, str)})
        if not columns:
            raise ScoreError(f"{source}: no answer column found; rows need 'response' or pass --column")
    table: dict[str, dict[str, str]] = {c: {} for c in columns}
    seen: set[str] = set()
    for r in rows:
        rid = _row_id(r)
        if rid is None:
            raise ScoreError(f"{source}: a row without 'id' ({str(r)[:120]})")
        if rid in seen:
            dups[rid] = dups.get(rid, 0) + 1
            continue
        seen.add(rid)
        for c in columns:
            if r.get(c) is not None:
                table[c][rid] = str(r[c])
    return table


def duplicates_note(duplicates: Mapping[str, int], source: str) -> str:
    """The warning of answers left out because their record id came earlier in the file ("" when none)."""
    if not duplicates:
        return ""
    shown = ", ".join(f"{rid!r} x{n + 1}" for rid, n in list(duplicates.items())[:5])
    more = f" ... ({len(duplicates)} ids in all)" if len(duplicates) > 5 else ""
    return (f"warning: {source}: {sum(duplicates.values())} duplicate answer(s) ignored, {len(duplicates)} record "
            f"id(s) given more than once ({shown}{more}); the first answer of each id was scored")  # fmt: skip


def _parsed_index(rec: dict, response: str | None) -> int | None:
    if response is None:
        return None
    kw = {"n_options": len(rec["options"]), "style": rec.get("option_style"), "options": rec["options"]}
    got = parse_answer(response, answer_format(rec), **kw)
    return got.value if got.ok and isinstance(got.value, int) and got.value >= 0 else None


def majority_vote(rec: dict, responses: Sequence[str | None], *, seed: int = 0) -> str:
    """The option most annotators chose (ties broken at random, seeded by ``seed`` and the record id),
    as its label; "" when nobody's answer can be read."""
    picks = [i for i in (_parsed_index(rec, r) for r in responses) if i is not None]
    if not picks:
        return ""
    counts = Counter(picks)
    best = max(counts.values())
    tied = sorted(i for i, n in counts.items() if n == best)
    winner = tied[0] if len(tied) == 1 else random.Random(f"ambi-vote:{seed}:{rec['id']}").choice(tied)
    return option_label(winner, rec.get("option_style") or "letter")


def add_vote(
    records: Sequence[dict], table: dict[str, dict[str, str]], vote: Sequence[str], *, seed: int, name: str
) -> None:
    missing = [c for c in vote if c not in table]
    if missing:
        raise ScoreError(f"--vote names columns {missing} that the answers do not have ({', '.join(table)})")
    table[name] = {
        str(rec["id"]): majority_vote(rec, [table[c].get(str(rec["id"])) for c in vote], seed=seed) for rec in records
    }


def column_setting(column: str, default: str = "") -> str:
    """The prompt setting an answer column's name states (IllusionVQA authors' files: ``GPT_0_SHOT``,
    ``GEM_4_SHOT``, ``GPT_4_SHOT_COT`` ...), else ``default`` (the task's own setting)."""
    name = column.upper().replace("-", "_").replace(" ", "_")
    if "HUMAN" in name:
        return "human"
    if "COT" in name and ("4_SHOT" in name or "4SHOT" in name or "FEW" in name):
        return "4-shot + CoT"
    if "4_SHOT" in name or "4SHOT" in name:
        return "4-shot"
    if "0_SHOT" in name or "0SHOT" in name or "ZERO" in name:
        return "0-shot"
    return default


# ----------------------------------------------------------------------------- records and task


def task_info(task: str):
    """The TaskInfo of ``task``: from its own YAML (``<task>.yaml``, the layout of ``task_yamls/``) when one is
    found, else from the whole task index (which also explains an unknown name)."""
    from ambi_plugin.paths import tasks_dir
    from ambi_plugin.replayfile import expand_tasks
    from ambi_plugin.taskindex import index

    for path in sorted(tasks_dir().rglob(f"{task}.yaml")):
        own = index(path)
        if task in own and own[task].kind == "task":
            return expand_tasks(task, own)
    return expand_tasks(task)


def task_spec(task: str):
    """(TaskInfo, paper table kind, prompt type) of one of our tasks (kind ``generic`` without a paper table)."""
    infos = task_info(task)
    if len(infos) != 1 or infos[0].name != task:
        raise ScoreError(f"ambi score takes one task, not a group: {task!r} holds {[i.name for i in infos]}")
    meta = infos[0].config.get("metadata") or {}
    kind = meta.get("paper_table") or GENERIC  # every other task: its metric list, one column per answer set
    return infos[0], str(kind), str(meta.get("prompt_type", ""))


def load_records(
    info, kind: str, *, records: str | Path | None = None, data_dir: str | Path | None = None
) -> list[dict]:
    from ambi_plugin.core.schema import read_records
    from ambi_plugin.replayfile import task_records

    if records is None:
        try:
            return task_records(info, Path(data_dir) if data_dir else None)
        except (ScoreError, KeyboardInterrupt):
            raise
        except Exception as exc:  # offline Hub, missing local copy ...: one message that says what to do
            where = f"folder {data_dir}" if data_dir else f"its data source {info.config.get('dataset_path')}"
            raise ScoreError(
                f"could not read the records of task {info.name!r} from {where} ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else 'no detail'}). Offline, pass --records FILE (canonical "
                "records; for IllusionVQA the released questions JSONL, or the authors' answers file itself) or "
                "--data-dir FOLDER (a local copy, see `ambi import`)"
            ) from None
    path = Path(records)
    if not path.is_file():
        raise FileNotFoundError(f"records file {str(path)!r} does not exist")
    if _first_jsonl_object(path).get("task_type") is not None:  # canonical records (each line validated)
        return read_records(path)
    rows = read_rows(path)  # a JSON list (the authors' answers file) or JSONL
    if rows and all("task_type" in r for r in rows):
        raise ScoreError(f"{path}: canonical records are JSONL, one record per line (this is a JSON list)")
    if kind.startswith("illusionvqa"):
        from ambi_plugin.benchmarks.illusionvqa import build_records, records_from_release

        sub = kind.removeprefix("illusionvqa_")
        if not path.read_text(encoding="utf-8").lstrip().startswith("["):
            return records_from_release(path, task=sub)
        need = ("id", "question", "options", "answer", "image", "category")
        missing = [f for f in need if not all(f in r for r in rows)]
        if missing:
            raise ScoreError(f"{path}: used as --records, every row needs {', '.join(need)}; missing {missing}")
        keep = [{k: r[k] for k in need} for r in rows]
        return next(iter(build_records(sub, keep, None, source=path.name).values()))
    raise ScoreError(f"{path}: not canonical records (no 'task_type'); see hf_dataset_cards/ for the schema")


def _first_jsonl_object(path: Path) -> dict:
    """The first line of a JSONL file as an object ({} for a JSON list, an empty or unreadable line)."""
    with named_input(path), path.open(encoding="utf-8") as fh:
        for raw in fh:
            if raw.strip():
                try:
                    row = json.loads(raw)
                except json.JSONDecodeError:
                    return {}
                return row if isinstance(row, dict) else {}
    return {}


def _names(rec: dict, kind: str, protocol: str) -> list[str]:
    if kind == GENERIC:
        return list(metric_names(rec))
    if kind == "illusionvqa_comprehension":
        return metric_names(rec, by=COMPREHENSION_BY)
    if kind.startswith("illusionbench"):
        from ambi_plugin.benchmarks.illusionbench.llm import llm_metric_names, rule_metric_names

        return llm_metric_names(rec) if protocol == "llm" else rule_metric_names(rec)
    return metric_names(rec)


def summarize(
    records: Sequence[dict], items: Sequence[dict], kind: str, protocol: str = "rule", declared: Sequence[str] = ()
) -> dict[str, float]:
    """Every metric the task reports, over these items, plus the count of unparsed answers."""
    names: list[str] = list(declared or [])
    for rec in records:
        names.extend(n for n in _names(rec, kind, protocol) if n not in names)
    values = aggregate_all(names, items)
    values["unparsed"] = sum(1 for it in items if not it.get("parsed"))
    return values


def aggregate_all(names: Sequence[str], items: Sequence[dict]) -> dict[str, float]:
    """``aggregate(name, items)`` for every name, grouping the items by breakdown value once (the same values,
    fast on 100,000 items); names the core aggregations do not know are left out."""
    from ambi_plugin.core.scoring import AGGREGATIONS, _split_name, slug

    items = list(items)
    groups: dict[str, list[dict]] = {}
    for it in items:
        for v in {slug(v) for v in (it.get("breakdown") or {}).values()}:
            groups.setdefault(v, []).append(it)
    views = {k for it in items for k in (it.get("views") or {})}
    out: dict[str, float] = {}
    for name in names:
        split = None if name in AGGREGATIONS else _split_name(name)
        try:
            if split and not (split[0] == "acc" and split[1] in views):
                out[name] = float(AGGREGATIONS[split[0]](groups.get(split[1], [])))
            else:
                out[name] = aggregate(name, items)
        except (KeyError, TypeError):
            continue  # a metric of another module's own aggregation (not re-computable from item scores)
    return out


def record_counts(records: Iterable[dict]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for rec in records:
        counts[str(rec.get("category"))] += 1
        qt = (rec.get("breakdown") or {}).get("question_type")
        if qt:
            counts[str(qt)] += 1
    return dict(counts)


def score_answers(
    task: str,
    answers: str | Path,
    *,
    columns: Sequence[str] | None = None,
    vote: Sequence[str] | None = None,
    vote_name: str = "majority vote",
    seed: int = 0,
    records: str | Path | None = None,
    data_dir: str | Path | None = None,
    protocol: str = "rule",
    overrides: str | Path | None = None,
    allow_missing: bool = False,
    judge=None,
    progress: bool = True,
) -> ScoreReport:
    """Score every answer set of ``answers`` on ``task`` and format the paper's tables."""
    from ambi_plugin.reports.paper_tables import paper_tables

    if protocol not in ("rule", "llm"):
        raise ScoreError(f"Expected argument `protocol` to be one of ('rule', 'llm') but got {protocol!r}")
    info, kind, prompt_type = task_spec(task)
    if protocol == "llm" and not kind.startswith("illusionbench"):
        raise ScoreError(f"the LLM-assisted protocol is IllusionBench's; task {task!r} is scored by its parsers")
    recs = load_records(info, kind, records=records, data_dir=data_dir)
    if kind == VIABENCH:  # the options as the run presented them (opt-in permutation / polarity variants)
        from ambi_plugin.benchmarks.viabench.variants import prepare

        recs = [prepare(r) for r in recs]
    if Path(answers).is_dir():  # an lmms-eval output folder: the task's logged samples
        answers = samples_in_folder(Path(answers), task)
    rows = read_rows(answers)
    dups: dict[str, int] = {}
    table = answer_columns(
        rows, task=task, name=Path(answers).stem, columns=columns, source=str(answers), duplicates=dups
    )
    note = ""
    if is_logged_samples(rows) and not columns:  # exactly the records the run scored
        recs, note = logged_subset(recs, next(iter(table.values())), rows, task=task, source=str(answers))
    note = "\n".join(x for x in (duplicates_note(dups, str(answers)), note) if x)
    if vote:
        # the voters are read on their own: --vote needs no --column, and does not add the voters as columns
        voters = answer_columns(rows, task=task, name=Path(answers).stem, columns=list(vote), source=str(answers))
        merged = {**voters, **table}
        add_vote(recs, merged, list(vote), seed=seed, name=vote_name)
        table[vote_name] = merged[vote_name]
    ids = [str(r["id"]) for r in recs]
    for col, got in table.items():
        missing = [i for i in ids if i not in got]
        if missing and not allow_missing:
            shown = ", ".join(missing[:5]) + (f" ... ({len(missing)} in all)" if len(missing) > 5 else "")
            raise ScoreError(f"{answers}: answer set {col!r} has no answer for record id(s) {shown} of task {task!r}; "
                             "give answers for every record, pass the run's lmms-eval logged samples (they score "
                             "exactly the records the run saw), or --allow-missing to score a missing answer as "
                             "wrong")  # fmt: skip
    over = {}
    if overrides:
        from ambi_plugin.benchmarks.illusionbench.llm import load_overrides

        over = load_overrides(overrides)
    values, review = {}, []
    declared = [m["metric"] for m in info.config.get("metric_list") or []] if kind in (GENERIC, VIABENCH) else ()
    for col, got in table.items():
        items = _score_column(
            recs, got, kind=kind, protocol=protocol, task=task, overrides=over, judge=judge, progress=progress,
            label=col,
        )  # fmt: skip
        if kind == VIABENCH:
            from ambi_plugin.benchmarks.viabench.scoring import aggregate as via_aggregate

            values[col] = {name: via_aggregate(name, items) for name in declared}
        else:
            values[col] = summarize(recs, items, kind, protocol, declared)
        if protocol == "llm":
            from ambi_plugin.benchmarks.illusionbench.llm import review_queue

            review.extend({**row, "answers": col} for row in review_queue(task, recs, items))
    counts = record_counts(recs)
    protocols = ("rule", "llm") if protocol == "llm" else ("rule",)
    settings = {col: column_setting(col, prompt_type) for col in values}
    if vote:
        settings[vote_name] = "majority vote"
    if kind in (GENERIC, VIABENCH):
        from ambi_plugin.reports.paper_tables import markdown

        names = list(dict.fromkeys(n for v in values.values() for n in v))
        what = "VIA-Bench Match and Judge, every metric" if kind == VIABENCH else "every metric"
        text = f"{task}: {what} per answer set\n" + markdown(
            ["metric", *values], [[n, *(_fmt(values[c].get(n)) for c in values)] for n in names]
        )
    else:
        text = paper_tables(kind, values, counts=counts, prompt_type=settings, protocols=protocols)
    info: dict[str, Any] = judge.info() if judge is not None else {}
    if protocol == "llm":
        from ambi_plugin.judge import judge_info

        info = judge.info() if judge is not None else judge_info()
        text += f"\n\njudge: {info.get('backend')} {info.get('model') or ''}, templates {info.get('templates', {})}"
    if note:
        text = f"{note}\n\n{text}"
    return ScoreReport(task=task, kind=kind, text=text, values=values, counts=counts, review=review, judge=info,
                       note=note)  # fmt: skip


def _fmt(v: Any) -> str:
    return "n/a" if v is None or (isinstance(v, float) and v != v) else f"{v:.4f}"


def samples_in_folder(folder: Path, task: str) -> Path:
    """The lmms-eval ``--log_samples`` file of ``task`` below an output folder (the newest one)."""
    found = sorted(Path(folder).rglob(f"*_samples_{task}.jsonl"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise ScoreError(f"no logged samples of task {task!r} (*_samples_{task}.jsonl) below {folder}; "
                         "run lmms-eval with --log_samples")  # fmt: skip
    return found[-1]


def _score_column(recs, got, *, kind, protocol, task, overrides, judge, progress, label) -> list[dict]:
    if kind == VIABENCH:
        from ambi_plugin.benchmarks.viabench.scoring import score_item as via_score_item

        return [via_score_item(rec, got.get(str(rec["id"]), ""), judge=judge) for rec in recs]
    if protocol == "rule":
        return [score_item(rec, got.get(str(rec["id"]), ""), judge=judge) for rec in recs]
    from tqdm import tqdm

    from ambi_plugin.benchmarks.illusionbench.llm import find_override, score_item_llm

    out = []
    for rec in tqdm(recs, desc=f"judging {label}", unit="item", disable=not progress):
        override = find_override(overrides, task, rec["id"])
        out.append(score_item_llm(rec, got.get(str(rec["id"]), ""), judge=judge, override=override))
    return out


def tables_from_results(results: Mapping[str, Any]) -> str:
    """The paper tables of every IllusionBench / IllusionVQA task in an lmms-eval results JSON."""
    from ambi_plugin.reports.paper_tables import paper_tables
    from ambi_plugin.reports.results import task_metrics
    from ambi_plugin.taskindex import index

    idx = index()
    parts = []
    column = str(results.get("model_name") or (results.get("config") or {}).get("model") or "results")
    for task, metrics in sorted(task_metrics(results).items()):
        info = idx.get(task)
        meta = (info.config.get("metadata") or {}) if info else {}
        kind = meta.get("paper_table")
        if not kind:
            continue
        protocols = ("rule", "llm") if any(k.endswith("_llm") for k in metrics) else ("rule",)
        parts.append(f"## {task}\n")
        parts.append(
            paper_tables(kind, {column: metrics}, prompt_type=str(meta.get("prompt_type", "")), protocols=protocols)
        )
        parts.append("")
    if not parts:
        raise ScoreError("the results JSON holds no IllusionBench or IllusionVQA task of ours")
    return "\n".join(parts).rstrip()


def explain_answer(
    task: str,
    answers: str | Path,
    item_id: str,
    *,
    columns: Sequence[str] | None = None,
    records: str | Path | None = None,
    data_dir: str | Path | None = None,
    judge=None,
) -> str:
    """How one item's answer (each answer set's) was read and scored: ``ambi score --explain ID``."""
    info, kind, _ = task_spec(task)
    recs = load_records(info, kind, records=records, data_dir=data_dir)
    if kind == VIABENCH:
        from ambi_plugin.benchmarks.viabench.variants import prepare

        recs = [prepare(r) for r in recs]
    rec = next((r for r in recs if str(r["id"]) == str(item_id)), None)
    if rec is None:
        shown = ", ".join(str(r["id"]) for r in recs[:5])
        raise ScoreError(f"task {task!r} has no record id {item_id!r} (ids look like: {shown} ...)")
    if Path(answers).is_dir():
        answers = samples_in_folder(Path(answers), task)
    rows = read_rows(answers)
    table = answer_columns(rows, task=task, name=Path(answers).stem, columns=columns, source=str(answers))
    parts = []
    for col, got in table.items():
        if str(item_id) not in got:
            raise ScoreError(f"{answers}: answer set {col!r} has no answer for record id {item_id!r}")
        response = got[str(item_id)]
        lines = [f"answers: {col}"]
        if kind == VIABENCH:
            from ambi_plugin.benchmarks.viabench.scoring import score_item as via_score_item

            item = via_score_item(rec, response, judge=judge)
            lines += [f"raw answer: {response!r}", f"Match: {item['match_pred']} ({item['match_reason']})",
                      f"judge: {item['judge_pred']}", f"gold: {rec.get('answer_index')}",
                      f"score: Match {'correct' if item['correct_match'] else 'wrong'}, "
                      f"Judge {'correct' if item['correct_judge'] else 'wrong'}"]  # fmt: skip
        else:
            from ambi_plugin.core.explain import explain_item

            lines += explain_item(rec, response, judge=judge)
        parts.append("\n".join(lines))
    return "\n\n".join(parts)
