"""``python -m ambi_plugin.vlmeval`` / ``ambi vlmeval``: register our tasks, then run VLMEvalKit's ``run.py``.

Every argument goes to VLMEvalKit's own ``run.py`` main unchanged (``--data``, ``--model``, ``--config``,
``--judge`` ..., see ``run.py --help``), except that a group of ours in ``--data`` (``ambi_synth_all``,
``ambibench_all`` ...) is replaced by its tasks. Several GPUs (data parallel)::

    torchrun --nproc-per-node 4 -m ambi_plugin.vlmeval --data ambi_synth_all --model Qwen2.5-VL-7B-Instruct

Per-model prompt settings: datasets of ours built without a ``prompt_model`` use the task YAML's
``lmms_eval_specific_kwargs`` entry of the lmms-eval model the run's VLMEvalKit model maps to
(:mod:`ambi_plugin.vlmeval.prompt_model`: ``Qwen2.5-VL-*`` -> ``qwen2_5_vl`` with the model's
``min_pixels``/``max_pixels``, ``InternVL3*`` -> ``internvl3`` ...); models of one run that would need
different entries for a task are refused (run them separately).

Prediction files: run.py writes them in the format ``PRED_FORMAT`` names, ``xlsx`` by default, which
damages some answers (:mod:`ambi_plugin.vlmeval.predfile`). When every dataset of the run is ours and
neither the environment nor VLMEvalKit's ``.env`` sets ``PRED_FORMAT``, the launcher sets it to ``json``
(answers kept exactly) and says so; a ``PRED_FORMAT`` the user set is left alone, and so is a run with
datasets not ours (their ``evaluate`` may expect VLMEvalKit's default). A json prediction file of ours
left by an earlier run is stored by columns before run.py resumes from it (:func:`json_by_columns`).

``run.py`` logs a failing dataset and goes on with the next one (its exit code stays 0); the launcher
then exits 1 and names the model x dataset pairs of ours (``--data``/``--model`` or the ``--config``
JSON) that wrote no score file during the run.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


class LauncherError(ValueError):
    """Arguments the launcher cannot run (the message names the option and what to do)."""


def expand_data_args(argv: Sequence[str]) -> list[str]:
    """``--data`` values with our groups replaced by their member tasks."""
    from ambi_plugin.runtime.taskindex import expand_groups

    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--data":
            j = i + 1
            while j < len(argv) and not argv[j].startswith("--"):
                j += 1
            out += ["--data", *expand_groups(list(argv[i + 1 : j]), keep_unknown=True)]
            i = j
            continue
        if arg.startswith("--data="):
            out += ["--data", *expand_groups([arg.split("=", 1)[1]], keep_unknown=True)]
        else:
            out.append(arg)
        i += 1
    return out


def check_data_names(argv: Sequence[str]) -> None:
    """A ``--data`` name neither VLMEvalKit nor we know (nor a custom TSV in ``$LMUData``) is an error before run.py
    starts: run.py itself logs it as invalid, skips it and exits 0 having evaluated nothing."""
    import difflib

    import vlmeval.dataset as vd

    from ambi_plugin.vlmeval.tsv import lmudata_root

    known = set(vd.SUPPORTED_DATASETS)
    for name in _option(argv, "--data"):
        if name in known or (lmudata_root() / f"{name}.tsv").is_file():
            continue
        close = difflib.get_close_matches(name, sorted(known), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise LauncherError(
            f"--data {name!r} is neither a VLMEvalKit dataset, nor one of ours (ambi tasks), nor a custom TSV "
            f"{lmudata_root() / (name + '.tsv')}{hint}"
        )


def _option(argv: Sequence[str], name: str) -> list[str]:
    """The values following every ``name`` in ``argv`` (up to the next ``--option``)."""
    vals: list[str] = []
    for i, arg in enumerate(argv):
        if arg == name:
            for val in argv[i + 1 :]:
                if val.startswith("--"):
                    break
                vals.append(val)
    return vals


def _config(argv: Sequence[str]) -> dict | None:
    """The ``--config`` JSON of the run (None without one)."""
    import json

    paths = _option(argv, "--config")
    if not paths:
        return None
    try:
        with open(paths[0], encoding="utf-8") as fh:
            cfg = json.load(fh)
    except (OSError, ValueError) as exc:
        raise LauncherError(f"--config {paths[0]}: cannot read it as JSON ({exc})") from None
    if not isinstance(cfg, dict) or not isinstance(cfg.get("model"), dict) or not isinstance(cfg.get("data"), dict):
        raise LauncherError(f"--config {paths[0]}: expected an object with 'model' and 'data' objects")
    return cfg


def run_plan(argv: Sequence[str]) -> tuple[list[str], dict[str, dict]]:
    """The run's model names and its datasets of ours as {dataset name: config entry ({} without --config)}."""
    from ambi_plugin.vlmeval.registry import registered

    ours = registered()
    cfg = _config(argv)
    if cfg is None:
        return _option(argv, "--model"), {d: {} for d in _option(argv, "--data") if d in ours}
    classes = {cls.__name__ for cls in ours.values()}
    data = {
        name: dict(entry)
        for name, entry in cfg["data"].items()
        if isinstance(entry, dict) and (entry.get("class") in classes or (name in ours and "class" not in entry))
    }
    return list(cfg["model"]), data


