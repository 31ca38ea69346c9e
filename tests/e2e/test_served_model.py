"""A served model (vLLM, SGLang ... behind an OpenAI-compatible API): ``ambi eval --model openai`` against a loopback
server that checks every request carries its item's image, then the scored results."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys

import pytest
from PIL import Image
from support.chat_server import LoopbackChatServer, Reply

from ambi_plugin.reports.results import task_metrics

pytestmark = pytest.mark.e2e

TASK = "ambi_synth_geometric_yn"


def _images(payload: dict) -> list[Image.Image]:
    out = []
    for message in payload.get("messages") or []:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            url = (part.get("image_url") or {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:image/"):
                out.append(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    return out


def test_ambi_eval_with_a_served_model(tmp_path, offline_env):
    from ambi_plugin.synth import build_suite

    suite = build_suite(tmp_path / "suite", seed=5, n=4)
    records = [json.loads(line) for line in (suite / f"{TASK}.jsonl").read_text().splitlines() if line.strip()]
    sizes = sorted(Image.open(suite / r["image"]).size for r in records)
    seen: list[tuple[int, int]] = []

    def responder(prompt: str, n: int, payload: dict) -> Reply | str:
        images = _images(payload)
        if len(images) != 1:
            return Reply(status=400, text=f"expected one image, got {len(images)}")
        seen.append(images[0].size)
        return "Yes"

    env = {**offline_env, "AMBI_CACHE": str(tmp_path / "cache"), "AMBI_SYNTH_DIR": str(suite), "NO_PROXY": "*"}
    with LoopbackChatServer(responder) as server:
        model_args = (
            f"model_version=served-model,base_url={server.url},api_key=EMPTY,httpx_trust_env=False,max_retries=1"
        )
        out = tmp_path / "out"
        proc = subprocess.run(
            [sys.executable, "-m", "ambi_plugin.cli", "eval", "--model", "openai", "--model_args", model_args,
             "--tasks", TASK, "--batch_size", "1", "--output_path", str(out)],  # fmt: skip
            env=env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    assert server.statuses[200] == len(records) and not server.statuses[400]
    assert sorted(seen) == sizes  # each item's own image reached the server
    (path,) = list(out.rglob("*_results.json"))
    results = json.loads(path.read_text())
    expected = sum(bool(r["answer_bool"]) for r in records) / len(records)  # "Yes" is right on the yes items
    assert task_metrics(results)[TASK]["acc"] == pytest.approx(expected)
