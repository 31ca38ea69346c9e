"""``ambi_intervene``: any lmms-eval model backend with chosen attention heads masked or shifted while it generates.

    lmms-eval --model ambi_intervene \\
      --model_args base=qwen2_5_vl,pretrained=Qwen/Qwen2.5-VL-7B-Instruct,heads=switch_heads.json,mode=mask \\
      --tasks ambibench_bistable_choice,ambibench_multiscene_open

Our arguments (the rest goes to the ``base`` backend unchanged, e.g. ``pretrained``, ``device_map=auto``):

* ``base`` (required): the lmms-eval model name (``qwen2_5_vl``, ``llava_hf``, ``internvl3``, ...);
* ``heads``: a heads file (``ambi switch-heads scores`` writes ``switch_heads.json``; ``fit-iti`` adds directions);
* ``mode``: ``mask`` (scale by ``epsilon``, default 0.001), ``iti`` (shift by ``alpha`` * sigma * direction) or
  ``none`` (hooks off: the baseline row through the same code path);
* ``random_seed``: replace the file's heads by as many random heads (not among them), drawn with this seed: the
  random-head control of Table 3;
* ``head_pattern``: the regex of the language model's o_proj module names, when the default does not fit.

The backend is built by lmms-eval's registry and returned itself (so ``accelerate launch`` data parallel and
``device_map=auto`` behave exactly as for the base model); only its ``generate_until`` is wrapped, entering the
:class:`ambi_plugin.analysis.hooks.HookSet` for the duration of each call and removing every hook afterwards.
"""

from __future__ import annotations

from lmms_eval.api.model import lmms

from ambi_plugin.analysis.heads import DEFAULT_PATTERN

OUR_KEYS = ("base", "heads", "mode", "epsilon", "alpha", "random_seed", "random_k", "head_pattern")


def _comma_split(text: str) -> list[str]:
    """Split ``k=v`` pairs on commas outside quotes and brackets (JSON values keep their commas)."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def _split_args(arg_string: str) -> tuple[dict[str, str], str]:
    ours: dict[str, str] = {}
    rest: list[str] = []
    for part in _comma_split(arg_string):
        key, _, val = part.partition("=")
        if key.strip() in OUR_KEYS:
            ours[key.strip()] = val.strip()
        else:
            rest.append(part)
    return ours, ",".join(rest)


def attach_intervention(lm, ours: dict[str, str]):
    """Wrap ``lm.generate_until`` so each call runs with the intervention of ``ours`` installed."""
    from ambi_plugin.analysis.heads import head_layout
    from ambi_plugin.analysis.hooks import HookSet
    from ambi_plugin.analysis.interventions import (
        DEFAULT_EPSILON,
        HeadsSpec,
        InterventionError,
        add_intervention,
        load_heads_file,
        random_heads,
    )

    mode = ours.get("mode", "mask")
    if mode not in ("mask", "iti", "none"):
        raise InterventionError(
            f"ambi_intervene: Expected argument `mode` to be one of ('mask', 'iti', 'none') but got {mode!r}"
        )
    pattern = ours.get("head_pattern") or DEFAULT_PATTERN
    layout = head_layout(lm, pattern=pattern)
    if mode == "none":
        spec = HeadsSpec([])
    elif not ours.get("heads"):
        raise InterventionError(f"ambi_intervene: mode={mode} needs heads=FILE (written by `ambi switch-heads scores`)")
    else:
        spec = load_heads_file(ours["heads"])
    if ours.get("random_seed") not in (None, ""):
        if mode != "mask":
            raise InterventionError("ambi_intervene: random_seed (the random-head control) applies to mode=mask only")
        k = int(ours.get("random_k") or len(spec.heads))
        spec = HeadsSpec(random_heads(layout, k, seed=int(ours["random_seed"]), exclude=spec.heads))
    hooks = HookSet(lm, layout=layout, pattern=pattern)
    add_intervention(
        hooks, spec, mode=mode, epsilon=float(ours.get("epsilon", DEFAULT_EPSILON)), alpha=float(ours.get("alpha", 0.0))
    )
    original = lm.generate_until

    def generate_until(requests, *args, **kwargs):
        with hooks:
            return original(requests, *args, **kwargs)

    lm.generate_until = generate_until
    lm.ambi_intervention = {
        "mode": mode,
        "heads": [list(h) for h in spec.heads],
        **{k: v for k, v in ours.items() if k != "heads"},
    }
    return lm


class AmbiIntervene(lmms):
    """Factory registered as ``ambi_intervene``: builds the ``base`` backend and attaches the intervention."""

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: dict | None = None):
        from lmms_eval import models

        ours, rest = _split_args(arg_string)
        base = ours.get("base")
        if not base:
            raise ValueError("ambi_intervene needs --model_args base=<lmms-eval model>,... (e.g. base=qwen2_5_vl)")
        if base == "ambi_intervene":
            raise ValueError("ambi_intervene: base cannot be ambi_intervene itself")
        lm = models.get_model(base).create_from_arg_string(rest, additional_config)
        return attach_intervention(lm, ours)

    def __init__(self, **kwargs) -> None:  # pragma: no cover - lmms-eval always goes through create_from_arg_string
        raise TypeError("build ambi_intervene with --model_args (AmbiIntervene.create_from_arg_string)")

    def generate_until(self, requests):  # pragma: no cover
        raise NotImplementedError

    def loglikelihood(self, requests):  # pragma: no cover
        raise NotImplementedError

    def generate_until_multi_round(self, requests):  # pragma: no cover
        raise NotImplementedError
