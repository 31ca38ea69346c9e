"""``lmms_eval`` backend: delegates each request to lmms-eval's own ``llm_judge`` providers.

So a user's existing lmms-eval judge settings work unchanged: the provider is ``$API_TYPE`` (``openai``,
``azure``, ``async_openai``, ``bedrock``, ``local`` ...; ``api_type:`` in our settings wins) and the
provider reads its own variables (``OPENAI_API_KEY``, ``OPENAI_API_URL``, ``AZURE_*`` ...). The judge
model is ``AMBI_JUDGE_MODEL`` / ``model:``, else lmms-eval's usual ``MODEL_VERSION`` or
``GPT_EVAL_MODEL_NAME``. lmms-eval is imported only when this backend is built.

It lives in the lmms adapter (the only place that may import lmms-eval) and registers itself as the judge backend
``lmms_eval`` when imported; the judge package finds it by name otherwise (``ambi_plugin.judge.backends.ON_DEMAND``).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from ambi_plugin.judge.backends import register_backend
from ambi_plugin.judge.settings import JudgeConfigError, JudgeSettings
from ambi_plugin.judge.transport import Counters, FatalJudgeError, RetryableError, with_retries

_FATAL_STATUS = {400, 401, 403, 404, 422}


def _status_of(exc: BaseException) -> int | None:
    for attr in ("status_code", "status", "http_status"):
        val = getattr(exc, attr, None)
        if isinstance(val, int):
            return val
    resp = getattr(exc, "response", None)
    val = getattr(resp, "status_code", None)
    return val if isinstance(val, int) else None


class LmmsEvalBackend:
    name = "lmms_eval"

    def __init__(self, settings: JudgeSettings) -> None:
        try:
            from lmms_eval.llm_judge import ServerConfig, get_server
        except ImportError as exc:
            raise JudgeConfigError(
                f"the lmms_eval judge backend needs lmms-eval: pip install 'ambi-plugin[lmms]' ({exc})"
            ) from None
        self.settings = settings
        self.api_type = settings.api_type or os.environ.get("API_TYPE") or "openai"
        self.model = settings.model or os.environ.get("MODEL_VERSION") or os.environ.get("GPT_EVAL_MODEL_NAME") or ""
        if not self.model:
            raise JudgeConfigError(
                "the lmms_eval judge needs a model name: set AMBI_JUDGE_MODEL (or lmms-eval's MODEL_VERSION)"
            )
        self._config = ServerConfig(
            model_name=self.model,
            temperature=0.0 if settings.temperature is None else settings.temperature,
            max_tokens=settings.max_tokens,
            timeout=int(settings.timeout),
            num_retries=1,  # retries are ours (with_retries), so they are counted and bounded in one place
            retry_delay=0,
            max_concurrent=settings.max_concurrency,
        )
        try:
            self._server = get_server(server_name=self.api_type, config=self._config)
        except ValueError as exc:
            raise JudgeConfigError(f"lmms-eval judge provider {self.api_type!r}: {exc}") from None
        self._slots = threading.BoundedSemaphore(settings.max_concurrency)
        self.counters = Counters()

    def params(self) -> dict[str, Any]:
        return {
            "api_type": self.api_type,
            "temperature": self._config.temperature,
            "max_tokens": self._config.max_tokens,
        }

    def describe(self) -> dict[str, Any]:
        return {"api_type": self.api_type, "max_concurrency": self.settings.max_concurrency}

    def _once(self, prompt: str) -> str:
        from lmms_eval.llm_judge import Request

        request = Request(messages=[{"role": "user", "content": prompt}], config=self._config)
        with self._slots:
            self.counters.add("requests")
            try:
                response = self._server.evaluate(request)
            except Exception as exc:  # noqa: BLE001 - classified below
                status = _status_of(exc)
                if status in _FATAL_STATUS or "not configured" in str(exc):
                    raise FatalJudgeError(
                        f"lmms-eval judge provider {self.api_type!r} (model {self.model!r}) failed: {exc}"
                    ) from exc
                raise RetryableError(f"{type(exc).__name__}: {exc}") from exc
        if not getattr(response, "success", True):
            raise RetryableError(f"provider reported failure: {getattr(response, 'error_message', '')}")
        content = getattr(response, "content", None)
        return "" if content is None else str(content)

    def complete(self, prompt: str, round_index: int) -> str:
        def on_retry(attempt: int, exc: Exception) -> None:
            self.counters.add("retries")

        return with_retries(
            lambda: self._once(prompt), retries=self.settings.retries, base=self.settings.backoff, on_retry=on_retry
        )


register_backend(LmmsEvalBackend.name, LmmsEvalBackend)
