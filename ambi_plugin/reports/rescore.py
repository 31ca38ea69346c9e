"""``ambi score``: re-score saved per-item answers without lmms-eval and print the paper's tables.

The answer files it reads (``--answers``, every shape) are :mod:`ambi_plugin.reports.answers`'.

Records come from the task's own data source, a folder (``--data-dir``) or a file (``--records``: canonical
records, or a released file the task's benchmark reads itself).

Scoring: every task is scored by the one task route a run takes (:meth:`ambi_plugin.runtime.task.Task.evaluate`:
the records turned into the harness rows the data source writes, the YAML's ``process_results`` per row under the
task's ``default`` kwargs, with ``--judge`` handed in, the YAML's aggregations), and the numbers it prints beyond the
YAML's ``metric_list`` (the breakdowns its ``process_results`` names, the count of unparsed answers) come from the same
item scores. A benchmark with an LLM-assisted protocol (its registry entry's ``rescore.judged``: IllusionBench's)
keeps each protocol in a task YAML of its own: ``--protocol`` picks the task whose YAML scores it (``--protocol llm``:
the ``_llm`` sibling, whose ``process_results`` runs the judge), and ``--overrides`` are handed to the run through its
run state (:attr:`ambi_plugin.runtime.run_state.RunState.overrides`). What else a benchmark's entry declares is how the
numbers are read and shown: its paper tables, a released file as ``--records``, the records as the run presented them
(for the report and ``--explain``), the review queue of its LLM-assisted protocol.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambi_plugin.core.jsonl import read_lines
from ambi_plugin.core.scoring import aggregate, metric_names
from ambi_plugin.data.taskdocs import records_as_docs
from ambi_plugin.reports.answers import (  # noqa: F401 - also this module's names (the old ambi_plugin.reports.rescore)
    DATASET_FIELDS,
    ScoreError,
    add_vote,
    answer_columns,
    column_setting,
    duplicates_note,
    is_answer_column,
    is_logged_samples,
    logged_subset,
    majority_vote,
    read_rows,
    samples_in_folder,
)
from ambi_plugin.reports.paper_tables import tables_from_results  # noqa: F401 - the old ambi_plugin.reports.rescore name

GENERIC = "generic"


def rescore_of(kind: str):
    """The re-score settings of the benchmark that names ``kind`` (:class:`ambi_plugin.benchmarks.registry.Rescore`),
    or None (a task without a paper table, or a kind no benchmark names)."""
    from ambi_plugin.benchmarks.registry import entries

    return next((e.rescore for e in entries().values() if e.rescore is not None and kind in e.rescore.kinds), None)


def _own_tables(kind: str) -> bool:
    """``kind`` has paper tables of its benchmark's own (else: one column per answer set, every metric)."""
    rescore = rescore_of(kind)
    return rescore is not None and rescore.tables is not None


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
    items: dict[str, list[dict]] = field(default_factory=dict)  # answer set -> item scores, in record order
    records: list[dict] = field(default_factory=list)  # the records scored
    answers: dict[str, dict[str, str]] = field(default_factory=dict)  # answer set -> {record id: response}


# ----------------------------------------------------------------------------- records and task


def task_info(task: str):
    """The TaskInfo of ``task``: from its own YAML (``<task>.yaml``, the layout of ``task_yamls/``) when one is
    found, else from the whole task index (which also explains an unknown name)."""
    from ambi_plugin.paths import tasks_dir
    from ambi_plugin.runtime.taskindex import expand_tasks, index

    for path in sorted(tasks_dir().rglob(f"{task}.yaml")):
        own = index(path)
        if task in own and own[task].kind == "task":
            return expand_tasks(task, own)
    return expand_tasks(task)


def task_spec(task: str):
    """(TaskInfo, its runtime :class:`~ambi_plugin.runtime.task.Task`, paper table kind, prompt type) of one of our
    tasks: the kind and the prompt type are the YAML's ``metadata`` as the runtime read it (kind ``generic`` without a
    paper table)."""
    infos = task_info(task)
    if len(infos) != 1 or infos[0].name != task:
        raise ScoreError(f"ambi score takes one task, not a group: {task!r} holds {[i.name for i in infos]}")
    spec = task_of(infos[0])
    kind = spec.metadata.get("paper_table") or GENERIC  # every other task: its metric list, one column per answer set
    return infos[0], spec, str(kind), str(spec.metadata.get("prompt_type", ""))


