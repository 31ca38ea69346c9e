"""Guards our hooks add to an lmms-eval run: their logic (the wrappers are :mod:`ambi_plugin.lmms.patches`).

* ``lmms_eval.evaluator.simple_evaluate``: before the model is created, a backend that will need CUDA on a machine
  without it stops the run with one line naming the CPU arguments to add, exit code 2 (:func:`cuda_problem`);
  lmms-eval alone loads the model and fails at the first request ("Found no NVIDIA driver").
* ``ResponseCache.create``: lmms-eval stores its model fingerprint, ``--model_args`` as given, in plain text in the
  response cache (``cache.db``, ``runs/<id>/rank_<r>.db``; ``ambi eval`` turns that cache on). Secret values (an
  ``api_key=...``, a token, a URL's password, a secret of the environment) are written as ``***`` instead
  (:func:`masked_model_args`); a fingerprint without a secret is the one lmms-eval would make.
* ``ResponseCache.execute``: lmms-eval 0.7.3's response cache hands the model every uncached request at once and
  stores the answers only after the model returned them all, so a run killed mid-generation keeps nothing. With
  ``$AMBI_RESUME_CHUNK=N`` (set by ``ambi eval``, which turns the cache on) the requests go to the model N at a time,
  each chunk stored before the next starts (:func:`in_chunks`): a kill loses at most one chunk. Unset (plain
  lmms-eval), lmms-eval's method runs as is.
* Ctrl-C in an lmms-eval that ``ambi eval`` started: the interrupted child ends without its traceback (``ambi eval``
  says in one line what happened).

Each guard acts on a run with a task of ours or a run ``ambi eval`` started (``$AMBI_EVAL_RUN``; what
:func:`has_our_names` and :func:`task_dict_has_ours` answer); for every other run lmms-eval's method is called exactly
as it was called.
"""

from __future__ import annotations

import inspect
import os
import re
from typing import Any

EVAL_ENV = "AMBI_EVAL_RUN"  # set by ambi eval in lmms-eval's environment
RESUME_CHUNK_ENV = "AMBI_RESUME_CHUNK"  # set by ambi eval: answers stored this many requests at a time
_SECRET_WORD = r"(?:api_?key|token|secret|secret_?key|passw(?:or)?d|credentials?|access_?key|private_?key|auth)"
_SECRET_KEY = re.compile(
    rf"^(?:.*[_.-])?{_SECRET_WORD}$", re.I
)  # the key's last word: api_key, hf_token (max_tokens: no)
_SECRET_ASSIGNMENT = re.compile(rf"(?i)((?:^|,)\s*(?:[\w.-]*[_.-])?{_SECRET_WORD}\s*=)[^,]*")
_TO_CUDA = re.compile(r"""\.to\(\s*["']cuda["']\s*\)""")


def started_by_ambi_eval() -> bool:
    return os.environ.get(EVAL_ENV) == "1"


# --------------------------------------------------------------------------------------------- CPU-only machines