def choose_prompt_model(argv: Sequence[str]) -> tuple[str | None, dict]:
    """The per-model YAML entry (lmms-eval key, resize settings) for datasets of ours built without an explicit
    ``prompt_model``: the one the run's model(s) map to (:mod:`ambi_plugin.vlmeval.prompt_model`)."""
    from ambi_plugin.vlmeval import prompt_model as pm
    from ambi_plugin.vlmeval.registry import registered

    models, data = run_plan(argv)
    cfg = _config(argv)
    ours = registered()
    by_class = {cls.__name__: cls for cls in ours.values()}
    implicit = [  # run_plan keeps datasets whose class is ours, or named as a task of ours
        (by_class.get(entry.get("class")) or ours[name]).AMBI_TASK
        for name, entry in data.items()
        if entry.get("prompt_model") is None
    ]
    return pm.choose({m: pm.for_model(m, cfg["model"] if cfg else None) for m in models}, implicit)


def work_root(argv: Sequence[str]) -> Path:
    """run.py's work dir: ``MMEVAL_ROOT``, else ``--work-dir``, else ``./outputs`` (run.py's order)."""
    import os

    return Path(os.environ.get("MMEVAL_ROOT") or (_option(argv, "--work-dir") or ["./outputs"])[0])


def missing_scores(argv: Sequence[str], since: float = 0.0) -> list[str]:
    """Our datasets x models of the run (``--data``/``--model`` or the ``--config`` JSON) that wrote no score
    file at or after ``since`` (a time stamp taken before the run)."""
    import os

    if os.environ.get("RANK", "0") != "0" or "infer" in _option(argv, "--mode"):
        return []
    work = work_root(argv)
    models, data = run_plan(argv)

    def written(model: str, name: str) -> bool:
        return any(p.stat().st_mtime >= since for p in (work / model).rglob(f"{model}_{name}_score.json"))

    return [f"{model} x {name}" for model in models for name in data if not written(model, name)]


def choose_pred_format(argv: Sequence[str]) -> str:
    """Set ``PRED_FORMAT`` to the lossless format for a run of our datasets only, unless it is set; returns the
    line that says what the run's prediction files will be."""
    import os

    from ambi_plugin.vlmeval.predfile import LOSSLESS

    given = os.environ.get("PRED_FORMAT", "")
    if given:
        return f"prediction files in {given.lower()} (PRED_FORMAT set by you)"
    _, ours = run_plan(argv)
    cfg = _config(argv)
    others = [n for n in (list(cfg["data"]) if cfg else _option(argv, "--data")) if n not in ours]
    if not ours:
        return "prediction files in xlsx (VLMEvalKit's default; no dataset of ours in the run)"
    if others:
        return (
            f"prediction files in xlsx (VLMEvalKit's default, kept: the run has datasets not ours, "
            f"{', '.join(others[:3])}); answers of ours it damages are counted ('damaged_answers'); "
            f"PRED_FORMAT={LOSSLESS} keeps them exactly"
        )
    os.environ["PRED_FORMAT"] = LOSSLESS
    return f"prediction files in {LOSSLESS} (PRED_FORMAT={LOSSLESS}: answers kept exactly; xlsx damages some)"


