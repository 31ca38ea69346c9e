"""Tables 3 and 4: AmbiBench accuracy under no / switch-head / random-head masking, and under ITI shifts.

Every cell is an ordinary lmms-eval run (the real CLI, our ``ambi_intervene`` model around the chosen backend, with
``--log_samples``), read from its results JSON. Table 3 rows: ``none`` (hooks off), ``switch heads`` (mask, epsilon),
``random heads`` (mask as many random heads, mean +- std over seeds). Table 4 rows: ``none`` and ``ITI alpha=a`` for
each alpha, run on the evaluation copy without the held-out items (:mod:`ambi_plugin.analysis.heldout`, passed as
``env``). Next to the accuracy, each row says how many of the task's responses differ from the ``none`` row's
(``changed``, in %): an intervention that changes what the model says shows there even when accuracy does not move.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ambi_plugin.analysis.interventions import DEFAULT_EPSILON, ITI_ALPHAS
from ambi_plugin.core.jsonl import iter_jsonl

__all__ = ["DEFAULT_TASKS", "Condition", "RunResult", "format_table", "intervention_table", "responses"]

DEFAULT_TASKS = ("ambibench_bistable_open", "ambibench_multiscene_open")
Condition = tuple  # (row label, extra model_args) or (row label, extra model_args, {fields recorded in the row})


@dataclass
class RunResult:
    """One lmms-eval run: its results JSON (``None`` when it wrote none) and its output folder."""

    results: dict | None
    folder: Path


def responses(folder: str | Path) -> dict[str, dict[str, str]]:
    """``{task: {doc key: response}}`` from the ``--log_samples`` files below an lmms-eval output folder."""
    out: dict[str, dict[str, str]] = {}
    for path in sorted(Path(folder).rglob("*_samples_*.jsonl")):
        task = path.name.split("_samples_", 1)[1].rsplit(".", 1)[0]
        rows = out.setdefault(task, {})
        for _, row in iter_jsonl(path, what="logged samples file", objects=True):
            key = str(row.get("doc_hash") or row.get("doc_id"))
            resp = row.get("filtered_resps", row.get("resps"))
            rows[key] = json.dumps(resp, sort_keys=True)
    return out


def _changed(mine: dict[str, str], base: dict[str, str]) -> float:
    common = [k for k in mine if k in base]
    if not common:
        return float("nan")
    return 100 * sum(mine[k] != base[k] for k in common) / len(common)


def _model_args(base: str, base_args: str, extra: str) -> str:
    return ",".join(p for p in (f"base={base}", base_args, extra) if p)


def _accuracy(results: dict, task: str, metric: str) -> float:
    row = results.get("results", {}).get(task, {})
    for key, val in row.items():
        if key.split(",")[0] == metric and isinstance(val, (int, float)):
            return float(val)
    return float("nan")


def table3_conditions(
    heads_file: str | Path, *, epsilon: float = DEFAULT_EPSILON, controls: Sequence[dict] = ()
) -> list[Condition]:
    """``none``, ``switch heads`` and one row per random-head control (``{"seed", "heads", "heads_file"}``: the drawn
    heads, written to their own heads file, are what the run masks and what the row records)."""
    rows: list[Condition] = [("none", "mode=none"), ("switch heads", f"mode=mask,heads={heads_file},epsilon={epsilon}")]
    rows += [
        (f"random heads (seed {c['seed']})", f"mode=mask,heads={c['heads_file']},epsilon={epsilon}",
         {"seed": c["seed"], "heads": c["heads"]})
        for c in controls
    ]  # fmt: skip
    return rows


def table4_conditions(iti_file: str | Path, *, alphas: Sequence[float] = ITI_ALPHAS) -> list[Condition]:
    return [("none", "mode=none")] + [(f"ITI alpha={a}", f"mode=iti,heads={iti_file},alpha={a}") for a in alphas]


def intervention_table(
    run: Callable[..., RunResult],
    *,
    base: str,
    base_args: str,
    conditions: Sequence[Condition],
    tasks: Sequence[str] = DEFAULT_TASKS,
    out_dir: str | Path,
    metric: str = "acc",
    limit: int | None = None,
    gen_kwargs: str | None = None,
    env: dict[str, str] | None = None,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run every condition (``run(args, output, env) -> RunResult``) and collect accuracy per task, in %, and the
    share of responses that differ from the first condition's (``none``)."""
    from tqdm import tqdm

    out_dir = Path(out_dir)
    rows: list[dict[str, Any]] = []
    base_resps: dict[str, dict[str, str]] | None = None
    for i, (label, extra, *info) in enumerate(tqdm(conditions, desc="intervention runs")):
        args = ["--model", "ambi_intervene", "--model_args", _model_args(base, base_args, extra),
                "--tasks", ",".join(tasks), "--batch_size", "1", "--log_samples"]  # fmt: skip
        if limit is not None:
            args += ["--limit", str(limit)]
        if gen_kwargs:
            args += ["--gen_kwargs", gen_kwargs]
        res = run(args, out_dir / f"run{i}", env)
        if res.results is None:
            raise RuntimeError(
                f"lmms-eval wrote no results for condition {label!r} ({extra}); see its log in {res.folder}"
            )
        resps = responses(res.folder)
        if base_resps is None:
            base_resps = resps
        row: dict[str, Any] = {
            "condition": label,
            "model_args": extra,
            "output": str(res.folder),
            **(info[0] if info else {}),
        }
        for t in tasks:
            row[t] = 100 * _accuracy(res.results, t, metric)
            row[f"{t}_changed"] = _changed(resps.get(t, {}), base_resps.get(t, {}))
            row[f"{t}_n"] = _n_samples(res.results, t)
        rows.append(row)
    return {
        "base": base,
        "metric": metric,
        "tasks": list(tasks),
        "limit": limit,
        "baseline_condition": conditions[0][0] if conditions else None,
        **(meta or {}),
        "rows": _summarise(rows, tasks),
    }


