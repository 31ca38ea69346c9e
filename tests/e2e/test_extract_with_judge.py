"""The optional extraction step end to end: the real lmms-eval CLI (replayed answers, a judge on loopback) and
``ambi score --extract-with-judge``; off by default (no request, no ``read_by`` section)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from support.chat_server import LoopbackChatServer

from ambi_plugin.core.schema import read_records
from ambi_plugin.data.sources import source_root
from ambi_plugin.lmms.cli_run import replay_args, run_lmms_eval
from ambi_plugin.reports.results import task_metrics

pytestmark = pytest.mark.e2e

TASKS = ("ambi_synth_geometric_letter", "ambi_synth_geometric_yn")
_RESPONSE = re.compile(r"\nResponse: (.*)\n\nReply with only", re.DOTALL)


def _gold_reply(rec: dict) -> str:
    if rec["task_type"] == "yes_no":
        return "YES" if rec["answer_bool"] else "NO"
    return chr(ord("A") + rec["answer_index"])


@pytest.fixture
def answers(tmp_path):
    """Answers no rule reads (digits and signs only): the judge reads the even items right and the odd ones as NONE."""
    lines, replies = [], {}
    for task in TASKS:
        for i, rec in enumerate(read_records(source_root("ambi://synth") / f"{task}.jsonl")):
            text = f"~ {4000 + 10 * i + len(lines)} ~"
            lines.append({"task": task, "id": rec["id"], "response": text})
            replies[text] = _gold_reply(rec) if i % 2 == 0 else "NONE"
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path, replies


def _judge_env(offline_env, tmp_path, url):
    return {**offline_env, "AMBI_JUDGE_BACKEND": "openai", "AMBI_JUDGE_MODEL": "extractor", "AMBI_JUDGE_BASE_URL": url,
            "AMBI_JUDGE_CACHE_PATH": str(tmp_path / "judge.sqlite"), "AMBI_JUDGE_BACKOFF": "0.01"}  # fmt: skip


def _server(replies):
    def respond(prompt, n, payload):
        m = _RESPONSE.search(prompt)
        return replies.get(m.group(1) if m else "", "garbage")

    return LoopbackChatServer(respond)


def test_lmms_eval_run_with_and_without_extraction(tmp_path, offline_env, answers):
    preds, replies = answers
    n = {t: len(read_records(source_root("ambi://synth") / f"{t}.jsonl")) for t in TASKS}
    with _server(replies) as srv:
        env = _judge_env(offline_env, tmp_path, srv.url)
        env.pop("AMBI_EXTRACT_WITH_JUDGE", None)
        off = run_lmms_eval(replay_args(preds, ",".join(TASKS)), output=tmp_path / "off", env=env, timeout=900)
        assert off.results is not None, off.tail()
        assert srv.requests == 0 and "read_by" not in off.results["ambi_plugin"]
        assert all(task_metrics(off.results)[t]["acc"] == 0.0 for t in TASKS)

        env["AMBI_EXTRACT_WITH_JUDGE"] = "1"
        on = run_lmms_eval(replay_args(preds, ",".join(TASKS)), output=tmp_path / "on", env=env, timeout=900)
        assert on.results is not None, on.tail()
    read_by = on.results["ambi_plugin"]["read_by"]
    for task in TASKS:
        half = (n[task] + 1) // 2  # the even items
        assert read_by[task] == {"rule": 0, "judge": half, "none": n[task] - half}
        metrics = task_metrics(on.results)[task]
        assert metrics["acc"] == pytest.approx(half / n[task])
        assert metrics["unparsed"] == n[task] - half
        first = json.loads(on.samples[task].read_text().splitlines()[0])["acc"]
        assert (first["read_by"], first["correct"]) == ("judge", True) and first["extraction_raw"] in (
            "A",
            "B",
            "C",
            "D",
            "YES",
            "NO",
        )
    assert on.results["ambi_plugin"]["judge"]["rounds_used"]["answer_extraction"]["1"] == sum(n.values())


def test_ambi_score_extract_with_judge(tmp_path, offline_env, answers):
    preds, replies = answers
    task = TASKS[0]
    n = len(read_records(source_root("ambi://synth") / f"{task}.jsonl"))
    with _server(replies) as srv:
        env = _judge_env(offline_env, tmp_path, srv.url)
        env.pop("AMBI_EXTRACT_WITH_JUDGE", None)
        cmd = [sys.executable, "-m", "ambi_plugin.cli", "score", "--task", task, "--answers", str(preds)]
        plain = subprocess.run([*cmd, "--json", str(tmp_path / "plain.json")], env=env, capture_output=True,
                               text=True, timeout=600)  # fmt: skip
        assert plain.returncode == 0, plain.stderr
        assert srv.requests == 0 and "read by" not in plain.stdout
        run = subprocess.run([*cmd, "--extract-with-judge", "--json", str(tmp_path / "on.json")], env=env,
                             capture_output=True, text=True, timeout=600)  # fmt: skip
        assert run.returncode == 0, run.stderr
        assert srv.requests == n
    half = (n + 1) // 2
    values = json.loads((tmp_path / "on.json").read_text())["values"]
    (col,) = values
    assert values[col]["acc"] == pytest.approx(half / n) and values[col]["unparsed"] == n - half
    assert json.loads((tmp_path / "plain.json").read_text())["values"][col]["acc"] == 0.0
    assert f"answers read by (rule / judge / unread): {col}: 0 / {half} / {n - half}" in run.stdout