def load_records(
    info, kind: str, *, records: str | Path | None = None, data_dir: str | Path | None = None
) -> list[dict]:
    from ambi_plugin.core.schema import read_records
    from ambi_plugin.data.replayfiles import task_records

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
                "records, or a released file the task's benchmark reads itself) or "
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
    rescore = rescore_of(kind)
    if rescore is not None and rescore.records is not None:  # a released file the benchmark reads itself
        try:
            return rescore.records(path, kind, rows)
        except ValueError as exc:
            raise ScoreError(str(exc)) from None
    raise ScoreError(f"{path}: not canonical records (no 'task_type'); see hf_dataset_cards/ for the schema")


def _first_jsonl_object(path: Path) -> dict:
    """The first line of a JSONL file as an object ({} for a JSON list, an empty or unreadable line)."""
    lines = read_lines(path)
    first = next(lines, None)
    lines.close()
    return first.value if first is not None and isinstance(first.value, dict) else {}


def task_of(info):
    """The runtime's :class:`~ambi_plugin.runtime.task.Task` of ``info``, its ``process_results`` imported (a task
    YAML that cannot be one: ScoreError)."""
    from ambi_plugin.runtime.task import Task, TaskSpecError

    try:
        task = Task.from_info(info)
        task.process_function()
    except TaskSpecError as exc:
        raise ScoreError(str(exc)) from None
    return task


def _records_root(spec, records: str | Path | None, data_dir: str | Path | None) -> Path:
    """The folder the records were read from (relative image paths are read against it)."""
    if records is not None:
        return Path(records).resolve().parent
    if data_dir:
        return Path(data_dir)
    from ambi_plugin.data.sources import source_root

    return source_root(spec.dataset_path)


def _names(rec: dict, process=None) -> list[str]:
    """The metric names of one record: those the task's ``process_results`` reports (its ``metric_names``, or the
    breakdown fields its name gives)."""
    names_of = getattr(process, "metric_names", None)
    if callable(names_of):
        return list(names_of(rec))
    return metric_names(rec, by=tuple(getattr(process, "breakdown_fields", ())))


