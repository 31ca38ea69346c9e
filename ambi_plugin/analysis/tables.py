"""Tables 3 and 4: AmbiBench accuracy under no / switch-head / random-head masking, and under ITI shifts.

Every cell is an ordinary lmms-eval run (the real CLI, our ``ambi_intervene`` model around the chosen backend), read
from its results JSON. Table 3 rows: ``none`` (hooks off), ``switch heads`` (mask, epsilon), ``random heads`` (mask
as many random heads, mean +- std over seeds). Table 4 rows: ``none`` and ``ITI alpha=a`` for each alpha; the
evaluation starts after the held-out items the directions were fitted on (``--offset``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ambi_plugin.analysis.interventions import DEFAULT_EPSILON, ITI_ALPHAS

__all__ = ["DEFAULT_TASKS", "Condition", "format_table", "intervention_table"]

DEFAULT_TASKS = ("ambibench_bistable_open", "ambibench_multiscene_open")
Condition = tuple[str, str]  # (row label, extra model_args)


def _model_args(base: str, base_args: str, extra: str) -> str:
    return ",".join(p for p in (f"base={base}", base_args, extra) if p)


def _accuracy(results: dict, task: str, metric: str) -> float:
    row = results.get("results", {}).get(task, {})
    for key, val in row.items():
        if key.split(",")[0] == metric and isinstance(val, (int, float)):
            return float(val)
    return float("nan")


def table3_conditions(
    heads_file: str | Path, *, epsilon: float = DEFAULT_EPSILON, seeds: Sequence[int] = (0, 1, 2)
) -> list[Condition]:
    rows = [("none", "mode=none"), ("switch heads", f"mode=mask,heads={heads_file},epsilon={epsilon}")]
    rows += [
        (f"random heads (seed {s})", f"mode=mask,heads={heads_file},epsilon={epsilon},random_seed={s}") for s in seeds
    ]
    return rows


def table4_conditions(iti_file: str | Path, *, alphas: Sequence[float] = ITI_ALPHAS) -> list[Condition]:
    return [("none", "mode=none")] + [(f"ITI alpha={a}", f"mode=iti,heads={iti_file},alpha={a}") for a in alphas]


def intervention_table(
    run: Callable[[list[str], Path], dict | None],
    *,
    base: str,
    base_args: str,
    conditions: Sequence[Condition],
    tasks: Sequence[str] = DEFAULT_TASKS,
    out_dir: str | Path,
    metric: str = "acc",
    limit: int | None = None,
    offset: int = 0,
    gen_kwargs: str | None = None,
) -> dict[str, Any]:
    """Run every condition (``run(args, output) -> results JSON or None``) and collect accuracy per task, in %."""
    from tqdm import tqdm

    out_dir = Path(out_dir)
    rows: list[dict[str, Any]] = []
    for i, (label, extra) in enumerate(tqdm(conditions, desc="intervention runs")):
        args = ["--model", "ambi_intervene", "--model_args", _model_args(base, base_args, extra),
                "--tasks", ",".join(tasks), "--batch_size", "1"]  # fmt: skip
        if limit is not None:
            args += ["--limit", str(limit)]
        if offset:
            args += ["--offset", str(offset)]
        if gen_kwargs:
            args += ["--gen_kwargs", gen_kwargs]
        results = run(args, out_dir / f"run{i}")
        if results is None:
            raise RuntimeError(
                f"lmms-eval wrote no results for condition {label!r} ({extra}); see its log in {out_dir / f'run{i}'}"
            )
        rows.append(
            {"condition": label, "model_args": extra, **{t: 100 * _accuracy(results, t, metric) for t in tasks}}
        )
    return {
        "base": base,
        "metric": metric,
        "tasks": list(tasks),
        "offset": offset,
        "limit": limit,
        "rows": _summarise(rows, tasks),
    }


def _summarise(rows: list[dict], tasks: Sequence[str]) -> list[dict]:
    """Random-seed rows become one row: mean and std (population) over seeds; the seed rows are kept under 'runs'."""
    plain = [r for r in rows if not r["condition"].startswith("random heads (seed")]
    seeds = [r for r in rows if r["condition"].startswith("random heads (seed")]
    if seeds:
        agg: dict[str, Any] = {"condition": f"random heads ({len(seeds)} seeds)", "runs": seeds}
        for t in tasks:
            vals = [r[t] for r in seeds]
            mean = sum(vals) / len(vals)
            agg[t] = mean
            agg[f"{t}_std"] = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
        plain.append(agg)
    return plain


def format_table(table: dict[str, Any]) -> str:
    """A markdown table: one row per condition, one column per task (accuracy %, random rows as mean +- std)."""
    tasks = table["tasks"]
    lines = ["| condition | " + " | ".join(tasks) + " |", "|---|" + "---|" * len(tasks)]
    for row in table["rows"]:
        cells = []
        for t in tasks:
            v = row[t]
            cell = "nan" if v != v else f"{v:.2f}"
            if f"{t}_std" in row:
                cell += f" +- {row[f'{t}_std']:.2f}"
            cells.append(cell)
        lines.append(f"| {row['condition']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def save_table(table: dict[str, Any], out_dir: str | Path, name: str) -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    js, md = out / f"{name}.json", out / f"{name}.md"
    js.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    md.write_text(format_table(table), encoding="utf-8")
    return {"json": js, "md": md}
