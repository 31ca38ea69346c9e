"""No file we write holds a secret: the values of secret-looking environment variables are masked.

lmms-eval prints its arguments and environment-derived settings (its "Evaluation tracker args" line carries
``HF_TOKEN``); every log ambi-plugin writes passes through :func:`redact`.

A secret is masked as written and in the forms a program prints it in: without the surrounding whitespace or line
break a value read from a file keeps (huggingface_hub strips the token it uses), URL-encoded (a key in a query
string: ``+`` -> ``%2B``, ``/`` -> ``%2F``), JSON-escaped and Python-escaped (a repr, as in lmms-eval's argument
dump: ``\\`` -> ``\\\\``, ``"`` -> ``\\"``, non-ASCII as ``\\u00e9``). Every occurrence of any of them is masked,
also where two secrets overlap or one holds another: the covered characters are replaced together, so no part of
a longer secret survives next to a shorter one.
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import TypeVar
from urllib.parse import quote, quote_plus

_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL", re.I)
MIN_LENGTH = 6  # shorter values ("1", "true") are settings, not secrets, and would mask ordinary text
MASK = "***"

Text = TypeVar("Text", str, bytes)


def secret_values(env: dict[str, str] | None = None) -> list[str]:
    """Values of secret-looking variables (``HF_TOKEN``, ``OPENAI_API_KEY``, ``AMBI_JUDGE_API_KEY`` ...), longest
    first; a value shorter than :data:`MIN_LENGTH` once stripped of whitespace is a setting, not a secret."""
    env = os.environ if env is None else env
    values = {v for k, v in env.items() if _SECRET_NAME.search(k) and v and len(v.strip()) >= MIN_LENGTH}
    return sorted(values, key=len, reverse=True)


def written_forms(value: str) -> set[str]:
    """The ways ``value`` appears in printed text: as is, stripped, URL-encoded (``quote`` keeping ``/`` or not,
    ``quote_plus``), JSON-escaped (ASCII or not) and Python-escaped; forms shorter than :data:`MIN_LENGTH` are
    left out (they would mask ordinary text), the value itself never."""
    forms = set()
    for v in {value, value.strip()}:
        forms.update(
            (
                v,
                quote(v, safe=""),
                quote(v),
                quote_plus(v),
                json.dumps(v)[1:-1],
                json.dumps(v, ensure_ascii=False)[1:-1],
                repr(v)[1:-1],
            )
        )
    return {f for f in forms if f == value or len(f) >= MIN_LENGTH}


def _all_forms(secrets: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[bytes, ...]]:
    """Every written form of every secret, as str and as UTF-8 bytes (in no particular order: :func:`redact` finds
    every occurrence of every form and masks the stretches they cover together)."""
    forms = tuple({f for s in secrets if s for f in written_forms(s)})
    return forms, tuple(f.encode("utf-8") for f in forms)


# cached by a call, not a decorator: mutmut leaves decorated functions unmutated (bench/mutation.py)
_forms = functools.lru_cache(maxsize=64)(_all_forms)


def redact(text: Text, secrets: list[str] | None = None) -> Text:
    """``text`` (str or bytes, UTF-8) with every written form of every secret replaced by ``***``; the secrets are
    those of the environment (:func:`secret_values`) unless given."""
    str_forms, byte_forms = _forms(tuple(secret_values() if secrets is None else secrets))
    forms = byte_forms if isinstance(text, bytes) else str_forms
    spans: list[tuple[int, int]] = []
    for form in forms:
        start = text.find(form)
        while start != -1:
            spans.append((start, start + len(form)))
            start = text.find(form, start + 1)
    if not spans:
        return text
    mask = MASK.encode() if isinstance(text, bytes) else MASK
    pieces, end = [], 0
    for start, stop in sorted(spans):
        if start > end or not pieces:  # a new masked stretch (overlapping or touching ones are one)
            pieces += [text[end:start], mask]
        end = max(end, stop)
    pieces.append(text[end:])
    return text[:0].join(pieces)


__all__ = ["MASK", "MIN_LENGTH", "redact", "secret_values", "written_forms"]