def _n_samples(results: dict, task: str) -> int | None:
    n = (results.get("n-samples") or {}).get(task) or {}
    return n.get("effective")


def _summarise(rows: list[dict], tasks: Sequence[str]) -> list[dict]:
    """Random-seed rows become one row: mean and std (population) over seeds; the seed rows are kept under 'runs'."""
    plain = [r for r in rows if not r["condition"].startswith("random heads (seed")]
    seeds = [r for r in rows if r["condition"].startswith("random heads (seed")]
    if seeds:
        agg: dict[str, Any] = {"condition": f"random heads ({len(seeds)} seeds)", "runs": seeds,
                               "seeds": [r.get("seed") for r in seeds]}  # fmt: skip
        for t in tasks:
            vals = [r[t] for r in seeds]
            mean = sum(vals) / len(vals)
            agg[t] = mean
            agg[f"{t}_std"] = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
            agg[f"{t}_changed"] = sum(r[f"{t}_changed"] for r in seeds) / len(seeds)
            agg[f"{t}_n"] = seeds[0][f"{t}_n"]
        plain.append(agg)
    return plain


def format_table(table: dict[str, Any]) -> str:
    """A markdown table: one row per condition; per task the accuracy (%, random rows as mean +- std) and the share
    of responses changed against the first row (%)."""
    tasks = table["tasks"]
    head = [f"{t} ({table.get('metric', 'acc')} %) | {t} changed %" for t in tasks]
    lines = ["| condition | " + " | ".join(head) + " |", "|---|" + "---|---|" * len(tasks)]
    for row in table["rows"]:
        cells = []
        for t in tasks:
            v = row[t]
            cell = "nan" if v != v else f"{v:.2f}"
            if f"{t}_std" in row:
                cell += f" +- {row[f'{t}_std']:.2f}"
            changed = row.get(f"{t}_changed", float("nan"))
            cells.append(cell)
            cells.append("nan" if changed != changed else f"{changed:.1f}")
        lines.append(f"| {row['condition']} | " + " | ".join(cells) + " |")
    for control in table.get("random_control") or []:
        heads = ", ".join(f"({a}, {b})" for a, b in control["heads"])
        lines.append(f"\nRandom heads, seed {control['seed']}: {heads}")
    return "\n".join(lines) + "\n"


def save_table(table: dict[str, Any], out_dir: str | Path, name: str) -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    js, md = out / f"{name}.json", out / f"{name}.md"
    js.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    md.write_text(format_table(table), encoding="utf-8")
    return {"json": js, "md": md}
