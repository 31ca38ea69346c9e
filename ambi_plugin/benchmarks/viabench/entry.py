"""VIA-Bench's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.benchmarks.layout import shipped_reference
from ambi_plugin.benchmarks.registry import BenchmarkEntry, Rescore, register
from ambi_plugin.benchmarks.viabench.command import COMMAND


def _read(source: str | None) -> Path:
    from ambi_plugin.benchmarks import viabench as VB

    if source is not None and Path(source).expanduser().exists():
        return VB.materialize_local(Path(source).expanduser())
    return VB.materialize_from_hub()  # no Hub release: says how to make a local copy


def _local(path: Path) -> Path:
    from ambi_plugin.benchmarks.viabench import materialize_local

    return materialize_local(path)


def _from_hub() -> Path:
    from ambi_plugin.benchmarks.viabench import materialize_from_hub

    return materialize_from_hub()


def _categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.viabench.spec import CATEGORIES, UNCATEGORIZED

    return (*CATEGORIES, UNCATEGORIZED)


def _placement(records: str) -> tuple[str, str]:
    """Every VIA-Bench records file is the ``validation`` split: the only published piece is the challenge's
    validation split; ``viabench_val`` holds all of it and the per-category files (written when an answer key
    gives categories) hold the same questions grouped by category."""
    return records, "validation"


def _layouts() -> tuple:
    from ambi_plugin.benchmarks.viabench.tables import LAYOUTS

    return LAYOUTS


def _prepare(rec: dict) -> dict:
    """The options as the run presented them (opt-in permutation / polarity variants)."""
    from ambi_plugin.benchmarks.viabench.variants import prepare

    return prepare(rec)


def _explain(rec: dict, response, *, judge=None) -> list[str]:
    from ambi_plugin.benchmarks.viabench.scoring import explain

    return explain(rec, response, judge=judge)


def _debias(results: dict) -> dict | None:
    """The option-permutation / polarity-flip seeds of the run (``$AMBI_VIABENCH_PERMUTE_SEED``,
    ``$AMBI_VIABENCH_FLIP_SEED``), when a VIA-Bench task ran and at least one is set."""
    configs = results.get("configs") or {}
    if not any(isinstance(c, dict) and str(c.get("dataset_path", "")).startswith("ambi://viabench")
               for c in configs.values()):  # fmt: skip
        return None
    from ambi_plugin.benchmarks.viabench.variants import settings

    seeds = settings()
    return seeds if any(v is not None for v in seeds.values()) else None


def _repeated_runs(metrics) -> dict:
    from ambi_plugin.benchmarks.viabench.repeated import summary

    return summary(metrics)  # the per-category Match / Judge table of section 4.2's repeated runs


ENTRY = register(
    BenchmarkEntry(
        "viabench",
        _read,
        _categories,
        _placement,
        title="VIA-Bench",
        local=_local,
        from_hub=_from_hub,
        local_only="only the challenge's validation split is public (GitHub: "
        "Houwenjin/DataCV-2026-Challenge-CVPR-Task-II-Competition, val/): point AMBI_VIABENCH_DIR at its folder",
        layouts="a folder written by 'ambi viabench import'",
        groups="ambi_viabench_all, ambi_viabench_val",
        fetch_hint="ambi viabench import --json val/val.json --images val/images --out DIR, then export {var}=DIR",
        task_prefixes=("ambi_viabench",),
        paper_layouts=_layouts,
        reference=lambda: shipped_reference("viabench"),
        results_extra=("viabench_debias", _debias),
        rescore=Rescore(
            kinds=("viabench",),
            prepare=_prepare,
            explain=_explain,
            describe="VIA-Bench Match and Judge, every metric",
        ),
        repeated_runs=_repeated_runs,
        commands=(COMMAND,),
    )
)
