"""Test helpers: mixed replay answers, and VLMEvalKit's real run.py through our launcher in a subprocess."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from ambi_plugin.core.answers import reference_response
from ambi_plugin.replayfile import expand_tasks, task_records

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


def lmms_numbers(results: dict, task: str) -> dict[str, object]:
    """Every entry lmms-eval reports for ``task`` except its alias and sample counts, keyed by metric."""
    row = results["results"][task]
    return {k.split(",", 1)[0]: v for k, v in row.items() if "," in k}


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


# Hooks of a made-up benchmark with its own doc_to_* functions (as VIA-Bench has): a system turn, a blind variant.
def custom_visual(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    from ambi_plugin.lmms import hooks

    return [] if (lmms_eval_specific_kwargs or {}).get("blind") else hooks.doc_to_visual(doc, lmms_eval_specific_kwargs)


def custom_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    from ambi_plugin.lmms import hooks

    kwargs = lmms_eval_specific_kwargs or {}
    content = [{"type": "image", "url": im} for im in custom_visual(doc, kwargs)]
    content.append({"type": "text", "text": hooks.doc_to_text(doc, kwargs)})
    turns = [{"role": "user", "content": content}]
    if kwargs.get("system_prompt"):
        turns.insert(0, {"role": "system", "content": [{"type": "text", "text": kwargs["system_prompt"]}]})
    if kwargs.get("two_rounds"):
        turns += [{"role": "assistant", "content": []}, {"role": "user", "content": content}]
    return turns
