"""The judge over a chat backend (``openai``, ``lmms_eval``, ``hf``): prompt, rounds, cache, reading, voting.

For one judgement of k rounds, round r's reply is looked up in the cache under (backend, model,
parameters, prompt, r); a miss asks the backend (several rounds in parallel, within the backend's
concurrency bound). A reply the reader cannot read is asked again up to ``parse_retries`` times; the
last reply is cached either way (``ok`` flag). A round with no reply at all (transport retries
exhausted, a reply body over the size limit, a judge that stopped answering) votes for nothing and is not cached.
Identical requests in flight at the same time in one process are sent once. A reply longer than 16,000 characters is
read, cached and logged as its last 16,000 (think blocks dropped first) after a note saying so
(:func:`~ambi_plugin.judge.verdicts.bound_reply`; counted as ``replies_cut``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from ambi_plugin.judge import templates as T
from ambi_plugin.judge.base import Judge
from ambi_plugin.judge.cache import JudgeCache, cache_key
from ambi_plugin.judge.settings import JudgeSettings
from ambi_plugin.judge.transport import TransportError
from ambi_plugin.judge.verdicts import (
    bound_reply,
    read_binary_digit,
    read_extraction,
    read_option,
    read_rating,
    read_true_false,
)
from ambi_plugin.judge.voting import Choice, Extraction, Score, Verdict

V = TypeVar("V")


class LLMJudge(Judge):
    def __init__(self, settings: JudgeSettings, backend: Any, cache: JudgeCache | None) -> None:
        super().__init__(settings)
        self.backend = backend
        self.backend_name = backend.name
        self.cache = cache
        self._inflight: dict[str, Future] = {}
        self._inflight_lock = threading.Lock()
        workers = max(settings.max_concurrency, settings.batch_size if backend.name == "hf" else 1, 2)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ambi-judge-round")

    @property
    def model(self) -> str:
        return str(self.backend.model)

    def info(self) -> dict:
        out = super().info()
        out.update(self.backend.describe())
        out["cache"] = str(self.cache.path) if self.cache is not None else None
        return out

    def stats(self) -> dict[str, int]:
        return {**self.counters.snapshot(), **{f"backend_{k}": v for k, v in self.backend.counters.snapshot().items()}}

    # -- one round, all rounds

    def _round(self, template: str, prompt: str, r: int, reader: Callable[[str], V | None]) -> tuple[str, V | None]:
        key = cache_key(self.backend.name, self.model, self.backend.params(), prompt, r)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.counters.add("cache_hits")
                reply = bound_reply(hit.reply)[0]  # a reply cached whole by an older version: kept bounded
                return reply, reader(reply)
        with self._inflight_lock:
            fut = self._inflight.get(key)
            owner = fut is None
            if owner:
                fut = Future()
                self._inflight[key] = fut
        if not owner:
            self.counters.add("inflight_shared")
            return fut.result()
        try:
            # re-check: another thread may have written the reply and left _inflight between our cache
            # miss and taking the lock (it writes the cache before it leaves), so ask at most once
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                self.counters.add("cache_hits")
                result = (hit.reply, reader(hit.reply))
            else:
                result = self._ask_backend(template, prompt, r, key, reader)
            fut.set_result(result)
            return result
        except BaseException as exc:
            fut.set_exception(exc)
            raise
        finally:
            with self._inflight_lock:
                self._inflight.pop(key, None)

    def _ask_backend(self, template, prompt, r, key, reader) -> tuple[str, Any]:
        reply, value = "", None
        for _ in range(1 + self.settings.parse_retries):
            try:
                reply = self.backend.complete(prompt, r)
            except TransportError as exc:
                self.counters.add("no_reply")
                return f"<no reply: {exc}>", None
            reply, cut = bound_reply(reply)  # what is read, cached and logged: at most STORED_CHARS, noted
            if cut:
                self.counters.add("replies_cut")
            value = reader(reply)
            if value is not None:
                break
            self.counters.add("unreadable_replies")
        if self.cache is not None:
            self.cache.put(
                key,
                backend=self.backend.name,
                model=self.model,
                template=template,
                round_index=r,
                reply=reply,
                ok=value is not None,
            )
        return reply, value

    def _ask(
        self, template: str, prompt: str, rounds: int, reader: Callable[[str], V | None]
    ) -> tuple[list[str], list]:
        if rounds <= 1:
            results = [self._round(template, prompt, 0, reader)]
        else:
            futures = [self._pool.submit(self._round, template, prompt, r, reader) for r in range(rounds)]
            results = [f.result() for f in futures]
        return [raw for raw, _ in results], [val for _, val in results]

    # -- the protocol

    def _set_match(self, gold: list[str], predicted: list[str], rounds: int) -> Verdict:
        raw, votes = self._ask("ambibench_set_match", T.set_match_prompt(gold, predicted), rounds, read_true_false)
        return Verdict.from_votes(votes, raw)

    def _correct_true_false(self, question, correct_answer, response, rounds, min_votes) -> Verdict:
        prompt = T.true_false_prompt(question, correct_answer, response)
        raw, votes = self._ask("illusionbench_true_false", prompt, rounds, read_binary_digit)
        return Verdict.from_votes(votes, raw, min_votes=min_votes)

    def _correct_multiple_choice(self, question_and_options, correct_option, response, rounds, min_votes) -> Verdict:
        prompt = T.multiple_choice_prompt(question_and_options, correct_option, response)
        raw, votes = self._ask("illusionbench_multiple_choice", prompt, rounds, read_binary_digit)
        return Verdict.from_votes(votes, raw, min_votes=min_votes)

    def _description_score(
        self, response: str, golden: str, rounds: int, key_terms: Sequence[str] | None, conflict_terms
    ) -> Score:
        raw, scores = self._ask(
            "illusionbench_description", T.description_prompt(response, golden), rounds, read_rating
        )
        return Score.from_scores(scores, raw)

    def _mcq_match(self, question: str, options: list[str], response: str, rounds: int) -> Choice:
        n = len(options)
        raw, votes = self._ask(
            "viabench_mcq_match", T.mcq_prompt(question, options, response), rounds, lambda r: read_option(r, n)
        )
        return Choice.from_votes(votes, raw)

    def _extract_answer(self, answer_format: str, question: str, options: list[str], response: str) -> Extraction:
        prompt = T.extraction_prompt(answer_format, question, options, response)
        n = len(options)
        raw, values = self._ask("answer_extraction", prompt, 1, lambda r: read_extraction(r, answer_format, n))
        value = values[0] if values else None
        return Extraction(value, raw, value is None)
