"""``ambi switch-heads``: from a model name to the switching-score heatmap and the intervention tables.

    ambi switch-heads all --model qwen2_5_vl --model-args pretrained=Qwen/Qwen2.5-VL-7B-Instruct --out runs/qwen7b

Subcommands: ``capture`` (two prompts per image, activations, switch verdicts; resumable), ``scores`` (cos and s
maps, switch heads, sparsity, Pearson, heads file, heatmaps), ``heatmap`` (redraw one), ``fit-iti`` (ITI directions
on held-out items), ``intervene`` (Tables 3 / 4 through lmms-eval), ``patch`` (activation patching and AtP on the
switched images: the causal check), ``visualize`` (A.8 overlay), ``all``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

CATEGORIES = ("bistable", "multiscene")


def _load(args: argparse.Namespace):
    from ambi_plugin.lmms.analysis_driver import load_backend

    return load_backend(args.model, args.model_args)


def cmd_capture(args: argparse.Namespace, lm=None) -> int:
    from ambi_plugin.analysis.collect import capture_category, load_items, records_name
    from ambi_plugin.analysis.positions import paired_position

    paired_position(args.position)  # a position that cannot mean the same in both prompts: said before loading
    lm = lm or _load(args)
    for category in args.category or CATEGORIES:
        records = load_items(args.records, category)
        if args.limit:
            records = records[: args.limit]
        summary = capture_category(
            lm, records, args.out, category=category, position=args.position, rule=args.switch_rule,
            gen_kwargs={"max_new_tokens": args.max_new_tokens}, model_name=args.model,
            source=f"{args.records} ({category}, first {len(records)} records)",
            dataset_name=records_name(args.records, category), store_dtype=args.store_dtype,
        )  # fmt: skip
        print(f"{category}: {summary.n_switched} of {summary.n_items} images switched -> {summary.folder}")
    return 0


def cmd_scores(args: argparse.Namespace) -> int:
    from ambi_plugin.analysis.collect import load_activations
    from ambi_plugin.analysis.interventions import HeadsSpec, write_heads_file
    from ambi_plugin.analysis.plots import save_heatmap
    from ambi_plugin.analysis.scores import pearson, switching_scores

    out = Path(args.out)
    maps = {}
    for category in args.category or CATEGORIES:
        folder = out / category
        if not (folder / "activations.npz").is_file():
            continue
        acts = load_activations(folder)
        sw = acts["switched"].astype(bool)
        scores = switching_scores(
            acts["pre"][sw], acts["post"][sw], category=category, meta={"n_captured": int(len(sw))}
        )
        select = dict(threshold=args.threshold, top_fraction=args.top_fraction, max_fraction=args.max_fraction)
        paths = scores.save(out, k=args.k, **select)
        sparsity = scores.sparsity(**select)
        png = save_heatmap(scores.s, out / f"heatmap_{category}.png", title=f"{category}: s = 1 - cos ({scores.n_images} images)",
                           highlight=[tuple(h) for h in sparsity["heads"]])  # fmt: skip
        write_heads_file(out / f"switch_heads_{category}.json", HeadsSpec([tuple(h) for h in sparsity["heads"]],
                         meta={"category": category, "rule": sparsity["rule"], "n_images": scores.n_images,
                               "n_heads_total": int(scores.s.size), "shape": list(scores.s.shape),
                               "threshold": args.threshold, "max_fraction": args.max_fraction}))  # fmt: skip
        maps[category] = scores
        print(f"{category}: {scores.n_images} switched images; {sparsity['n_selected']} switch heads ({sparsity['rule']}); "
              f"{paths['json']}, {png}")  # fmt: skip
        if scores.n_excluded_pairs:
            print(f"{category}: {scores.n_excluded_pairs} (image, head) pairs with a zero, near-zero or NaN/inf vector "
                  f"left out; {sparsity['n_heads_unscored']} heads have no score")  # fmt: skip
        if scores.n_nonfinite_pairs:
            worst = ", ".join(f"({h['layer']}, {h['head']}) x{h['pairs']}" for h in scores.nonfinite_heads()[:8])
            print(f"{category}: warning: {scores.n_nonfinite_pairs} of them hold NaN/inf activations (float16 overflow? "
                  f"capture with --store-dtype bfloat16 or float32): {worst}")  # fmt: skip
    if not maps:
        raise SystemExit(
            f"no capture under {out} (expected {out}/<category>/activations.npz): run `ambi switch-heads capture`"
        )
    main = "bistable" if "bistable" in maps else next(iter(maps))
    spec_path = out / "switch_heads.json"
    spec_path.write_text((out / f"switch_heads_{main}.json").read_text(encoding="utf-8"), encoding="utf-8")
    if len(maps) == 2:
        a, b = maps.values()
        r = pearson(a.s, b.s)
        (out / "pearson.json").write_text(json.dumps({"categories": list(maps), "pearson_s": r}, indent=1) + "\n")
        print(f"Pearson({', '.join(maps)}) = {r:.4f}")
    print(f"switch heads for interventions: {spec_path}")
    return 0


def cmd_heatmap(args: argparse.Namespace) -> int:
    from ambi_plugin.analysis.plots import save_heatmap
    from ambi_plugin.analysis.scores import load_scores

    scores = load_scores(args.scores)
    out = args.png or str(Path(args.scores).with_suffix(".png"))
    heads = [tuple(h) for h in scores.sparsity(threshold=args.threshold)["heads"]]
    print(save_heatmap(scores.s, out, title=args.title or "", highlight=heads))
    return 0


def cmd_fit_iti(args: argparse.Namespace) -> int:
    from ambi_plugin.analysis.collect import DEFAULT_RECORDS, load_activations
    from ambi_plugin.analysis.interventions import fit_iti, load_heads_file, write_heads_file

    capture = Path(args.capture)
    acts = load_activations(capture)
    info = json.loads((capture / "capture.json").read_text(encoding="utf-8"))
    category = info.get("category") or capture.name
    dataset_name = args.dataset_name or info.get("dataset_name") or DEFAULT_RECORDS.get(category, category)
    spec = fit_iti(acts["pre"], acts["correct"], load_heads_file(args.heads).heads)
    spec.meta.update({"held_out_ids": [str(i) for i in acts["ids"]], "n_held_out": int(len(acts["ids"])),
                      "held_out_dataset_name": dataset_name, "fitted_on": str(capture),
                      "activation": "prompt 1 (pre)"})  # fmt: skip
    print(write_heads_file(args.out, spec))
    print(f"fitted on {len(acts['ids'])} held-out items of '{dataset_name}'; `intervene --iti` leaves them out")
    return 0


def _runner(num_processes: int = 1):
    """Runs lmms-eval (under ``accelerate launch`` when ``num_processes`` > 1) and returns a
    :class:`~ambi_plugin.analysis.tables.RunResult`; an identical argument list and environment (e.g. the 'none' row
    of both tables when nothing is held out) runs once."""
    import os
    import subprocess
    import sys

    from ambi_plugin.analysis.tables import RunResult
    from ambi_plugin.lmms.cli_run import lmms_eval_argv
    from ambi_plugin.reports.results import find_results_json

    done: dict[tuple, RunResult] = {}
    prefix = lmms_eval_argv()
    if num_processes > 1:
        prefix = [
            sys.executable,
            "-m",
            "accelerate.commands.launch",
            "--num_processes",
            str(num_processes),
            "-m",
            "lmms_eval",
        ]

    def run(argv: list[str], output: Path, env: dict[str, str] | None = None) -> RunResult:
        key = (tuple(argv), tuple(sorted((env or {}).items())))
        if key in done:
            return done[key]
        output.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run([*prefix, *argv, "--output_path", str(output)], capture_output=True, text=True,
                              env={**os.environ, **(env or {})})  # fmt: skip
        (output / "lmms_eval.log").write_text(f"rc={proc.returncode}\n{proc.stdout[-20000:]}\n{proc.stderr[-20000:]}")
        try:
            results = json.loads(find_results_json(output).read_text(encoding="utf-8"))
        except FileNotFoundError:
            results = None  # lmms-eval exits 0 even when it fails: only its results JSON proves a run
        done[key] = RunResult(results, output)
        return done[key]

    return run


def cmd_intervene(args: argparse.Namespace) -> int:
    from ambi_plugin.analysis.interventions import load_heads_file
    from ambi_plugin.analysis.tables import (
        format_table,
        intervention_table,
        save_table,
        table3_conditions,
        table4_conditions,
    )

    common = dict(base=args.model, base_args=args.model_args, tasks=args.tasks.split(","), limit=args.limit,
                  gen_kwargs=f"max_new_tokens={args.max_new_tokens}")  # fmt: skip
    run = _runner(args.num_processes)
    out = Path(args.out)
    if args.heads:
        spec = load_heads_file(args.heads)
        controls = _random_controls(spec, args.heads, range(args.seeds), out / "random_heads")
        conds = table3_conditions(Path(args.heads).resolve(), epsilon=args.epsilon, controls=controls)
        meta = {"random_control": [{"seed": c["seed"], "heads": c["heads"]} for c in controls]}
        table = intervention_table(run, conditions=conds, out_dir=out / "runs_table3", meta=meta, **common)
        save_table(table, out, "table3")
        print("Table 3 (accuracy %, masking)\n" + format_table(table))
    if args.iti:
        env, meta, note = _held_out(load_heads_file(args.iti), args.eval_source, out / "eval_data")
        conds = table4_conditions(Path(args.iti).resolve(), alphas=[float(a) for a in args.alphas.split(",")])
        table = intervention_table(run, conditions=conds, out_dir=out / "runs_table4", env=env, meta=meta, **common)
        save_table(table, out, "table4")
        print(f"Table 4 (accuracy %, ITI; {note})\n" + format_table(table))
    if not (args.heads or args.iti):
        raise SystemExit("intervene needs --heads FILE (Table 3) and/or --iti FILE (Table 4)")
    return 0


def _random_controls(spec, heads_file: str, seeds, folder: Path) -> list[dict]:
    """Table 3's random-head control: for each seed, as many heads as ``spec`` names, drawn outside them; written to
    ``folder/seed<N>.json`` (the file the run masks) and returned with their seed, so the table records them."""
    from ambi_plugin.analysis.interventions import HeadsSpec, random_heads, write_heads_file

    seeds = list(seeds)
    if not seeds:
        return []
    n_sel, n_all, shape = len(spec.heads), spec.meta.get("n_heads_total"), spec.meta.get("shape")
    if n_all is None and shape:
        n_all = int(shape[0]) * int(shape[1])
    if n_all is not None and 2 * n_sel > n_all:
        cap = spec.meta.get("max_fraction")
        raise SystemExit(
            f"{heads_file} names {n_sel} of {n_all} heads: too many for a random-head control of the same size outside "
            f"them. Re-run `ambi switch-heads scores` with a smaller --max-fraction (the file was made with "
            f"{cap if cap is not None else 'no cap'}; at most 0.5 leaves room) or a higher --threshold, or pass "
            "--seeds 0 to skip the control"
        )
    if not shape:
        raise SystemExit(
            f"{heads_file} has no 'shape' ([layers, heads]) to draw the random-head control from: re-run "
            '`ambi switch-heads scores`, add "shape": [layers, heads] to the file, or pass --seeds 0'
        )
    out = []
    for seed in seeds:
        drawn = random_heads(tuple(shape), n_sel, seed=seed, exclude=spec.heads)
        path = write_heads_file(folder / f"seed{seed}.json", HeadsSpec(drawn, meta={
            "random_control": True, "seed": seed, "drawn_outside": str(heads_file), "shape": list(shape)}))  # fmt: skip
        out.append({"seed": seed, "heads": [list(h) for h in drawn], "heads_file": str(path.resolve())})
    return out


def _held_out(spec, source: str, folder: Path) -> tuple[dict[str, str], dict, str]:
    """Environment, table metadata and a one-line note for the Table 4 runs: the held-out ids left out by id."""
    from ambi_plugin.analysis.heldout import evaluation_copy

    ids = spec.meta.get("held_out_ids") or []
    name = spec.meta.get("held_out_dataset_name")
    if not ids or not name:
        note = "the ITI file names no held-out items: the evaluation includes every item"
        print(f"switch-heads: warning: {note} (write it with `ambi switch-heads fit-iti`)")
        return {}, {"held_out": None}, note
    held = evaluation_copy(source, name, ids, folder)
    if held.missing:
        print(f"switch-heads: warning: {len(held.missing)} held-out ids are not in {source} '{name}': "
              f"{', '.join(held.missing[:5])}")  # fmt: skip
    note = f"{len(held.excluded)} held-out items left out of '{name}'"
    return held.env, {"held_out": held.to_dict()}, note


def cmd_patch(args: argparse.Namespace, lm=None) -> int:
    import numpy as np

    from ambi_plugin.analysis.collect import _images, load_items
    from ambi_plugin.analysis.interventions import load_heads_file
    from ambi_plugin.analysis.patching import PatchingError, PatchItem, patch_items, patch_position
    from ambi_plugin.analysis.plots import save_heatmap, save_patching_plot
    from ambi_plugin.analysis.scores import load_scores
    from ambi_plugin.reports.switch_heads import section_data, section_markdown

    out = Path(args.out)
    done = 0
    for category in args.category or CATEGORIES:
        capture = out / category / "capture.json"
        if not capture.is_file():
            continue
        info = json.loads(capture.read_text(encoding="utf-8"))
        position = args.position or info["position"]
        try:
            patch_position(position)
        except PatchingError as exc:
            raise SystemExit(f"switch-heads patch: {category}: {exc}") from None
        heads_file = Path(args.heads) if args.heads else out / f"switch_heads_{category}.json"
        if not heads_file.is_file():
            raise SystemExit(f"{heads_file} does not exist: run `ambi switch-heads scores --out {out}` first")
        spec = load_heads_file(heads_file)
        scores_file = out / f"scores_{category}.json"
        scores = load_scores(scores_file) if scores_file.is_file() else None
        if scores is None:
            print(f"switch-heads: {scores_file} not found: heads are chosen by AtP alone (run `scores` for s)")
        records = {str(r["id"]): r for r in load_items(args.records, category)}
        items, missing = [], []
        for it in info["items"]:
            if not it.get("switched"):
                continue
            if it["id"] not in records:
                missing.append(it["id"])
                continue
            items.append(PatchItem(it["id"], _images(records[it["id"]]), it["prompt1"], it["prompt2"]))
        if missing:
            print(f"switch-heads: {len(missing)} switched ids of {capture} are not in {args.records}: "
                  f"{', '.join(missing[:5])} (pass the capture's --records)")  # fmt: skip
        if args.limit:
            items = items[: args.limit]
        if not items:
            print(f"{category}: no switched image to patch; skipped")
            continue
        lm = lm or _load(args)
        try:
            data = patch_items(lm, items, switch_heads=spec.heads, position=position,
                               scores=None if scores is None else scores.s, top_k=args.per_head_k,
                               all_heads=args.all_heads or args.per_head_k == 0, atp_star=args.atp_star,
                               draws=args.draws, seed=args.seed, n_boot=args.n_boot,
                               say=lambda msg, c=category: print(f"{c}: {msg}"))  # fmt: skip
        except PatchingError as exc:
            raise SystemExit(f"switch-heads patch: {category}: {exc}") from None
        data = {"category": category, "model": args.model, "heads_file": str(heads_file),
                "ids_not_in_records": missing, **data}  # fmt: skip
        (out / f"patching_{category}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        png = save_patching_plot(data, out / f"patching_{category}.png", title=f"{category}: activation patching")
        text = section_markdown(section_data(data, category=category, folder=out, plot=png))
        (out / f"patching_{category}.md").write_text(text, encoding="utf-8")
        for key, what in (("atp", "AtP"), ("atp_star", "AtP* (GradDrop, magnitude)")):
            if data.get(key) is not None:
                save_heatmap(np.array(data[key], dtype=float), out / f"{key}_{category}.png",
                             title=f"{category}: {what} (share of the switch, per head)",
                             highlight=[tuple(h) for h in spec.heads])  # fmt: skip
        print(f"{category}: patched {data['n_items']} switched images -> {out / f'patching_{category}.md'}")
        if data["refused"]:
            print(f"{category}: {len(data['refused'])} images refused (listed in the table's notes and the JSON)")
        print(text)
        done += 1
    if not done:
        raise SystemExit(f"nothing patched under {out}: run `ambi switch-heads capture` and `scores` first")
    return 0


def cmd_visualize(args: argparse.Namespace, lm=None) -> int:
    from ambi_plugin.analysis.attention import visualize
    from ambi_plugin.analysis.collect import _images, load_items
    from ambi_plugin.analysis.prompts import first_prompt

    lm = lm or _load(args)
    category = (args.category or ["bistable"])[0]
    images = (
        [args.image] if args.image else [_images(r)[0] for r in load_items(args.records, category)[: args.limit or 1]]
    )
    for i, image in enumerate(images):
        info = visualize(lm, args.prompt or first_prompt(category), image, Path(args.out) / f"attention_{category}_{i}.png",
                         layer=args.layer, gen_kwargs={"max_new_tokens": args.max_new_tokens})  # fmt: skip
        print(json.dumps(info))
    return 0


def cmd_all(args: argparse.Namespace) -> int:
    lm = _load(args)
    cmd_capture(args, lm)
    cmd_scores(args)
    args.category = args.category or ["bistable"]
    args.image = None
    args.prompt = None
    args.layer = None
    cmd_visualize(args, lm)
    del lm
    args.heads = str(Path(args.out) / "switch_heads.json")
    args.iti = None
    return cmd_intervene(args)
