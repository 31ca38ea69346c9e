"""One entry per benchmark: everything the generic layers (data, reports, lmms, vlmeval, cli) need to know of it.

A benchmark is one folder. Its folder registers one :class:`BenchmarkEntry` (a module ``entry.py`` beside its code,
calling :func:`register`); the generic layers ask :func:`entries` / :func:`get` and never name a benchmark. An entry
says how the benchmark's sources are read into a canonical folder (``<records>.jsonl`` + media, the schema of
:mod:`ambi_plugin.core.schema`), where its releases are (Hub repos and the variables that name others, the layouts
of a local copy ``$AMBI_<NAME>_DIR``), what ``ambi data`` and the preflight tell a user who lacks it, its paper tables
and reference rows, how ``ambi score`` re-scores its tasks, what it adds to the results JSON, and what it adds to
the ``ambi`` command (commands of its own, its ``ambi import`` options: :mod:`ambi_plugin.benchmarks.commands`).
Everything else (typed features, checks, the card, the upload: :mod:`ambi_plugin.data.hub`; status, preflight,
reports) is generic.

Where entries come from (:func:`entries`):

* every package under ``ambi_plugin/benchmarks/`` with an ``entry`` module (the five benchmarks of the papers);
* the synthetic suite (``ambi_synth``, registered below: it lives in ``synth/``, a layer further down);
* a benchmark of your own, outside this package: the modules named in ``$AMBI_BENCHMARKS`` (comma-separated) and
  the entry points of the group ``ambi_plugin.benchmarks`` (:func:`ambi_plugin.paths.benchmark_packages`). Importing
  such a module registers its entry; the task YAMLs in its folder's ``task_yamls/`` are indexed with ours
  (``docs/architecture.md``, "Adding a benchmark").
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.commands import Command, CommandTools, Importer, SwitchHeads
from ambi_plugin.benchmarks.layout import TableData


def test_split(records: str) -> tuple[str, str]:
    """The default placement: config = records name, split ``test``."""
    return records, "test"


@dataclass(frozen=True)
class HubRelease:
    """A Hub dataset repo the benchmark's default loader reads, and the variable that names another one."""

    repo: str
    env: str = ""


@dataclass(frozen=True)
class Judged:
    """A benchmark's LLM-assisted protocol (``ambi score --protocol llm``; IllusionBench's). Each protocol is a task
    YAML of its own, and ``ambi score`` scores through it as a run does (the one task route):

    * ``task(task, protocol)``: the task whose YAML scores ``protocol`` (``"rule"`` or ``"llm"``) for ``task``, a
      task of the benchmark (IllusionBench: ``ambi_illusionbench_tf`` and its sibling ``ambi_illusionbench_tf_llm``);
    * ``load_overrides(path, task)``: the reviewed decisions of a filled review queue that apply to ``task``, as
      ``ambi score --overrides`` hands them to its run (:attr:`ambi_plugin.runtime.run_state.RunState.overrides`;
      the LLM task's ``process_results`` reads them there);
    * ``review_queue(task, records, items)``: the items for a reviewer, from the item scores.
    """

    task: Callable[[str, str], str]
    load_overrides: Callable[[Any, str], Any]
    review_queue: Callable[[str, Any, Any], list[dict]]


@dataclass(frozen=True)
class Rescore:
    """How ``ambi score`` re-scores a task of the benchmark outside a harness (the YAML's ``metadata.paper_table``
    names the kind). Every task is scored through its YAML, as a run scores it (the one task route,
    :meth:`ambi_plugin.runtime.task.Task.evaluate`); what a benchmark adds is how it is read and shown:

    * ``kinds``: the ``paper_table`` kinds the benchmark's tasks name (``illusionbench_tf`` ...).
    * ``tables(kind, data)``: the paper's tables of one kind (Markdown) from ``data``, a
      :class:`ambi_plugin.benchmarks.layout.TableData`; None: one column per answer set, every metric.
    * ``prepare(rec)``: a record as the run presented it (options permuted ...), for the report and ``--explain``;
      None: as read. (The task's own hooks present the record so themselves when they score it.)
    * ``records(path, kind, rows)``: records from a released file that is not canonical (``--records``); None: only
      canonical records.
    * ``judged``: the LLM-assisted protocol (``--protocol llm``, :class:`Judged`); None: the benchmark has none.
    * ``explain(rec, response, judge=)``: the lines of ``ambi score --explain`` for the benchmark's own scoring.
    * ``describe``: the heading of the generic every-metric table ("every metric" when empty).
    """

    kinds: tuple[str, ...] = ()
    tables: Callable[[str, TableData], str] | None = None
    prepare: Callable[[dict], dict] | None = None
    records: Callable[[Path, str, list[dict]], list[dict]] | None = None
    judged: Judged | None = None
    explain: Callable[..., list[str]] | None = None
    describe: str = ""


