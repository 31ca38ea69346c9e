"""``hf`` backend: a local transformers causal LM as the judge (e.g. the Qwen3-30B AmbiBench used).

``model`` is a local folder or a Hub id (offline: a folder or the HF cache). ``device_map`` (default
``auto``) spreads a large model over the GPUs; ``dtype`` defaults to ``auto``. Requests from every thread
are gathered into batches of up to ``batch_size`` prompts (a short wait lets concurrent callers join a
batch), left-padded and generated together. The chat template is used when the tokenizer has one.
``temperature`` None or 0 decodes greedily (k rounds then agree trivially); above 0 it samples, seeded
from the batch's prompts and rounds; the cache makes a rerun reproduce the same votes.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from concurrent.futures import Future
from typing import Any

from ambi_plugin.judge.settings import JudgeConfigError, JudgeSettings
from ambi_plugin.judge.transport import Counters

BATCH_WAIT_S = 0.02


class HFBackend:
    name = "hf"

    def __init__(self, settings: JudgeSettings) -> None:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:
            raise JudgeConfigError(
                f"the hf judge backend needs torch and transformers: pip install 'ambi-plugin[lmms]' ({exc})"
            ) from None
        self.settings = settings
        self.model = str(settings.model)
        self._torch = torch
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(self.model)
            kwargs: dict[str, Any] = {"dtype": settings.dtype}
            if settings.device_map:
                kwargs["device_map"] = settings.device_map
            self.lm = AutoModelForCausalLM.from_pretrained(self.model, **kwargs).eval()
        except (OSError, ValueError) as exc:
            raise JudgeConfigError(f"cannot load the hf judge model {self.model!r}: {exc}") from None
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.counters = Counters()
        self._queue: queue.Queue[tuple[str, int, Future]] = queue.Queue()
        self._worker = threading.Thread(target=self._serve, name="ambi-hf-judge", daemon=True)
        self._worker.start()

    def params(self) -> dict[str, Any]:
        return {"temperature": self.settings.temperature, "max_tokens": self.settings.max_tokens}

    def describe(self) -> dict[str, Any]:
        return {"device_map": self.settings.device_map, "batch_size": self.settings.batch_size}

    def _text(self, prompt: str) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(
                [{"role": "user", "content": prompt}], tokenize=False, add_generation_prompt=True
            )
        return prompt

    def _generate(self, batch: list[tuple[str, int, Future]]) -> list[str]:
        torch = self._torch
        texts = [self._text(p) for p, _, _ in batch]
        enc = self.tokenizer(texts, return_tensors="pt", padding=True)
        device = getattr(self.lm, "device", None)
        if device is not None:
            enc = {k: v.to(device) for k, v in enc.items()}
        temperature = self.settings.temperature or 0.0
        gen: dict[str, Any] = {
            "max_new_tokens": self.settings.max_tokens,
            "pad_token_id": self.tokenizer.pad_token_id,
            "do_sample": temperature > 0,
        }
        if temperature > 0:
            gen["temperature"] = temperature
            seed = int(hashlib.sha256(repr([(p, r) for p, r, _ in batch]).encode()).hexdigest()[:8], 16)
            torch.manual_seed(seed)
        with torch.no_grad():
            out = self.lm.generate(**enc, **gen)
        new = out[:, enc["input_ids"].shape[1] :]
        self.counters.add("batches")
        self.counters.add("requests", len(batch))
        self.counters.add(f"batch_size_{len(batch)}")
        return [t.strip() for t in self.tokenizer.batch_decode(new, skip_special_tokens=True)]

    def _serve(self) -> None:
        while True:
            first = self._queue.get()
            batch = [first]
            while len(batch) < self.settings.batch_size:
                try:
                    batch.append(self._queue.get(timeout=BATCH_WAIT_S))
                except queue.Empty:
                    break
            try:
                replies = self._generate(batch)
            except Exception as exc:  # noqa: BLE001 - handed to the callers
                for _, _, fut in batch:
                    fut.set_exception(exc)
                continue
            for (_, _, fut), reply in zip(batch, replies):
                fut.set_result(reply)

    def complete(self, prompt: str, round_index: int) -> str:
        fut: Future = Future()
        self._queue.put((prompt, round_index, fut))
        return fut.result()
