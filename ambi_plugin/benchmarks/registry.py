"""The benchmarks ``ambi build`` / ``ambi validate`` / ``ambi push`` know: one small entry each.

An entry says how to read the benchmark's sources into a canonical folder (``<records>.jsonl`` + media, the schema
of :mod:`ambi_plugin.core.schema`), which categories are known, which split and config each records file goes to,
and which card (``hf_dataset_cards/<card>``) describes it. Everything else (typed features, checks, card metadata,
the upload: :mod:`ambi_plugin.data.hub`) is generic and looks entries up here, never a benchmark by name. A new
benchmark plugs in with one :func:`register` call (see ``docs/datasets.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def test_split(records: str) -> tuple[str, str]:
    """The default placement: config = records name, split ``test``."""
    return records, "test"


@dataclass(frozen=True)
class BenchmarkEntry:
    """How one benchmark is read, checked and published.

    * ``read_source(source)``: a source (a folder or zip as published, a Hub repo id, a canonical folder, or None
      for the default) -> a canonical folder. Release loaders skip and count bad rows in ``load_report.json``.
    * ``categories()``: the known categories (``ambi validate`` rejects others); None = any.
    * ``placement(records)``: (config, split) of a records file; default (records, "test").
    * ``record_split(record)``: the split a record carries itself (RCID: its ``split`` field), which wins over
      the placement's split; None (or a None result) = the placement's.
    * ``dataset_path``: what task YAMLs write (``ambi://<name>``) so the card lists the tasks that read a config.
    * ``region_style``: the green box the source draws on region images itself; None = ``ambi build`` draws it
      (AmbiBench's colour and line width) on region records that do not record one.
    """

    name: str
    read_source: Callable[[str | None], Path]
    categories: Callable[[], tuple[str, ...]] | None = None
    placement: Callable[[str], tuple[str, str]] = test_split
    card: str = ""
    dataset_path: str = ""
    region_style: Callable[[], dict] | None = None  # the green box the source draws itself (None: we draw it)
    record_split: Callable[[dict], str | None] | None = None

    @property
    def card_file(self) -> str:
        return self.card or f"{self.name}.md"

    @property
    def ambi_path(self) -> str:
        return self.dataset_path or f"ambi://{self.name}"


REGISTRY: dict[str, BenchmarkEntry] = {}


def register(entry: BenchmarkEntry) -> BenchmarkEntry:
    REGISTRY[entry.name] = entry
    return entry


def get(name: str) -> BenchmarkEntry:
    if name not in REGISTRY:
        raise KeyError(f"unknown benchmark {name!r}; expected one of {', '.join(sorted(REGISTRY))}")
    return REGISTRY[name]


def draw_region(image, region: list[float]):
    """The green box ``ambi build`` draws on a region record whose source did not draw one (an entry without
    ``region_style``): AmbiBench's colour and line width. Returns (image, region_style)."""
    from ambi_plugin.benchmarks.ambibench import draw_region as draw

    return draw(image, region)


# ----------------------------------------------------------------------------- the entries


def _canonical_or(source: str | None, convert: Callable[[Path], Path], from_hub: Callable[[str | None], Path]) -> Path:
    """A local folder or zip goes through the benchmark's local reader; anything else is a Hub source."""
    if source is not None and Path(source).expanduser().exists():
        return convert(Path(source).expanduser())
    return from_hub(source)


def _ambibench(source: str | None) -> Path:
    from ambi_plugin.benchmarks import ambibench as AB

    return _canonical_or(source, AB.materialize_local, AB.materialize_from_hub)


def _ambibench_categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.ambibench import TASKS

    return tuple(dict.fromkeys(t.category for t in TASKS))


def _illusionbench(source: str | None) -> Path:
    from ambi_plugin.benchmarks import illusionbench as IB

    return _canonical_or(source, IB.materialize_local, IB.materialize_from_hub)


def _illusionbench_categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.illusionbench import CATEGORIES, UNKNOWN

    return (*CATEGORIES, UNKNOWN)  # UNKNOWN: a row whose release gives no readable category (kept, no subset)


def _illusionvqa(source: str | None) -> Path:
    from ambi_plugin.benchmarks import illusionvqa as IV

    if source is not None and Path(source).expanduser().exists():
        return IV.materialize_local(Path(source).expanduser())
    return IV.materialize_from_hub(*(source.split(",", 1) if source else ()))


def _illusionvqa_categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.illusionvqa import CATEGORIES, SOFT_LOCALIZATION_CATEGORY

    return (*CATEGORIES, SOFT_LOCALIZATION_CATEGORY)


def _illusionvqa_placement(records: str) -> tuple[str, str]:
    """Comprehension's ``select`` split is kept beside the test records as ``<records>_select``."""
    base, _, last = records.rpartition("_")
    return (base, last) if last == "select" and base else (records, "test")


def _synth(source: str | None) -> Path:
    """A folder written by ``ambi synth --out DIR``, or (no source) the default suite, generated once."""
    from ambi_plugin.synth import ensure_suite

    if source is None:
        return ensure_suite()
    path = Path(source).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"ambi_synth: the source {source!r} is not a folder (write one with ambi synth --out)")
    return path


register(BenchmarkEntry("ambibench", _ambibench, _ambibench_categories))
register(BenchmarkEntry("illusionbench", _illusionbench, _illusionbench_categories))
register(BenchmarkEntry("illusionvqa", _illusionvqa, _illusionvqa_categories, _illusionvqa_placement))


def _synth_region_style() -> dict:
    from ambi_plugin.synth.common import GREEN_RGB, GREEN_WIDTH

    return {"rgb": list(GREEN_RGB), "width": GREEN_WIDTH, "drawn_by": "ambi-plugin synth"}


register(BenchmarkEntry("ambi_synth", _synth, None, dataset_path="ambi://synth", region_style=_synth_region_style))


def _viabench(source: str | None) -> Path:
    from ambi_plugin.benchmarks import viabench as VB

    if source is not None and Path(source).expanduser().exists():
        return VB.materialize_local(Path(source).expanduser())
    return VB.materialize_from_hub()  # no Hub release: says how to make a local copy


def _viabench_categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.viabench.spec import CATEGORIES, UNCATEGORIZED

    return (*CATEGORIES, UNCATEGORIZED)


def _rcid(source: str | None) -> Path:
    from ambi_plugin.benchmarks import rcid

    path = Path(source).expanduser() if source else None
    if path is not None and path.exists():  # canonical, the Hub copy as downloaded or its zip, the authors' data
        return rcid.materialize_local(path)
    return rcid.materialize_from_hub(source)  # a Hub id (or the default)


def _viabench_placement(records: str) -> tuple[str, str]:
    """Every VIA-Bench records file is the ``validation`` split: the only published piece is the challenge's
    validation split; ``viabench_val`` holds all of it and the per-category files (written when an answer key
    gives categories) hold the same questions grouped by category."""
    return records, "validation"


def _rcid_split(rec: dict) -> str | None:
    """The split of the release the record came from (the Hub loader keeps it: ``train``, ``validation`` for the
    paper's dev split, ``test``); None for copies without splits (``test``)."""
    return rec.get("split")


register(BenchmarkEntry("viabench", _viabench, _viabench_categories, _viabench_placement))
register(BenchmarkEntry("rcid", _rcid, lambda: ("contrast", "stripe", "filter"), record_split=_rcid_split))


__all__ = ["BenchmarkEntry", "REGISTRY", "draw_region", "get", "register", "test_split"]
