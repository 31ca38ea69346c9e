"""The switch-head causal check in ``ambi report``: a results path that is an ``ambi switch-heads`` output folder
(``patching_<category>.json`` / ``.md`` / ``.png`` written by ``ambi switch-heads patch``) adds its section.

:func:`section_data` turns a patching JSON into one plain, JSON-ready dict that every format renders (the Markdown
here, :func:`section_markdown`; the HTML and the report's JSON use the same dict)::

    {"category", "folder", "model", "plot",          # plot: path of the PNG or None
     "headline": str, "scope": str,                  # one sentence each
     "tables": [{"key": "conditions" | "heads" | "rank_agreement", "title": str,
                 "columns": [str, ...], "rows": [[str, ...], ...]}, ...],   # cells already formatted
     "permutation": {"p", "k", "n", "exact", "n_possible", "observed", "null_mean", "null_range", "seed",
                     "layer_matched", "reason"?},    # numbers, for whoever wants them raw
     "notes": [str, ...], "skipped": [{"id", "reason"}], "refused": [{"id", "reason"}]}

Only the files are read, so the report needs none of the analysis dependencies. A folder written before these
fields existed (no ``permutation`` in its JSON) is shown with the Markdown it was written with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PatchingSection", "find_patching", "has_results", "section_data", "section_markdown"]

SCOPE = (
    "one token position, one direction (run B's head outputs written into run A, the first prompt's run), and only "
    "the first answer token is measured"
)


@dataclass
class PatchingSection:
    folder: Path
    category: str
    markdown: str
    summary: dict
    plot: Path | None
    section: dict | None = None  # section_data(...), None for a folder written before it existed


def _f(v: Any, digits: int = 3) -> str:
    return "n/a" if v is None else f"{v:.{digits}f}"


def _ci(v: Any, ci: Any, n: int, digits: int = 3) -> str:
    if v is None:
        return "n/a"
    if not ci:
        return f"{v:.{digits}f} (no interval: {n} image{'s' if n != 1 else ''})"
    return f"{v:.{digits}f} [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _permutation_sentence(p: dict, conf: int) -> str:
    if p.get("p") is None:
        why = p.get("reason") or "no image or no random set to compare with"
        return f"Permutation test against layer-matched random head sets: not possible ({why})."
    pool = (f"every one of the {p['n']} possible sets" if p.get("exact")
            else f"{p['n']} sets drawn at random (seed {p.get('seed')}) of {p.get('n_possible')} possible")  # fmt: skip
    return (
        f"Permutation test (one-sided): p = {p['p']:.3g} = (k + 1) / (n + 1) with k = {p['k']} of n = {p['n']} "
        f"layer-matched random sets (as many heads per layer as the switch set, none of them) reaching the switch "
        f"set's mean effect {_f(p.get('observed'))}; {pool}; the random sets' mean effects average "
        f"{_f(p.get('null_mean'))}, middle {conf}% {_range(p.get('null_range'))}."
    )


def _range(r: Any) -> str:
    return "n/a" if not r else f"[{r[0]:.3f}, {r[1]:.3f}]"


def section_data(data: dict, *, category: str = "", folder: str | Path = "", plot: str | Path | None = None) -> dict:
    """The switch-head section of one patching JSON (see the module docstring for its shape)."""
    n = int(data.get("n_items") or 0)
    skipped, refused = list(data.get("skipped") or []), list(data.get("refused") or [])
    conf = round(100 * float(data.get("confidence", 0.95)))
    ci_head = f"mean [{conf}% CI]"
    cond_rows = []
    for c in data.get("conditions", []):
        if c["condition"] == "switch heads":
            heads = str(len(c.get("heads", [])))
            flips = f"{c.get('flips', 0)} of {c.get('n_flip_known', n)}"
        else:
            heads = f"{c.get('n_sets', 0)} sets" + (" (every one)" if c.get("exact") else "")
            flips = "n/a" if c.get("flip_rate") is None else f"{100 * c['flip_rate']:.1f}%"
        cond_rows.append([c["condition"], heads, _ci(c.get("effect"), c.get("ci"), n), flips])
    star = any("atp_star" in r for r in data.get("per_head", []))
    head_cols = ["head (layer, head)", "from", "s", f"AtP {ci_head}", *([f"AtP* {ci_head}"] if star else []),
                 f"exact effect {ci_head}", "exact rank", "greedy flips", "NaN/inf"]  # fmt: skip
    head_rows = []
    for r in sorted(data.get("per_head", []), key=lambda r: r.get("rank_exact") or 0):
        bad = int(r.get("n_nonfinite_activations", 0)) + int(r.get("n_nonfinite", 0))
        head_rows.append([f"({r['layer']}, {r['head']})", r.get("from", ""), _f(r.get("s")),
                          _ci(r.get("atp"), r.get("atp_ci"), n),
                          *([_ci(r.get("atp_star"), r.get("atp_star_ci"), n)] if star else []),
                          _ci(r.get("effect"), r.get("ci"), n), str(r.get("rank_exact", "")),
                          f"{r.get('flips', 0)} of {r.get('n_flip_known', n)}", str(bad)])  # fmt: skip
    names = {"atp_vs_exact": "AtP vs exact", "atp_star_vs_abs_exact": "AtP* vs |exact|", "s_vs_exact": "s vs exact",
             "s_vs_atp": "s vs AtP"}  # fmt: skip
    rank_rows = [[names.get(k, k), _ci(v.get("rho"), v.get("ci"), n, 2), str(v.get("n_heads", "")), v.get("over", "")]
                 for k, v in (data.get("spearman") or {}).items() if isinstance(v, dict)]  # fmt: skip
    perm = {k: v for k, v in (data.get("permutation") or {}).items() if k not in ("sets", "set_effects")}
    sel = data.get("selection") or {}
    notes = [_permutation_sentence(perm, conf)]
    if sel.get("mode") == "union":
        notes.append(f"Heads patched one by one: the union of the top {sel.get('k')} by switching score s and the top "
                     f"{sel.get('k')} by AtP" + (" and by AtP*" if sel.get("atp_star") else "") + " (column 'from': "
                     "both = s and AtP). Rank agreement over them is over a selected set; --all-heads patches every "
                     "head.")  # fmt: skip
    elif sel.get("mode") == "all":
        notes.append("Every head patched one by one (--all-heads).")
    if star:
        notes.append("AtP* (GradDrop, Kramar et al. 2024) is a magnitude: it ranks heads, its sign is not estimated.")
    notes.append(f"Intervals: percentile bootstrap over images ({data.get('n_boot')} resamples, seed {data.get('seed')})"
                 + ("; with fewer than 10 images they are too narrow to trust." if n < 10 else "."))  # fmt: skip
    bad = data.get("nonfinite_activations") or {}
    if bad.get("total"):
        notes.append(f"NaN/inf activations at the position: {bad['total']} (image, head) values in {bad['heads']} "
                     "heads (column NaN/inf, with patched runs whose logits were not finite); left out of the means "
                     "and counted.")  # fmt: skip
    if refused:
        notes.append(f"Refused ({len(refused)}): " + "; ".join(f"{r['id']}: {r['reason']}" for r in refused[:5])
                     + (" ..." if len(refused) > 5 else ""))  # fmt: skip
    cost = data.get("cost") or {}
    if cost.get("seconds_per_pass") is not None:
        notes.append(f"Cost: {cost['forward_passes']} patched forward passes, {cost['seconds_per_pass']:.3g} s each "
                     "(measured).")  # fmt: skip
    return {
        "category": category or data.get("category", ""),
        "folder": str(folder),
        "model": data.get("model"),
        "plot": None if plot is None else str(plot),
        "headline": f"Activation patching on {n} switched images ({len(skipped)} skipped: both runs predict the same "
        f"first token; {len(refused)} refused); position {data.get('position')}.",
        "scope": f"What is patched: {SCOPE}.",
        "tables": [
            {
                "key": "conditions",
                "title": "Head sets",
                "columns": ["condition", "heads", f"effect {ci_head}", "greedy flips"],
                "rows": cond_rows,
            },
            {"key": "heads", "title": "Heads patched one by one", "columns": head_cols, "rows": head_rows},
            {
                "key": "rank_agreement",
                "title": "Rank agreement (Spearman)",
                "columns": ["compared", f"rho [{conf}% CI]", "heads", "over"],
                "rows": rank_rows,
            },
        ],  # fmt: skip
        "permutation": perm,
        "notes": notes,
        "skipped": skipped,
        "refused": refused,
    }


def _md_table(table: dict) -> list[str]:
    cols = table["columns"]
    out = [f"**{table['title']}**", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in table["rows"]]
    return [*out, ""]


def section_markdown(section: dict) -> str:
    """One section as Markdown: headline, scope, the tables, the notes."""
    lines = [section["headline"], "", section["scope"], ""]
    for table in section["tables"]:
        lines += _md_table(table)
    lines += [f"- {n}" for n in section["notes"]]
    return "\n".join(lines).rstrip() + "\n"


def find_patching(paths: list[str | Path]) -> list[PatchingSection]:
    """Every ``patching_<category>.md`` directly inside one of ``paths`` (folders only), in path order."""
    out = []
    for path in map(Path, paths):
        if not path.is_dir():
            continue
        for md in sorted(path.glob("patching_*.md")):
            category = md.stem[len("patching_") :]
            js = md.with_suffix(".json")
            data = json.loads(js.read_text(encoding="utf-8")) if js.is_file() else {}
            summary = {k: data.get(k) for k in ("model", "n_items", "position", "conditions", "spearman")}
            png = md.with_suffix(".png")
            plot = png if png.is_file() else None
            section = section_data(data, category=category, folder=path, plot=plot) if "permutation" in data else None
            out.append(PatchingSection(path, category, md.read_text(encoding="utf-8"), summary, plot, section))
    return out


def has_results(path: str | Path) -> bool:
    """Whether ``path`` holds an lmms-eval results JSON (a switch-heads folder without Table 3 runs holds none)."""
    path = Path(path)
    return path.is_file() or (path.is_dir() and any(path.rglob("*results*.json")))