@dataclass(frozen=True)
class Significance:
    """The significance tests ``ambi report`` runs for a benchmark (AmbiBench A.6: Tables 10 and 11).

    * ``columns``: (label, task, metric) of each compared cell: model against model per column (Table 11);
    * ``pairs``: (label, label) of columns compared within one model (Table 10);
    * ``paper_tables``: the reference tables holding the paper's own p-values, shown under ours;
    * ``protocol``: the name the report gives these tests ("AmbiBench A.6").
    """

    columns: tuple[tuple[str, str, str], ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    paper_tables: tuple[str, ...] = ()
    protocol: str = "t-test"


@dataclass(frozen=True)
class BenchmarkEntry:
    """What one benchmark is, for every generic layer.

    Building and publishing (``ambi build`` / ``validate`` / ``push``):

    * ``read_source(source)``: a source (a folder or zip as published, a Hub repo id, a canonical folder, or None
      for the default) -> a canonical folder. Release loaders skip and count bad rows in ``load_report.json``.
      Default: ``local`` for a path that exists, else ``from_hub``.
    * ``categories()``: the known categories (``ambi validate`` rejects others); None = any.
    * ``placement(records)``: (config, split) of a records file; default (records, "test").
    * ``record_split(record)``: the split a record carries itself (RCID: its ``split`` field), which wins over
      the placement's split; None (or a None result) = the placement's.
    * ``dataset_path``: what task YAMLs write (``ambi://<name>``) so the card lists the tasks that read a config.
    * ``region_style``: the green box the source draws on region images itself; None = ``ambi build`` draws it
      (AmbiBench's colour and line width) on region records that do not record one.

    Reading it for a run (``ambi://<name>``, ``ambi data``, the preflight):

    * ``local(path)``: a local copy (``$AMBI_<NAME>_DIR``: the release as downloaded, its zip, or canonical records)
      -> a canonical folder; None: only a canonical folder is read.
    * ``from_hub()``: the default release (Hub, or the HF cache offline) -> a canonical folder; None: no default.
    * ``hub``: the Hub repos ``from_hub`` reads (``ambi data`` looks them up in the HF cache and prints the fetch
      command); ``local_only``: the benchmark has no Hub release, and this says how to make a local copy.
    * ``layouts``: the layouts a local copy may have, as the loaders read them (said when a copy is not usable).
    * ``groups``: its task groups, as ``ambi data`` names them; ``fetch_hint``: the preflight's fix when its
      records cannot be read (``{var}`` = ``$AMBI_<NAME>_DIR``); empty = the fetch commands of ``hub``.
    * ``listed``: ``ambi data`` lists it (the synthetic suite is always available and listed on its own).

    Reporting it (``ambi results``, ``ambi score``, ``ambi report``, the results JSON):

    * ``title``: the name the paper uses; ``task_prefixes``: its task names start with one of them.
    * ``paper_layouts()``: its paper tables (:class:`ambi_plugin.benchmarks.layout.Layout`); ``reference()``: the
      papers' printed rows (``{"tables": {layout key: {title, columns, rows ...}}}``; see
      :mod:`ambi_plugin.reports.reference`).
    * ``derived_metrics(metrics)``: metrics of a pseudo-task its layouts read, gathered from its tasks'
      (``{task: {metric: value}}`` -> ``{pseudo-task: {metric: value}}``), e.g. RCID's cells per prompt setting.
    * ``results_tables(metrics)``: text ``ambi results`` prints after the generic table ("" when nothing of it ran).
    * ``results_extra``: (key, function of the results dict -> a dict or None) for the results JSON's ``ambi_plugin``
      section, e.g. the seeds of opt-in prompt variants.
    * ``rescore``: :class:`Rescore`; ``significance``: :class:`Significance`.
    * ``repeated_runs(metrics)``: its summary of N runs (``ambi_plugin.reports.repeated_runs``): ``{task: {metric:
      {"mean", "std", "n"}}}`` -> ``{"text": its table, ...what else the summary JSON holds}``; None: one row per
      task and metric.

    The ``ambi`` command (:mod:`ambi_plugin.benchmarks.commands`):

    * ``commands``: commands of its own (:class:`Command`: ``ambi <name> ...``);
    * ``importer``: ``ambi import <name>`` (:class:`Importer`: its reader and its own options);
    * ``switch_heads``: the defaults of ``ambi switch-heads`` (:class:`SwitchHeads`), for the benchmark whose paper
      the experiment is.
    """

    name: str
    read_source: Callable[[str | None], Path] | None = None
    categories: Callable[[], tuple[str, ...]] | None = None
    placement: Callable[[str], tuple[str, str]] = test_split
    card: str = ""
    dataset_path: str = ""
    region_style: Callable[[], dict] | None = None  # the green box the source draws itself (None: we draw it)
    record_split: Callable[[dict], str | None] | None = None
    title: str = ""
    local: Callable[[Path], Path] | None = None
    from_hub: Callable[[], Path] | None = None
    hub: tuple[HubRelease, ...] = ()
    local_only: str = ""
    layouts: str = ""
    groups: str = ""
    fetch_hint: str = ""
    listed: bool = True
    task_prefixes: tuple[str, ...] = ()
    paper_layouts: Callable[[], tuple] | None = None
    reference: Callable[[], dict] | None = None
    derived_metrics: Callable[[Mapping[str, Mapping[str, float]]], dict[str, dict[str, float]]] | None = None
    results_tables: Callable[[Mapping[str, Mapping[str, float]]], str] | None = None
    results_extra: tuple[str, Callable[[dict], dict | None]] | None = None
    rescore: Rescore | None = None
    significance: Significance | None = None
    repeated_runs: Callable[[Mapping[str, Mapping[str, Mapping[str, float]]]], dict] | None = None
    commands: tuple[Command, ...] = ()
    importer: Importer | None = None
    switch_heads: SwitchHeads | None = None

    @property
    def card_file(self) -> str:
        return self.card or f"{self.name}.md"

    @property
    def ambi_path(self) -> str:
        return self.dataset_path or f"ambi://{self.name}"

    @property
    def source(self) -> str:
        """The ``<source>`` of its ``ambi://<source>`` dataset path."""
        return self.ambi_path.removeprefix("ambi://")

    @property
    def data_var(self) -> str:
        """The variable that names a local copy (:func:`ambi_plugin.config.data_dir`)."""
        return f"AMBI_{self.source.upper()}_DIR"

    def read(self, source: str | None) -> Path:
        """``read_source``, or the default: a path that exists through ``local``, anything else through ``from_hub``
        (a Hub repo id is passed on when ``from_hub`` takes one)."""
        if self.read_source is not None:
            return self.read_source(source)
        if source is not None and Path(source).expanduser().exists():
            if self.local is None:
                return Path(source).expanduser()
            return self.local(Path(source).expanduser())
        if self.from_hub is None:
            raise FileNotFoundError(f"{self.name}: no default source; pass a local copy ({self.local_only})")
        return self.from_hub(source) if source else self.from_hub()

    def owns_task(self, task: str) -> bool:
        return any(task.startswith(p) for p in self.task_prefixes)


REGISTRY: dict[str, BenchmarkEntry] = {}
_IMPORTED: set[str] = set()


class BenchmarkPluginError(ImportError):
    """A module named as a benchmark (``$AMBI_BENCHMARKS``, an ``ambi_plugin.benchmarks`` entry point) cannot be
    imported."""


def register(entry: BenchmarkEntry) -> BenchmarkEntry:
    REGISTRY[entry.name] = entry
    return entry


@functools.cache
def _builtin_modules() -> tuple[str, ...]:
    """``ambi_plugin.benchmarks.<b>.entry`` of every benchmark folder here that has one (sorted by folder)."""
    import ambi_plugin.benchmarks as pkg

    out = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.ispkg and (Path(info.module_finder.path) / info.name / "entry.py").is_file():
            out.append(f"{pkg.__name__}.{info.name}.entry")
    return tuple(out)


def _import(module: str, *, plugin: bool) -> None:
    if module in _IMPORTED:
        return
    _IMPORTED.add(module)
    try:
        importlib.import_module(module)
    except ImportError as exc:
        if not plugin:
            raise
        _IMPORTED.discard(module)
        from ambi_plugin.paths import BENCHMARKS_ENV, ENTRY_POINT_GROUP

        raise BenchmarkPluginError(
            f"the benchmark module {module!r} (named in ${BENCHMARKS_ENV} or the entry-point group "
            f"{ENTRY_POINT_GROUP!r}) cannot be imported ({type(exc).__name__}: {exc}); put its folder on the Python "
            f"path or remove it from ${BENCHMARKS_ENV}"
        ) from None


def entries() -> dict[str, BenchmarkEntry]:
    """Every registered benchmark, in registration order: ours (by folder name), the synthetic suite, then the
    modules of ``$AMBI_BENCHMARKS`` and the ``ambi_plugin.benchmarks`` entry points (imported on first use)."""
    from ambi_plugin.paths import benchmark_packages

    for module in _builtin_modules():
        _import(module, plugin=False)
    if "ambi_synth" not in REGISTRY:
        register(SYNTH)
    for module in benchmark_packages():
        _import(module, plugin=True)
    return REGISTRY


def get(name: str) -> BenchmarkEntry:
    known = entries()
    if name not in known:
        raise KeyError(f"unknown benchmark {name!r}; expected one of {', '.join(sorted(known))}")
    return known[name]


def of_source(source: str) -> BenchmarkEntry | None:
    """The entry whose tasks read ``ambi://<source>`` (``synth`` -> ``ambi_synth``), or None."""
    return next((e for e in entries().values() if e.source == source), None)


def of_task(task: str) -> BenchmarkEntry | None:
    """The entry a task name belongs to (its ``task_prefixes``), or None."""
    return next((e for e in entries().values() if e.owns_task(task)), None)


CANONICAL_LAYOUT = "a canonical copy: <records>.jsonl files beside their images (from 'ambi import' or 'ambi build')"


def expected_layout(benchmark: str) -> str:
    """What a local copy of ``benchmark`` may be: the layouts its entry reads, or a canonical copy (said when a
    copy is not usable: ``ambi://<benchmark>``, ``ambi data``)."""
    entry = entries().get(benchmark)
    layout = entry.layouts if entry is not None and entry.listed else ""
    return f"{layout}, or {CANONICAL_LAYOUT}" if layout else CANONICAL_LAYOUT


def draw_region(image, region: list[float]):
    """The green box ``ambi build`` draws on a region record whose source did not draw one (an entry without
    ``region_style``): AmbiBench's colour and line width. Returns (image, region_style)."""
    from ambi_plugin.benchmarks.ambibench import draw_region as draw

    return draw(image, region)


# ----------------------------------------------------------------------------- the synthetic suite


def _synth(source: str | None) -> Path:
    """A folder written by ``ambi synth --out DIR``, or (no source) the default suite, generated once."""
    from ambi_plugin.synth import ensure_suite

    if source is None:
        return ensure_suite()
    path = Path(source).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"ambi_synth: the source {source!r} is not a folder (write one with ambi synth --out)")
    return path


def _synth_region_style() -> dict:
    from ambi_plugin.synth.common import GREEN_RGB, GREEN_WIDTH

    return {"rgb": list(GREEN_RGB), "width": GREEN_WIDTH, "drawn_by": "ambi-plugin synth"}


SYNTH = BenchmarkEntry(
    "ambi_synth",
    _synth,
    None,
    dataset_path="ambi://synth",
    region_style=_synth_region_style,
    title="Synthetic suite",
    task_prefixes=("ambi_synth",),
    listed=False,
)


__all__ = [
    "REGISTRY",
    "BenchmarkEntry",
    "BenchmarkPluginError",
    "Command",
    "CommandTools",
    "Importer",
    "SwitchHeads",
    "HubRelease",
    "Judged",
    "Rescore",
    "Significance",
    "CANONICAL_LAYOUT",
    "draw_region",
    "entries",
    "expected_layout",
    "get",
    "of_source",
    "of_task",
    "register",
    "test_split",
]
