"""Test helpers: mixed replay answers, and VLMEvalKit's real run.py through our launcher in a subprocess."""

from __future__ import annotations

import hashlib
import json
import math
import subprocess
import sys
from pathlib import Path

from ambi_plugin.core.answers import reference_response
from ambi_plugin.data.replayfiles import task_records
from ambi_plugin.runtime.taskindex import expand_tasks

MODES = ("gold", "wrong", "garbage")


def _answer(rec: dict, mode: str) -> str:
    try:
        return reference_response(rec, mode)
    except (KeyError, ValueError, TypeError):  # a record published without its answer (VIA-Bench's val split)
        return "Answer: [A]" if mode == "gold" else "A"


def write_mixed_answers(path: Path, tasks: list[str]) -> int:
    """Gold, wrong and garbage answers in turn (record k gets MODES[k % 3]), so no metric sits at an extreme."""
    rows = []
    for info in expand_tasks(tasks):
        for k, rec in enumerate(task_records(info)):
            rows.append({"task": info.name, "id": str(rec["id"]), "response": _answer(rec, MODES[k % 3])})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return len(rows)


def _mode(task: str, rid: str, salt: int) -> str:
    return MODES[int(hashlib.sha256(f"{task}/{rid}/{salt}".encode()).hexdigest(), 16) % len(MODES)]


def write_hashed_answers(path: Path, tasks: list[str], first: int) -> int:
    """Gold, wrong or garbage per record, chosen by a hash of (task, record id): no pattern in the order of the
    records, so a record paired with another record's response changes the scores. Each task's salt is the
    smallest that gives its first ``first`` records at least two different modes."""
    rows = []
    for info in expand_tasks(tasks):
        recs = task_records(info)
        head = [str(r["id"]) for r in recs[:first]]
        salt = next(s for s in range(100) if len(head) < 2 or len({_mode(info.name, r, s) for r in head}) > 1)
        for rec in recs:
            rid = str(rec["id"])
            rows.append({"task": info.name, "id": rid, "response": _answer(rec, _mode(info.name, rid, salt))})
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return len(rows)


LAUNCHER = ("-m", "ambi_plugin.vlmeval")


def run_vlmeval(
    args: list[str], *, work: Path, env: dict, timeout: float = 900, launcher: tuple[str, ...] = LAUNCHER
) -> subprocess.CompletedProcess:
    """``python -m ambi_plugin.vlmeval <args> --work-dir <work>`` (VLMEvalKit's own run.py main)."""
    cmd = [sys.executable, *launcher, *args, "--work-dir", str(work)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=work.parent)


def vlmeval_scores(work: Path, model: str = "ambi_replay") -> dict[str, dict[str, float]]:
    """{task: metrics} from the score files our dataset classes write next to the predictions."""
    out = {}
    for path in (work / model).rglob(f"{model}_*_score.json"):
        data = json.loads(path.read_text())
        out[data["task"]] = data["metrics"]
    return out


def prediction_table(stem: str) -> tuple[Path, list[dict]]:
    """The prediction file VLMEvalKit wrote for ``stem`` (any format) and its rows, every cell as text."""
    import pandas as pd

    files = [Path(f"{stem}.{fmt}") for fmt in ("json", "tsv", "xlsx") if Path(f"{stem}.{fmt}").exists()]
    assert len(files) == 1, f"{stem}: expected one prediction file, found {files}"
    path = files[0]
    if path.suffix == ".json":
        return path, json.loads(path.read_text(encoding="utf-8"))
    opts = {"dtype": str, "keep_default_na": False, "na_filter": False}
    frame = pd.read_excel(path, **opts) if path.suffix == ".xlsx" else pd.read_csv(path, sep="\t", **opts)
    return path, frame.to_dict("records")


def vlmeval_outputs(work: Path, model: str = "ambi_replay") -> dict[str, dict]:
    """{task: {"score": score file, "items": {index: item row}, "questions": {index: prompt}, "file": prediction
    file}} of a run."""
    out = {}
    for path in (work / model).rglob(f"{model}_*_score.json"):
        score = json.loads(path.read_text())
        stem = str(path)[: -len("_score.json")]
        items = [json.loads(ln) for ln in Path(f"{stem}_items.jsonl").read_text().splitlines() if ln.strip()]
        pred_file, rows = prediction_table(stem)
        out[score["task"]] = {
            "score": score,
            "items": {row["index"]: row for row in items},
            "questions": {int(r["index"]): r["question"] for r in rows},
            "file": pred_file,
        }
    return out


def lmms_samples(run) -> dict[str, dict[int, dict]]:
    """{task: {doc_id: logged sample}} of an lmms-eval CLI run with --log_samples."""
    out = {}
    for task, path in run.samples.items():
        rows = [json.loads(ln) for ln in Path(path).read_text().splitlines() if ln.strip()]
        out[task] = {int(r["doc_id"]): r for r in rows}
    return out


# lmms-eval's own evaluator with the replay model, under the per-model entry of an lmms-eval model name
# (what `lmms-eval --model <name>` applies): the TaskManager is built with that model name.
LMMS_AS_MODEL = """
import json, sys
import lmms_eval.models  # loads the entry points: our task folder joins the TaskManager
from lmms_eval.evaluator import simple_evaluate
from lmms_eval.tasks import TaskManager
from ambi_plugin.lmms.replay import AmbiReplay

tasks, answers, model_name, limit, out = sys.argv[1].split(","), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
res = simple_evaluate(model=AmbiReplay(predictions=answers), tasks=tasks, task_manager=TaskManager(model_name=model_name),
                      limit=limit, batch_size=1, log_samples=True)
samples = {t: {int(s["doc_id"]): {**{k: v for k, v in s.items() if k not in ("doc", "arguments", "resps")},
                                  "input": s["arguments"][0]} for s in rows} for t, rows in res["samples"].items()}
with open(out, "w") as fh:
    json.dump({"results": res["results"], "n-samples": res["n-samples"], "samples": samples}, fh, default=str)
"""