def _is_cuda(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower().startswith("cuda")


def _as_dict(model_args: Any) -> dict | None:
    if model_args is None or model_args == "":
        return {}
    if isinstance(model_args, dict):
        return model_args
    if isinstance(model_args, str):
        from lmms_eval.utils import simple_parse_args_string

        try:
            return simple_parse_args_string(model_args)
        except Exception:  # noqa: BLE001 - lmms-eval names a malformed argument itself
            return None
    return None


def _moves_inputs_to_cuda(cls: type) -> bool:
    """The backend's code sends its inputs to ``"cuda"`` (with ``device_map=auto``, whatever ``device`` says)."""
    for klass in cls.__mro__:
        if not str(getattr(klass, "__module__", "")).startswith("lmms_eval"):
            continue
        try:
            if _TO_CUDA.search(inspect.getsource(klass)):
                return True
        except (OSError, TypeError):
            continue
    return False


def cuda_problem(model: Any, model_args: Any = None, device: Any = None, force_simple: bool = False) -> str | None:
    """Why lmms-eval's backend ``model`` cannot run here, or None: no CUDA device, and the device its arguments (or
    its defaults) give is CUDA, or ``device_map=auto`` with a backend that sends its inputs to ``"cuda"``."""
    if not isinstance(model, str):
        return None
    given = _as_dict(model_args)
    if given is None:
        return None
    import torch

    if torch.cuda.is_available():
        return None
    from lmms_eval import models

    try:
        cls = models.get_model(model, force_simple)
        params = inspect.signature(cls.__init__).parameters
    except Exception:  # noqa: BLE001 - an unknown model is lmms-eval's to name
        return None
    placed: dict[str, Any] = {}
    if "device" in params:
        value = given.get("device", device if device is not None else params["device"].default)
        if _is_cuda(value):
            placed["device"] = value
    if "device_map" in params:
        value = given.get("device_map", params["device_map"].default)
        if _is_cuda(value) or (value == "auto" and _moves_inputs_to_cuda(cls)):
            placed["device_map"] = value
    if not placed:
        return None
    fix = ",".join(f"{name}=cpu" for name in ("device", "device_map") if name in params)
    now = ", ".join(f"{name}={value}" for name, value in placed.items())
    return (
        f"no CUDA device here (torch.cuda.is_available() is False) and lmms-eval's {model} backend would put the "
        f"model on CUDA ({now}); to run on the CPU add {fix} to --model_args; nothing was loaded"
    )


def has_our_names(tasks: Any) -> bool:
    """``simple_evaluate``'s ``tasks`` name a task or group of ours (or hold a task config of ours)."""
    from ambi_plugin.lmms.ownership import config_is_ours
    from ambi_plugin.lmms.preflight import our_tasks

    items = tasks if isinstance(tasks, (list, tuple)) else [tasks]
    if our_tasks([t for t in items if isinstance(t, str)]):
        return True
    return any(isinstance(t, dict) and config_is_ours(t) for t in items)


# ---------------------------------------------------------------------------------- answers stored as they come


def resume_chunk() -> int:
    """``$AMBI_RESUME_CHUNK``: requests per model call while lmms-eval's response cache is on (0: all at once)."""
    try:
        return max(int(os.environ.get(RESUME_CHUNK_ENV) or 0), 0)
    except ValueError:
        return 0


def in_chunks(execute: Any, requests: list, size: int) -> list:
    """``execute(part)`` for each ``size`` requests in turn (each chunk stored before the next starts), answers joined."""
    out: list = []
    for start in range(0, len(requests), size):
        out.extend(execute(requests[start : start + size]))
    return out


# ------------------------------------------------------------------------------------ secrets in the response cache


def _masked_value(key: Any, value: Any) -> Any:
    if _SECRET_KEY.match(str(key).strip()) and value not in (None, "", True, False):
        return "***"
    if not isinstance(value, str):
        return value
    from ambi_plugin.redact import redact

    out = redact(value)
    if "://" in out and ("@" in out or "?" in out):
        from ambi_plugin.judge.settings import redact_url

        out = redact_url(out) or out
    return out


def masked_model_args(model_args: Any) -> Any:
    """``model_args`` with every secret value written ``***`` (a dict, as lmms-eval parses the string), or None when
    it holds no secret (lmms-eval's own value is then used unchanged)."""
    if isinstance(model_args, str):
        parsed = _as_dict(model_args)
        if parsed is None:  # lmms-eval fingerprints the raw string: mask its assignments and known secrets
            from ambi_plugin.redact import redact

            masked = redact(_SECRET_ASSIGNMENT.sub(r"\1***", model_args))
            return masked if masked != model_args else None
    elif isinstance(model_args, dict):
        parsed = model_args
    else:
        return None
    out = {key: _masked_value(key, value) for key, value in parsed.items()}
    return out if any(out[k] is not parsed[k] and out[k] != parsed[k] for k in parsed) else None


def task_dict_has_ours(task_dict: Any, depth: int = 0) -> bool:
    """lmms-eval's task dict (groups nested) holds a task object of ours."""
    from ambi_plugin.lmms.ownership import task_is_ours

    if not isinstance(task_dict, dict) or depth > 8:
        return False
    for value in task_dict.values():
        if isinstance(value, dict):
            if task_dict_has_ours(value, depth + 1):
                return True
        elif task_is_ours(value):
            return True
    return False


__all__ = [
    "EVAL_ENV",
    "RESUME_CHUNK_ENV",
    "cuda_problem",
    "has_our_names",
    "in_chunks",
    "masked_model_args",
    "resume_chunk",
    "started_by_ambi_eval",
    "task_dict_has_ours",
]
