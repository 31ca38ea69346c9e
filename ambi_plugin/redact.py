"""No file we write holds a secret: the values of secret-looking environment variables are masked.

lmms-eval prints its arguments and environment-derived settings (its "Evaluation tracker args" line carries
``HF_TOKEN``); every log ambi-plugin writes passes through :func:`redact`.
"""

from __future__ import annotations

import os
import re

_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL", re.I)
MIN_LENGTH = 6  # shorter values ("1", "true") are settings, not secrets, and would mask ordinary text


def secret_values(env: dict[str, str] | None = None) -> list[str]:
    """Values of secret-looking variables (``HF_TOKEN``, ``OPENAI_API_KEY``, ``AMBI_JUDGE_API_KEY`` ...), longest
    first."""
    env = os.environ if env is None else env
    values = {v for k, v in env.items() if _SECRET_NAME.search(k) and v and len(v) >= MIN_LENGTH}
    return sorted(values, key=len, reverse=True)


def redact(text: str, secrets: list[str] | None = None) -> str:
    for value in secret_values() if secrets is None else secrets:
        if value in text:
            text = text.replace(value, "***")
    return text


__all__ = ["redact", "secret_values"]
