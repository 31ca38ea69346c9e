"""What the capture costs while the model decodes: no Python hook at prompt positions, no host sync and no copy per
step for ``mean_generated``; and the 16-bit storage round trip."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import ambi_plugin
from ambi_plugin.analysis.capture import HeadRecorder, from_storage, to_storage
from ambi_plugin.analysis.hooks import HookSet, remaining_hooks

from .tiny_models import tiny_llava

IDS = torch.tensor([[5, 17, 33, 2, 41]])
NEW = 6
PACKAGE = str(Path(ambi_plugin.__file__).parent)


def _generate(model):
    with torch.no_grad():
        return model.generate(input_ids=IDS, max_new_tokens=NEW, min_new_tokens=NEW, do_sample=False, pad_token_id=0)


def _hook_calls_per_forward(model, position) -> tuple[list[int], list[int], HeadRecorder, HookSet]:
    """Python calls of our o_proj hooks, and of our hooks still on o_proj modules, at each forward (lm_head call)."""
    hooks = HookSet(model)
    calls = [0]
    make_hook = hooks._make_hook

    def counting(layer):
        hook = make_hook(layer)

        def wrapper(module, args):
            calls[0] += 1
            return hook(module, args)

        return wrapper

    hooks._make_hook = counting
    rec = HeadRecorder(hooks, position=position)
    per_forward: list[int] = []
    installed: list[int] = []

    def probe(module, args, out):
        per_forward.append(calls[0])
        installed.append(sum(len(m._forward_pre_hooks) for n, m in model.named_modules() if n.endswith("o_proj")))

    handle = model.lm_head.register_forward_hook(probe)
    try:
        with hooks:
            rec.start()
            _generate(model)
            per_forward_first = list(per_forward)
            rec.result()
    finally:
        handle.remove()
    return per_forward_first, installed, rec, hooks


@pytest.mark.parametrize("position", ["last_prompt", "mean_prompt", 2, -3])
def test_prompt_positions_run_no_hook_while_decoding(position):
    model = tiny_llava(layers=3)
    per_forward, installed, _, _ = _hook_calls_per_forward(model, position)
    assert len(per_forward) == NEW, "one forward for the prompt and one per decoding step"
    assert per_forward[0] == 3, "the prompt (prefill) forward calls each layer's hook once"
    steps = np.diff(per_forward)
    assert steps.tolist() == [0] * (NEW - 1), "Python hook calls per generated token must be 0"
    assert installed[0] == 0 and set(installed) == {0}, "no hook is left on any o_proj while decoding"
    assert remaining_hooks(model) == []


def test_mean_generated_hooks_every_step_and_prompt_hooks_come_back_for_the_next_item():
    model = tiny_llava(layers=3)
    per_forward, _, _, _ = _hook_calls_per_forward(model, "mean_generated")
    assert np.diff(per_forward).tolist() == [3] * (NEW - 1), "mean_generated needs every decoding step"

    # one HookSet over several items (how the capture drives it): every item's prompt is recorded again
    hooks = HookSet(model)
    rec = HeadRecorder(hooks, position="last_prompt")
    got = []
    with hooks, torch.no_grad():
        for ids in (IDS, IDS.flip(1), IDS):
            rec.start()
            model.generate(input_ids=ids, max_new_tokens=3, do_sample=False, pad_token_id=0)
            got.append(rec.result())
    fresh = HookSet(model)
    ref = HeadRecorder(fresh, position="last_prompt")
    with fresh, torch.no_grad():
        ref.start()
        model(input_ids=IDS.flip(1))
    np.testing.assert_array_equal(got[1], ref.result())
    np.testing.assert_array_equal(got[0], got[2])
    assert not np.array_equal(got[0], got[1])
    assert remaining_hooks(model) == []


SYNCS = ("item", "cpu", "tolist", "numpy", "__bool__", "__float__", "__int__", "clone")


@pytest.fixture
def counted(monkeypatch):
    """Counts host syncs (and clones) on torch tensors, split by whether the caller is this package's code."""
    seen: dict[str, list[str]] = {"ours": [], "other": []}

    def wrap(name, original):
        def wrapper(self, *args, **kwargs):
            caller = sys._getframe(1).f_code.co_filename
            seen["ours" if caller.startswith(PACKAGE) else "other"].append(name)
            return original(self, *args, **kwargs)

        return wrapper

    def wrap_to(original):
        def wrapper(self, *args, **kwargs):
            target = kwargs.get("device", args[0] if args else None)
            if str(target) == "cpu" and sys._getframe(1).f_code.co_filename.startswith(PACKAGE):
                seen["ours"].append("to(cpu)")
            return original(self, *args, **kwargs)

        return wrapper

    for name in SYNCS:
        monkeypatch.setattr(torch.Tensor, name, wrap(name, getattr(torch.Tensor, name)))
    monkeypatch.setattr(torch.Tensor, "to", wrap_to(torch.Tensor.to))
    return seen


def test_mean_generated_accumulates_on_device_without_sync_or_copy_per_step(counted):
    model = tiny_llava(layers=3)
    ids = IDS
    calls: list[torch.Tensor] = []
    grab = model.model.language_model.layers[1].self_attn.o_proj.register_forward_pre_hook(
        lambda m, a: calls.append(a[0][0, -1].view(8, 8).detach().clone())
    )
    try:
        counted["other"].clear()
        _generate(model)  # plain, for the count of syncs transformers itself makes
        plain = list(counted["other"])
        calls.clear()
        hooks = HookSet(model)
        rec = HeadRecorder(hooks, position="mean_generated")
        with hooks:
            rec.start()
            counted["other"].clear()
            with torch.no_grad():
                model.generate(input_ids=ids, max_new_tokens=NEW, min_new_tokens=NEW, do_sample=False, pad_token_id=0)
            during_ours, during_other = list(counted["ours"]), list(counted["other"])
            acts = rec.result()
    finally:
        grab.remove()
    assert during_ours == [], f"no host sync or copy from our code while generating, got {during_ours}"
    assert sorted(during_other) == sorted(plain), "capture adds no sync anywhere else either"
    assert "to(cpu)" in counted["ours"], "the counter sees our own transfer (in result(), after generation)"
    torch.testing.assert_close(torch.from_numpy(acts[1]), torch.stack(calls[1:]).mean(0), rtol=1e-5, atol=1e-6)


def test_storage_dtypes_round_trip():
    rng = np.random.default_rng(0)
    x = rng.normal(scale=3.0, size=(2, 3, 4, 8)).astype(np.float32)
    bf = to_storage(x, "bfloat16")
    assert bf.dtype == np.uint16 and bf.nbytes == x.nbytes // 2
    back = from_storage(bf, "bfloat16")
    want = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    np.testing.assert_array_equal(back, want)  # exactly torch's bfloat16 rounding
    assert np.max(np.abs(back - x) / np.abs(x)) <= 2**-8
    half = to_storage(x, "float16")
    assert half.dtype == np.float16
    np.testing.assert_array_equal(from_storage(half, "float16"), x.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(from_storage(to_storage(x, "float32"), "float32"), x)
    np.testing.assert_array_equal(from_storage(x, None), x)  # older files: float32, no dtype recorded
    with pytest.raises(ValueError, match="store_dtype"):
        to_storage(x, "int8")