def lmms_eval_as(model_name: str, tasks: list[str], answers: Path, limit: int, out: Path, env: dict) -> dict:
    """Results, sample counts and samples ({task: {doc_id: sample}}) of lmms-eval under ``model_name``'s entry."""
    cmd = [sys.executable, "-c", LMMS_AS_MODEL, ",".join(tasks), str(answers), model_name, str(limit), str(out)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert out.exists(), proc.stderr[-4000:]
    data = json.loads(out.read_text())
    data["samples"] = {t: {int(k): v for k, v in rows.items()} for t, rows in data["samples"].items()}
    return data


def plain(value):
    """A JSON round trip with NaN as a string, so item scores of both harnesses compare with ==."""

    def fix(x):
        if isinstance(x, float) and math.isnan(x):
            return "NaN"
        if isinstance(x, dict):
            return {k: fix(v) for k, v in x.items()}
        if isinstance(x, list):
            return [fix(v) for v in x]
        return x

    return fix(json.loads(json.dumps(value, default=str)))


def assert_same_run(results: dict, samples: dict[str, dict[int, dict]], ours: dict[str, dict], tasks: list[str]):
    """Every number, the item count, every item score and every prompt of lmms-eval equal VLMEvalKit's."""
    assert sorted(ours) == sorted(tasks)
    for task in tasks:
        want = lmms_numbers(results, task)
        got = ours[task]
        numbers = {k: v for k, v in want.items() if isinstance(v, (int, float))}
        not_numbers = {k: v for k, v in want.items() if k not in numbers}
        assert all("_stderr" in k and v == "N/A" for k, v in not_numbers.items()), (task, not_numbers)
        assert sorted(numbers) == sorted(got["score"]["metrics"]), task
        diff = {
            k: (v, got["score"]["metrics"][k])
            for k, v in numbers.items()
            if not same(float(v), got["score"]["metrics"][k])
        }
        assert not diff, f"{task}: lmms-eval vs VLMEvalKit {diff}"
        n = results["n-samples"][task]["effective"]
        assert got["score"]["n"] == n == len(samples[task]) == len(got["items"]), task
        for doc_id, sample in samples[task].items():
            item = got["items"][doc_id]
            metrics = list(item["scores"])
            assert metrics and set(metrics) <= set(sample), (task, doc_id, metrics)
            for m in metrics:
                assert plain(item["scores"][m]) == plain(sample[m]), f"{task} doc {doc_id} {m}"
            assert got["questions"][doc_id] == sample["input"], f"{task} doc {doc_id}: prompts differ"


def lmms_numbers(results: dict, task: str) -> dict[str, object]:
    """Every entry lmms-eval reports for ``task`` except its alias and sample counts, keyed by metric."""
    row = results["results"][task]
    return {k.split(",", 1)[0]: v for k, v in row.items() if "," in k}


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


# Hooks of a made-up benchmark with its own doc_to_* functions (as VIA-Bench has): a system turn, a blind variant.
def custom_visual(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    from ambi_plugin.runtime import hooks

    return [] if (lmms_eval_specific_kwargs or {}).get("blind") else hooks.doc_to_visual(doc, lmms_eval_specific_kwargs)


def custom_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    from ambi_plugin.runtime import hooks

    kwargs = lmms_eval_specific_kwargs or {}
    content = [{"type": "image", "url": im} for im in custom_visual(doc, kwargs)]
    content.append({"type": "text", "text": hooks.doc_to_text(doc, kwargs)})
    turns = [{"role": "user", "content": content}]
    if kwargs.get("system_prompt"):
        turns.insert(0, {"role": "system", "content": [{"type": "text", "text": kwargs["system_prompt"]}]})
    if kwargs.get("two_rounds"):
        turns += [{"role": "assistant", "content": []}, {"role": "user", "content": content}]
    return turns


# VLMEvalKit's own build_dataset on LMUData TSVs, in a process where nothing of ours is registered
# (the TSV route a user without our launcher takes): the class it picks and the first messages it builds.
LOAD_TSVS = """
import json, sys
from vlmeval.dataset import build_dataset

out = {}
for name in sys.argv[1:]:
    try:
        ds = build_dataset(name)
        msgs = [ds.build_prompt(ds.data.iloc[i]) for i in range(min(len(ds), 3))]
        out[name] = {"class": type(ds).__name__, "n": len(ds), "messages": msgs}
    except Exception as exc:
        out[name] = {"error": f"{type(exc).__name__}: {exc}"}
print("LOADED=" + json.dumps(out))
"""


def load_tsvs_in_vlmevalkit(lmudata: Path, names: list[str], env: dict) -> dict[str, dict]:
    proc = subprocess.run([sys.executable, "-c", LOAD_TSVS, *names], env={**env, "LMUData": str(lmudata)},
                          capture_output=True, text=True, timeout=600, cwd=lmudata)  # fmt: skip
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("LOADED=")]
    assert line, proc.stderr[-4000:]
    return json.loads(line[0][len("LOADED=") :])


def half_blind_visual(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    """Images for every other record only (a task mixing image and text-only records)."""
    from ambi_plugin.runtime import hooks

    rec = hooks.record_of(doc)
    keep = int(hashlib.sha256(str(rec["id"]).encode()).hexdigest(), 16) % 2 == 0
    return hooks.doc_to_visual(doc, lmms_eval_specific_kwargs) if keep else []
