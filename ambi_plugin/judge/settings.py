"""Which judge a run uses: one place, resolved in a fixed order and validated on creation.

Order (first that sets a field wins, field by field):

1. environment: ``AMBI_JUDGE_BACKEND``, ``AMBI_JUDGE_MODEL``, ``AMBI_JUDGE_BASE_URL``, ``AMBI_JUDGE_API_KEY``,
   ``AMBI_JUDGE_ROUNDS``, ``AMBI_JUDGE_TEMPERATURE``, ``AMBI_JUDGE_MAX_TOKENS``, ``AMBI_JUDGE_TIMEOUT``,
   ``AMBI_JUDGE_CONCURRENCY``, ``AMBI_JUDGE_RETRIES``, ``AMBI_JUDGE_CACHE`` (``0`` turns the cache off),
   ``AMBI_JUDGE_MAX_REPLY_MB``, ``AMBI_JUDGE_MAX_CONSECUTIVE_TIMEOUTS``;
   for the ``openai`` backend, ``OPENAI_BASE_URL`` (or ``OPENAI_API_BASE``, ``OPENAI_API_URL``) and
   ``OPENAI_API_KEY`` fill a base URL or key still missing;
2. the ``judge:`` section of the ambi config file (``ambi_plugin.config``; same keys, lower case);
3. defaults: the ``offline`` backend.

The ``OPENAI_*`` variables never *select* a backend: a key in the environment does not send anything
over the network unless ``openai`` was chosen.

Secrets never leave the settings: :meth:`JudgeSettings.public` (what logs and results record) shows the API
key as ``***``, and :func:`redact_url` shows a base URL's user and password (``http://user:pw@host``) and the
values of its secret-looking query parameters (``?api_key=...``, ``token``, ``sig`` ...) as ``***``.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import asdict, dataclass, fields
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

BACKENDS: tuple[str, ...] = ("offline", "openai", "lmms_eval", "hf")


class JudgeConfigError(ValueError):
    """The judge configuration is invalid (names the source and the field)."""


@dataclass(frozen=True)
class JudgeSettings:
    backend: str = "offline"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    rounds: int = 1  # rounds of set_match (AmbiBench); IllusionBench's calls ask for 5 themselves
    temperature: float | None = None  # None = the server's / model's default
    max_tokens: int = 16
    timeout: float = 60.0
    max_concurrency: int = 8
    retries: int = 5  # transport retries (timeouts, 429, 5xx)
    parse_retries: int = 2  # extra requests when a reply cannot be read
    backoff: float = 0.5  # first backoff in seconds, doubled per retry (with jitter), capped at 30 s
    max_reply_mb: float = 4.0  # openai: a reply body over this many MB is not read (that round: a judge error)
    max_consecutive_timeouts: int = 10  # openai: after this many timeouts in a row, no more requests (0: never)
    cache: bool = True
    cache_path: str | None = None
    device_map: str | None = "auto"  # hf
    dtype: str = "auto"  # hf
    batch_size: int = 8  # hf
    api_type: str | None = None  # lmms_eval: its provider name (default $API_TYPE, else openai)
    embeddings: bool = True  # offline: sentence-embedding fallback for terms the lexicon does not know

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise JudgeConfigError(f"Expected judge `backend` to be one of {BACKENDS} but got {self.backend!r}")
        for name in ("rounds", "max_tokens", "max_concurrency", "batch_size"):
            if int(getattr(self, name)) < 1:
                raise JudgeConfigError(f"judge `{name}` must be at least 1, got {getattr(self, name)!r}")
        for name in ("retries", "parse_retries"):
            if int(getattr(self, name)) < 0:
                raise JudgeConfigError(f"judge `{name}` must be >= 0, got {getattr(self, name)!r}")
        if self.timeout <= 0:
            raise JudgeConfigError(f"judge `timeout` must be > 0 seconds, got {self.timeout!r}")
        if self.max_reply_mb <= 0:
            raise JudgeConfigError(f"judge `max_reply_mb` must be > 0 (megabytes), got {self.max_reply_mb!r}")
        if int(self.max_consecutive_timeouts) < 0:
            raise JudgeConfigError(
                f"judge `max_consecutive_timeouts` must be >= 0 (0: never stop), got {self.max_consecutive_timeouts!r}"
            )
        if self.backend in ("openai", "hf") and not self.model:
            example = "gpt-4.1-mini" if self.backend == "openai" else "/models/Qwen3-30B-A3B"
            raise JudgeConfigError(
                f"the {self.backend} judge needs a model: set AMBI_JUDGE_MODEL={example} "
                f"or `model:` in the judge section of the ambi config"
            )
        if self.backend == "openai" and not self.base_url:
            object.__setattr__(self, "base_url", "https://api.openai.com/v1")

    def public(self) -> dict[str, Any]:
        """The settings without secrets (for logs and results)."""
        out = asdict(self)
        out["api_key"] = "***" if self.api_key else None
        out["base_url"] = redact_url(self.base_url)
        return out


_SECRET_PARAM = re.compile(r"key|token|secret|pass|pwd|auth|sig|credential|session|code", re.IGNORECASE)


def redact_url(url: str | None) -> str | None:
    """``url`` fit to record: user and password, the fragment, and the values of query parameters whose name
    looks secret (``api_key``, ``access_token``, ``sig`` ...) become ``***``; the rest is kept as it was."""
    if not url:
        return url
    try:
        parts = urlsplit(str(url))
        host = parts.netloc.rpartition("@")[2]
        netloc = f"***@{host}" if "@" in parts.netloc else parts.netloc
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode([(k, "***" if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="*")
        return urlunsplit((parts.scheme, netloc, parts.path, query, "***" if parts.fragment else ""))
    except ValueError:  # not a URL at all: nothing of it is shown
        return "***"


_FIELDS = {f.name: f for f in fields(JudgeSettings)}
_ENV = {name: f"AMBI_JUDGE_{name.upper()}" for name in _FIELDS}
_ENV["max_concurrency"] = "AMBI_JUDGE_CONCURRENCY"
_FALSE = {"0", "false", "no", "off", ""}


def _coerce(name: str, value: Any, source: str) -> Any:
    kind = _FIELDS[name].type
    if value is None:
        return None
    try:
        if kind in ("int",):
            return int(value)
        if kind in ("float",):
            return float(value)
        if kind == "float | None":
            return None if str(value).lower() in ("", "none", "null") else float(value)
        if kind == "bool":
            return value if isinstance(value, bool) else str(value).strip().lower() not in _FALSE
    except (TypeError, ValueError):
        raise JudgeConfigError(f"{source}: judge `{name}` must be a {kind}, got {value!r}") from None
    return str(value)


def _from_config() -> tuple[dict[str, Any], str]:
    from ambi_plugin.config import config_path, section

    raw = section("judge")
    source = f"{config_path()} (section judge)"
    unknown = sorted(set(raw) - set(_FIELDS) - {"api_key_env"})
    if unknown:
        hints = [
            f"{k!r} (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(k, _FIELDS, 1)) else repr(k)
            for k in unknown
        ]
        raise JudgeConfigError(f"{source}: unknown key(s) {', '.join(hints)}; known: {', '.join(_FIELDS)}")
    out = {k: _coerce(k, v, source) for k, v in raw.items() if k in _FIELDS}
    if raw.get("api_key_env") and "api_key" not in out:
        out["api_key"] = os.environ.get(str(raw["api_key_env"])) or None
    return out, source


def resolve_settings(**overrides: Any) -> JudgeSettings:
    """The judge settings: keyword overrides > environment > ambi config > defaults."""
    values, _ = _from_config()
    for name, env in _ENV.items():
        if os.environ.get(env) not in (None, ""):
            values[name] = _coerce(name, os.environ[env], f"${env}")
    for name, val in overrides.items():
        if name not in _FIELDS:
            raise JudgeConfigError(f"unknown judge setting {name!r}; known: {', '.join(_FIELDS)}")
        if val is not None:
            values[name] = val
    if values.get("backend", "offline") == "openai":
        if not values.get("base_url"):
            for env in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_API_URL"):
                if os.environ.get(env):
                    values["base_url"] = os.environ[env]
                    break
        if not values.get("api_key") and os.environ.get("OPENAI_API_KEY"):
            values["api_key"] = os.environ["OPENAI_API_KEY"]
    return JudgeSettings(**values)