def json_by_columns(argv: Sequence[str]) -> list[Path]:
    """Let run.py resume from json prediction files of ours that an earlier run left in the work dir.

    run.py (``infer_data_job``) reuses the answers of an existing prediction file, but indexes what its
    ``load`` returns as a table: a json file (a list of rows) stops it with a TypeError. Such a file of ours
    is stored by columns instead (``{"index": [...], "prediction": [...], ...}``, the same cells), which
    ``load`` returns as a dict run.py can index; run.py then writes the file again, by rows. Returns the
    files rewritten."""
    import json
    import os

    if os.environ.get("PRED_FORMAT", "").lower() != "json" or "eval" in _option(argv, "--mode"):
        return []
    if os.environ.get("RANK", "0") != "0":
        return []
    work = work_root(argv)
    models, data = run_plan(argv)
    done = []
    for model in models:
        for name in data:
            path = work / model / f"{model}_{name}.json"
            try:
                rows = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # no file, or not one run.py could resume from either way
            if not rows or not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                continue
            keys = list(dict.fromkeys(k for r in rows for k in r))
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps({k: [r.get(k) for r in rows] for k in keys}, ensure_ascii=False), "utf-8")
            tmp.replace(path)
            done.append(path)
    return done


def prepare(argv: Sequence[str], prog: str = "ambi vlmeval") -> list[str]:
    """What the launcher does before run.py's main (also done by the plain run.py hook,
    :mod:`ambi_plugin.vlmeval.plainrun`): register our tasks, expand our groups, choose the per-model prompt
    entry and the prediction format, prepare json files to resume from; each choice is said on stderr. Returns
    the arguments for run.py. Raises VLMEvalKitMissing, LauncherError or PromptModelError (one line each)."""
    from ambi_plugin.vlmeval import prompt_model as pm
    from ambi_plugin.vlmeval.registry import register

    argv = expand_data_args(list(argv))
    register()
    if any(a in ("-h", "--help") for a in argv):
        return argv
    key, settings = choose_prompt_model(argv)
    pm.set_default(key, settings)
    if key:
        shown = "".join(f", {k}={v}" for k, v in settings.items())
        print(f"{prog}: our tasks use their lmms-eval entry {key!r}{shown}", file=sys.stderr)
    from vlmeval.smp import load_env

    load_env()  # VLMEvalKit's .env may set PRED_FORMAT: read it first
    print(f"{prog}: {choose_pred_format(argv)}", file=sys.stderr)
    for path in json_by_columns(argv):
        print(f"{prog}: resuming from {path} (stored by columns so that run.py can read it)", file=sys.stderr)
    return argv


class _NoMissingEnvError:
    """Drops VLMEvalKit's "Did not detect the .env file ... failed to load." ERROR record: having no .env is the
    normal case (it only sets API keys), and an ERROR line on every start reads as a failure."""

    @staticmethod
    def filter(record) -> bool:
        return not str(record.getMessage()).startswith("Did not detect the .env file")


def quiet_missing_env() -> None:
    """Silence that one record in this process (``import vlmeval`` logs it through the root logger)."""
    import logging

    root = logging.getLogger()
    if not any(isinstance(f, _NoMissingEnvError) for f in root.filters):
        root.addFilter(_NoMissingEnvError())


def where_it_writes(argv: Sequence[str]) -> str:
    """One line: where VLMEvalKit writes its outputs and reads its data."""
    from ambi_plugin.vlmeval.tsv import lmudata_root

    return (
        f"VLMEvalKit writes predictions and scores under {work_root(argv)}/<model>/ (MMEVAL_ROOT or --work-dir "
        f"change it) and keeps dataset TSVs in {lmudata_root()} ($LMUData)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    import time

    from ambi_plugin.vlmeval import prompt_model as pm
    from ambi_plugin.vlmeval.registry import VLMEvalKitMissing

    try:
        argv = prepare(list(sys.argv[1:] if argv is None else argv))
        if not any(a in ("-h", "--help") for a in argv):
            check_data_names(argv)  # ours only: plain run.py (the hook) keeps VLMEvalKit's own handling
    except (VLMEvalKitMissing, LauncherError, pm.PromptModelError) as exc:
        print(f"ambi vlmeval: error: {exc}", file=sys.stderr)
        return 2
    helping = any(a in ("-h", "--help") for a in argv)
    print(f"ambi vlmeval: {where_it_writes(argv)}", file=sys.stderr)
    import vlmeval.run as run

    sys.argv = ["run.py", *argv]
    start = time.time() - 1.0  # file systems with coarse time stamps
    run.main()
    if helping:
        return 0
    missing = missing_scores(argv, since=start)
    if missing:
        print(f"ambi vlmeval: no scores for {', '.join(missing)} (see VLMEvalKit's log above)", file=sys.stderr)
        return 1
    return 0


__all__ = [
    "LauncherError",
    "choose_pred_format",
    "choose_prompt_model",
    "expand_data_args",
    "json_by_columns",
    "main",
    "missing_scores",
    "prepare",
    "run_plan",
    "work_root",
]