def summarize(
    records: Sequence[dict],
    items: Sequence[dict],
    declared: Sequence[str] = (),
    process=None,
    evaluated: dict[str, float] | None = None,
) -> dict[str, float]:
    """Every metric the task reports, over these items, plus the count of unparsed answers. ``evaluated``: the
    metrics the task's own route gave (its YAML's aggregations, :meth:`Task.evaluate`); the other names are computed
    from the same items."""
    names: list[str] = list(declared or [])
    for rec in records:
        names.extend(n for n in _names(rec, process) if n not in names)
    evaluated = evaluated or {}
    computed = aggregate_all([n for n in names if n not in evaluated], items)
    values = {n: evaluated[n] if n in evaluated else computed[n] for n in names if n in evaluated or n in computed}
    values["unparsed"] = sum(1 for it in items if not it.get("parsed"))  # a count (the YAML's gives it as a float)
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
    from ambi_plugin.benchmarks.layout import TableData
    from ambi_plugin.reports.paper_tables import paper_tables
    from ambi_plugin.runtime.run_state import run_state

    if protocol not in ("rule", "llm"):
        raise ScoreError(f"Expected argument `protocol` to be one of ('rule', 'llm') but got {protocol!r}")
    info, spec, kind, prompt_type = task_spec(task)
    rescore = rescore_of(kind)
    judged = rescore.judged if rescore is not None else None
    if protocol == "llm" and judged is None:
        raise ScoreError(f"the LLM-assisted protocol is {_judged_owners()}; task {task!r} is scored by its parsers")
    if judged is not None and judged.task(task, protocol) != task:  # the task whose YAML scores the protocol
        spec = _sibling(spec, judged.task(task, protocol), protocol)
    read = load_records(info, kind, records=records, data_dir=data_dir)
    recs = read
    if rescore is not None and rescore.prepare is not None:  # the records as the run presented them (options ...)
        recs = [rescore.prepare(r) for r in read]
    as_read = {str(r["id"]): r for r in read}  # what the task's hooks are given (they present a record themselves)
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
    over = None
    if overrides:
        if judged is None:
            raise ScoreError(
                f"--overrides are reviewed judge decisions of the LLM-assisted protocol ({_judged_owners()})"
            )
        over = judged.load_overrides(overrides, task)
    if protocol == "llm" and over is None:
        over = {}  # this run's reviewed decisions: none (never a variable of the environment)
    values, review, read_by, scored = {}, [], {}, {}
    declared = spec.metric_names if not _own_tables(kind) else ()
    process = spec.process_function()
    docs = records_as_docs([as_read[i] for i in ids], _records_root(spec, records, data_dir))
    kwargs = spec.prompt_kwargs_for(None)
    with run_state(judge=judge, overrides=over):  # this re-scoring is a run of its own: its judge, its by-products
        for col, got in table.items():
            # the one task route, as a run scores the task: the YAML's process_results under its default kwargs,
            # and its aggregations; a bar while a judge decides every item (the LLM-assisted protocol)
            bar = f"judging {col}" if progress and protocol == "llm" else False
            ev = spec.evaluate(docs, [got.get(i, "") for i in ids], kwargs=kwargs, judge=judge, progress=bar)
            items = ev.item_scores
            read_by[col] = Counter(str(it.get("read_by")) for it in items if isinstance(it, dict) and it.get("read_by"))
            scored[col] = items
            values[col] = summarize(recs, items, declared, process, ev.aggregated)
            if protocol == "llm":
                review.extend({**row, "answers": col} for row in judged.review_queue(task, recs, items))
    counts = record_counts(recs)
    protocols = ("rule", "llm") if protocol == "llm" else ("rule",)
    settings = {col: column_setting(col, prompt_type) for col in values}
    if vote:
        settings[vote_name] = "majority vote"
    if not _own_tables(kind):
        from ambi_plugin.benchmarks.layout import cell, markdown

        names = list(dict.fromkeys(n for v in values.values() for n in v))
        what = (rescore.describe if rescore is not None else "") or "every metric"
        text = f"{task}: {what} per answer set\n" + markdown(
            ["metric", *values], [[n, *(cell(values[c].get(n)) for c in values)] for n in names]
        )
    else:
        text = paper_tables(kind, TableData(values, counts=counts, prompt_type=settings, protocols=protocols))
    info: dict[str, Any] = judge.info() if judge is not None else {}
    if protocol == "llm":
        from ambi_plugin.judge import judge_info

        info = judge.info() if judge is not None else judge_info()
        text += f"\n\njudge: {info.get('backend')} {info.get('model') or ''}, templates {info.get('templates', {})}"
    from ambi_plugin.runtime.extraction import enabled as extracting

    if extracting():  # --extract-with-judge: how every answer was read, per answer set
        text += "\n\nanswers read by (rule / judge / unread): " + "; ".join(
            f"{col}: {c.get('rule', 0)} / {c.get('judge', 0)} / {c.get('none', 0)}" for col, c in read_by.items()
        )
    if note:
        text = f"{note}\n\n{text}"
    return ScoreReport(task=task, kind=kind, text=text, values=values, counts=counts, review=review, judge=info,
                       note=note, items=scored, records=list(recs), answers=table)  # fmt: skip


def _sibling(own, name: str, protocol: str):
    """The runtime task ``name``, whose YAML scores ``protocol`` for the task ``own`` (the sibling its benchmark's
    entry names: ``rescore.judged.task``); it reads the same records."""
    try:
        infos = task_info(name)
    except KeyError:
        infos = []
    if len(infos) != 1 or infos[0].name != name:
        raise ScoreError(f"the {protocol} protocol of task {own.name!r} is scored by task {name!r}, which no task "
                         "YAML defines; check the task names (ambi tasks lists them)")  # fmt: skip
    sibling = task_of(infos[0])
    if (sibling.dataset_path, sibling.dataset_name) != (own.dataset_path, own.dataset_name):
        raise ScoreError(f"the {protocol} protocol of task {own.name!r} is scored by task {name!r}, which reads other "
                         f"records ({sibling.dataset_path} {sibling.dataset_name}, not {own.dataset_path} "
                         f"{own.dataset_name}): {sibling.source} and {own.source} must name the same dataset")  # fmt: skip
    return sibling


def scoring_kwargs(info) -> dict:
    """The task's ``lmms_eval_specific_kwargs`` its hooks score with when no model-specific entry applies (its
    ``default``, :meth:`Task.prompt_kwargs_for`): re-scoring reads an answer exactly as the run's own scoring does."""
    try:
        return task_of(info).prompt_kwargs_for(None)
    except ScoreError:
        return {}


def _judged_owners() -> str:
    """Who has an LLM-assisted protocol: "IllusionBench's" (the registry's entries with ``rescore.judged``)."""
    from ambi_plugin.benchmarks.registry import entries

    owners = [e.title or e.name for e in entries().values() if e.rescore is not None and e.rescore.judged is not None]
    return " and ".join(f"{o}'s" for o in owners) or "no benchmark's"
