"""Hooks leave nothing behind and change nothing unless asked; masking and ITI shifts are exact."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.capture import HeadRecorder
from ambi_plugin.analysis.heads import head_layout
from ambi_plugin.analysis.hooks import HookSet, mark_owned, remaining_hooks
from ambi_plugin.analysis.interventions import (
    HeadsSpec,
    InterventionError,
    add_intervention,
    fit_iti,
    load_heads_file,
    random_heads,
    write_heads_file,
)

from .tiny_models import hook_count, tiny_llava

IDS = torch.tensor([[5, 17, 33, 2, 41, 9]])


def _o_proj_inputs(model, hooks: HookSet | None = None) -> dict[int, torch.Tensor]:
    """What each o_proj actually receives (a plain forward hook sees the arguments after our pre-hooks)."""
    seen: dict[int, torch.Tensor] = {}
    handles = []
    for i, layer in enumerate(model.model.language_model.layers):

        def grab(module, args, out, i=i):
            seen[i] = args[0][0].detach().clone()

        handles.append(layer.self_attn.o_proj.register_forward_hook(grab))
    try:
        with torch.no_grad():
            if hooks is None:
                logits = model(input_ids=IDS).logits
            else:
                with hooks:
                    logits = model(input_ids=IDS).logits
    finally:
        for h in handles:
            h.remove()
    seen[-1] = logits
    return seen


def test_noop_hooks_leave_logits_equal_and_none_remain():
    model = tiny_llava()
    before = hook_count(model)
    with torch.no_grad():
        plain = model(input_ids=IDS).logits
    hooks = HookSet(model)
    looked: list[int] = []
    for layer in range(3):
        hooks.add(layer, lambda x4, state, layer=layer: looked.append(layer))  # returns None: looks, edits nothing
    rec = HeadRecorder(hooks)
    during: dict[str, int] = {}

    def probe(module, args):  # runs inside the hooked forward, before layer 0's attention
        during.setdefault("ours", len(remaining_hooks(model)))
        during.setdefault("all", hook_count(model))

    handle = model.model.language_model.layers[0].register_forward_pre_hook(probe)
    try:
        with hooks, torch.no_grad():
            rec.start()
            hooked = model(input_ids=IDS).logits
    finally:
        handle.remove()
    assert during == {"ours": 3, "all": before + 3 + 1}, "one o_proj hook per layer (+ the probe) during the forward"
    assert sorted(looked) == [0, 1, 2], "every no-op function ran in the forward"
    assert rec.result().shape == (3, 8, 8) and np.abs(rec.result()).sum() > 0, "the recorder saw the forward too"
    assert torch.equal(plain, hooked)
    assert remaining_hooks(model) == [] and hook_count(model) == before


def test_hooks_are_removed_when_the_run_fails():
    model = tiny_llava()
    hooks = HookSet(model)

    def boom(x4, state):
        raise RuntimeError("boom")

    hooks.add(1, boom)
    with pytest.raises(RuntimeError, match="boom"), hooks, torch.no_grad():
        model(input_ids=IDS)
    assert remaining_hooks(model) == []


def test_epsilon_mask_is_exact_and_leaves_other_heads_untouched():
    model = tiny_llava(heads=8, kv_heads=2)
    layout = head_layout(model)
    base = _o_proj_inputs(model)
    hooks = HookSet(model)
    add_intervention(hooks, HeadsSpec([(1, 3)]), mode="mask", epsilon=1e-3)
    got = _o_proj_inputs(model, hooks)
    b1, g1 = base[1].view(-1, 8, 8), got[1].view(-1, 8, 8)
    # layer 1: head 3 scaled by exactly epsilon, all other heads bit-identical
    assert torch.equal(g1[:, 3], b1[:, 3] * torch.tensor(1e-3, dtype=b1.dtype))
    ratio = g1[:, 3].norm(dim=-1) / b1[:, 3].norm(dim=-1)
    torch.testing.assert_close(ratio, torch.full_like(ratio, 1e-3))
    others = [h for h in range(layout.n_heads) if h != 3]
    assert torch.equal(g1[:, others], b1[:, others])
    assert torch.equal(got[0], base[0])  # layers before the edit see identical inputs
    assert remaining_hooks(model) == []


def test_iti_shift_is_alpha_sigma_direction():
    model = tiny_llava(heads=8, kv_heads=2)
    base = _o_proj_inputs(model)
    rng = np.random.default_rng(0)
    d = rng.normal(size=8)
    d /= np.linalg.norm(d)
    spec = HeadsSpec([(2, 5)], directions=[d.tolist()], sigmas=[1.7])
    hooks = HookSet(model)
    add_intervention(hooks, spec, mode="iti", alpha=0.3)
    got = _o_proj_inputs(model, hooks)
    b2, g2 = base[2].view(-1, 8, 8), got[2].view(-1, 8, 8)
    shift = torch.tensor(0.3 * 1.7 * d, dtype=b2.dtype)
    torch.testing.assert_close(g2[:, 5] - b2[:, 5], shift.expand_as(b2[:, 5]), rtol=0, atol=1e-6)
    others = [h for h in range(8) if h != 5]
    assert torch.equal(g2[:, others], b2[:, others])


def test_fit_iti_direction_and_sigma():
    rng = np.random.default_rng(1)
    acts = rng.normal(size=(6, 2, 3, 4))
    correct = [True, True, True, False, False, False]
    acts[:3, 1, 2] += np.array([3.0, 0, 0, 0])
    spec = fit_iti(acts, correct, [(1, 2)])
    x = acts[:, 1, 2]
    want = x[:3].mean(0) - x[3:].mean(0)
    want /= np.linalg.norm(want)
    np.testing.assert_allclose(spec.directions[0], want)
    assert abs(np.linalg.norm(spec.directions[0]) - 1) < 1e-12
    assert spec.sigmas[0] == pytest.approx(np.std(x @ want))
    with pytest.raises(InterventionError, match="both correctly and incorrectly"):
        fit_iti(acts, [True] * 6, [(1, 2)])


def test_random_heads_avoid_the_switch_heads_and_are_seeded():
    layout = head_layout(tiny_llava(heads=4, kv_heads=2))
    chosen = [(0, 0), (1, 1)]
    a = random_heads(layout, 2, seed=3, exclude=chosen)
    assert a == random_heads(layout, 2, seed=3, exclude=chosen) and len(set(a)) == 2
    assert not set(a) & set(chosen)
    with pytest.raises(InterventionError, match="cannot draw"):
        random_heads(layout, 11, seed=0, exclude=chosen)


def test_heads_file_roundtrip_and_checks(tmp_path):
    layout = head_layout(tiny_llava(heads=4, kv_heads=2))
    path = write_heads_file(tmp_path / "h.json", HeadsSpec([(0, 1)], [[0.0] * 16], [1.0], {"n_held_out": 3}))
    spec = load_heads_file(path)
    assert spec.heads == [(0, 1)] and spec.meta["n_held_out"] == 3
    spec.check(layout, mode="iti")
    with pytest.raises(InterventionError, match="outside"):
        HeadsSpec([(7, 0)]).check(layout)
    with pytest.raises(InterventionError, match="fit-iti"):
        HeadsSpec([(0, 0)]).check(layout, mode="iti")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(InterventionError, match="not valid JSON"):
        load_heads_file(tmp_path / "bad.json")


def test_remaining_hooks_sees_marked_forward_hooks_too():
    model = tiny_llava()
    attn = model.model.language_model.layers[1].self_attn
    plain = attn.register_forward_hook(lambda m, a, o: None)  # somebody else's hook: not ours
    ours = attn.register_forward_hook(mark_owned(lambda m, a, o: None))
    try:
        assert remaining_hooks(model) == ["model.language_model.layers.1.self_attn"]
    finally:
        ours.remove()
    assert remaining_hooks(model) == []
    plain.remove()
