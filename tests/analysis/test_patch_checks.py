"""Patching checks that a scale-free assertion would miss or that need a broken model: AtP equals finite differences
of the exact patch divided by the gap; AtP* follows GradDrop's formula; an image whose re-run does not reproduce the
backend's logits, or whose heads give NaN/inf, is refused and named while the others go on."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.heads import head_layout, unwrap_model
from ambi_plugin.analysis.hooks import remaining_hooks
from ambi_plugin.analysis.patch_model import Patcher, attribution, logp, patched_logits, run_prompt
from ambi_plugin.analysis.patching import PatchItem, patch_items
from ambi_plugin.analysis.positions import PositionError
from ambi_plugin.analysis.prompts import first_prompt, second_prompt

from .planted import HEAD_DIM, N_HEADS, N_LAYERS, load_float32, save_planted

QUIET = {"progress": False, "say": lambda msg: None}
UNPAIRED = r"AtP\*: a decoder layer's input and output hidden states could not be paired"


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    from PIL import Image

    root = tmp_path_factory.mktemp("imgs")
    out = []
    for i in range(3):
        Image.new("RGB", (64, 48), (40 * i, 90, 200 - 30 * i)).save(root / f"img{i}.png")
        out.append(str(root / f"img{i}.png"))
    return out


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    return load_float32(save_planted(tmp_path_factory.mktemp("m") / "m", seed=0, heads=[(2, 3)]))


def _item(i, image, word="duck", prompt_a=None):
    return PatchItem(f"b{i}", [image], prompt_a or first_prompt("bistable"), second_prompt("bistable", word))


def test_atp_is_the_derivative_of_the_patched_log_prob_divided_by_the_gap(lm, images):
    """Central finite differences of logp_patched(b) along x_B - x_A, divided by logp_B(b) - logp_A(b), equal the
    AtP estimate per head: the gap's scale is part of the check (it is far from 1 here)."""
    item = _item(0, images[0])
    data = patch_items(lm, [item], switch_heads=[(2, 3)], per_head=[], draws=0, atp_star=True, **QUIET)
    row = data["items"][0]
    gap, b = row["logp_b"] - row["logp_a"], row["token_b"]
    assert abs(gap - 1.0) > 0.3 and abs(gap) > 0.1, f"a gap near 1 would not tell a missing division ({gap})"
    atp = np.array(row["atp"], dtype=float)
    layout = head_layout(lm)
    patcher = Patcher(lm, layout, -1)
    run_a = run_prompt(lm, patcher, item.prompt_a, item.images)
    run_b = run_prompt(lm, patcher, item.prompt_b, item.images)
    eps = 1e-3
    order = np.argsort(-np.abs(atp), axis=None)
    checked = [tuple(int(v) for v in np.unravel_index(f, atp.shape)) for f in order[:6]]
    for layer, head in checked:
        x_a, d = run_a.acts[layer][head], run_b.acts[layer][head] - run_a.acts[layer][head]
        lp = [logp(patched_logits(lm, patcher, run_a, {layer: ([head], (x_a + e * d)[None])}), b) for e in (eps, -eps)]
        fd = (lp[0] - lp[1]) / (2 * eps) / gap
        assert atp[layer, head] == pytest.approx(fd, rel=0.02, abs=1e-4), (layer, head)
    assert abs(atp[checked[0]]) > 0.05, "the checked heads carry a real share"

    # AtP* (GradDrop, eq. 11): for a head of the last layer every dropped layer but its own leaves its gradient as
    # it is, so AtP* = (L - 1) |AtP| / (L - 1) = |AtP|; one layer below, the last layer's dropped term enters
    star = np.array(row["atp_star"], dtype=float)
    np.testing.assert_allclose(star[-1], np.abs(atp[-1]), rtol=1e-4, atol=1e-7)
    block = unwrap_model(lm).model.language_model.layers[-1]
    dropped = attribution(lm, patcher, run_a, run_b, b, layout, drop_layer=block) / abs(gap)
    want = ((N_LAYERS - 2) * np.abs(atp[-2]) + np.abs(dropped[-2])) / (N_LAYERS - 1)
    np.testing.assert_allclose(star[-2], want, rtol=1e-4, atol=1e-7)
    assert not np.allclose(star[-2], np.abs(atp[-2]), rtol=1e-2), "dropping the last layer changes layer 2's terms"
    assert np.all(dropped[-1] == 0), "a dropped layer's own heads get no gradient"
    assert remaining_hooks(lm) == []


def test_an_item_whose_rerun_differs_is_refused_and_named_and_the_others_go_on(lm, images):
    from ambi_plugin.analysis.driver import model_driver
    from ambi_plugin.analysis.positions import FirstCallIds

    odd = "What is this picture? One word."
    ids = FirstCallIds(lm)
    with ids:
        ids.start()
        model_driver(lm, gen_kwargs={"max_new_tokens": 1}).generate(odd, [images[1]])
    n_odd = len(ids.ids)

    def spoil(module, args, kwargs, out):  # a re-run (use_cache=False) of that one prompt gives other logits
        if kwargs.get("use_cache") is False and kwargs["input_ids"].shape[1] == n_odd:
            out.logits = out.logits + 1.0
        return out

    handle = unwrap_model(lm).register_forward_hook(spoil, with_kwargs=True)
    try:
        items = [_item(0, images[0]), _item(1, images[1], prompt_a=odd), _item(2, images[2], "woman")]
        data = patch_items(lm, items, switch_heads=[(2, 3)], per_head=[(2, 3)], draws=0, **QUIET)
    finally:
        handle.remove()
    assert [r["id"] for r in data["refused"]] == ["b1"]
    assert "does not reproduce its logits" in data["refused"][0]["reason"]
    assert data["n_items"] + len(data["skipped"]) == 2, "the other images are patched"
    from ambi_plugin.reports.switch_heads import section_data, section_markdown

    md = section_markdown(section_data(data))
    assert "1 refused" in md and "Refused (1): b1: re-running the backend's inputs does not reproduce" in md


def test_settings_that_do_not_fit_the_model_are_said(lm, images):
    with pytest.raises(ValueError, match=r"head \(4, 0\) is outside the model's 4 x 8 heads"):
        patch_items(lm, [_item(0, images[0])], switch_heads=[(4, 0)], draws=0, **QUIET)
    with pytest.raises(ValueError, match=r"switching scores are \(4, 4\).*the model has \(4, 8\)"):
        patch_items(lm, [_item(0, images[0])], switch_heads=[(1, 1)], scores=np.zeros((4, 4)), draws=0, **QUIET)


class _Driver:
    """A model driver (what lmms-eval's adapter hands the analysis) with a backend's odd habits: ``mode`` "generate
    3" (generates more tokens than asked), "positional" (calls the model with positional inputs), "cached" (answers
    without calling the model)."""

    mode = "generate 3"

    def __init__(self, lm, *, gen_kwargs=None):
        from ambi_plugin.lmms.analysis_driver import BackendModel

        self.lm, self.backend = lm, BackendModel(lm, gen_kwargs={"max_new_tokens": 3})

    def generate(self, prompt, images):
        if self.mode == "positional":
            unwrap_model(self.lm)(torch.tensor([[1, 2, 3]]))
        return "" if self.mode != "generate 3" else self.backend.generate(prompt, images)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("generate 3", None),
        ("positional", "Qwen2_5_VLForConditionalGeneration was called with positional inputs; cannot re-run them"),
        ("cached", "the backend never called Qwen2_5_VLForConditionalGeneration's forward"),
    ],
)
def test_the_rerun_takes_the_backends_first_forward_call_or_says_why_it_cannot(lm, images, mode, reason):
    from ambi_plugin.analysis.driver import set_driver_factory

    _Driver.mode = mode
    old = set_driver_factory(_Driver)
    try:
        data = patch_items(lm, [_item(0, images[0])], switch_heads=[(2, 3)], per_head=[], draws=0, **QUIET)
    finally:
        set_driver_factory(old)
    assert remaining_hooks(lm) == []
    if reason is None:  # the first call's inputs and logits (the prompt), not a later decoding step's
        assert data["n_items"] == 1 and data["refused"] == [] and data["conditions"][0]["effect"] > 0.5
    else:
        assert data["n_items"] == 0 and data["refused"] == [{"id": "b0", "reason": reason}]


def test_positions_outside_a_prompt_or_on_different_tokens_are_refused(lm, images):
    from ambi_plugin.analysis.driver import model_driver
    from ambi_plugin.analysis.positions import FirstCallIds

    item = _item(0, images[0])
    ids = {}
    with FirstCallIds(lm) as rec:
        for key, prompt in (("a", item.prompt_a), ("b", item.prompt_b)):
            rec.start()
            model_driver(lm, gen_kwargs={"max_new_tokens": 1}).generate(prompt, item.images)
            ids[key] = rec.ids.tolist()
    far = -len(ids["a"]) - 1
    data = patch_items(lm, [item], switch_heads=[(2, 3)], position=far, per_head=[], draws=0, **QUIET)
    assert data["refused"] == [{"id": "b0", "reason": f"token position {far} is outside prompt 1, which has "
                                f"{len(ids['a'])} tokens (positions {far + 1}..{len(ids['a']) - 1})"}]  # fmt: skip
    differ = next(p for p in range(-1, -20, -1) if ids["a"][p] != ids["b"][p])
    data = patch_items(lm, [item], switch_heads=[(2, 3)], position=differ, per_head=[], draws=0, **QUIET)
    assert data["refused"][0]["reason"].startswith(
        f"token position {differ} names token id {ids['a'][differ]} in prompt 1 and {ids['b'][differ]} in prompt 2"
    )
    swapped = PatchItem("s0", item.images, item.prompt_b, item.prompt_a)  # prompt 2 the shorter one
    short = -len(ids["a"]) - 1
    data = patch_items(lm, [swapped], switch_heads=[(2, 3)], position=short, per_head=[], draws=0, **QUIET)
    assert data["refused"][0]["reason"].startswith(f"token position {short} is outside prompt 2, which has ")
    same = differ + 1  # the prompts' common ending: patched there
    data = patch_items(lm, [item], switch_heads=[(2, 3)], position=same, per_head=[], draws=0, **QUIET)
    assert data["refused"] == [] and data["n_items"] + len(data["skipped"]) == 1


def test_a_rerun_must_reproduce_the_backends_logits_to_a_relative_1e_3(lm, images):
    """The tolerance is 1e-3 of the largest logit, at least 1e-3: a re-run off by 0.8 of it is kept, by 1.2 refused,
    also for logits scaled under 1; a re-run whose logits are NaN while the backend's were finite is refused as
    non-finite, with no head named."""
    from ambi_plugin.analysis.driver import model_driver

    big = {}

    def measure(module, args, kwargs, out):
        big.setdefault("max", float(out.logits[0, -1].abs().max()))

    model = unwrap_model(lm)
    handle = model.register_forward_hook(measure, with_kwargs=True)
    try:
        model_driver(lm, gen_kwargs={"max_new_tokens": 1}).generate(first_prompt("bistable"), [images[0]])
    finally:
        handle.remove()
    spoil = {"by": 0.0, "scale": 1.0}

    def off(module, args, kwargs, out):  # every call scaled, the re-run (use_cache=False) also moved
        out.logits = out.logits * spoil["scale"] + (spoil["by"] if kwargs.get("use_cache") is False else 0.0)
        return out

    handle = model.register_forward_hook(off, with_kwargs=True)
    try:
        results = []
        for scale, tol in ((1.0, 1e-3 * big["max"]), (0.5 / big["max"], 1e-3)):  # the largest logit: big, then 0.5
            for by in (0.8 * tol, 1.2 * tol):
                spoil.update(by=by, scale=scale)
                data = patch_items(lm, [_item(0, images[0])], switch_heads=[(2, 3)], per_head=[], draws=0, **QUIET)
                results.append(data["refused"])
        spoil.update(by=float("nan"), scale=1.0)
        nan = patch_items(lm, [_item(0, images[0])], switch_heads=[(2, 3)], per_head=[], draws=0, **QUIET)["refused"]
    finally:
        handle.remove()
    assert big["max"] > 2.0 and results[0] == [] and results[2] == []
    for refused in (results[1], results[3]):
        reason = refused[0]["reason"]
        assert reason.startswith("re-running the backend's inputs does not reproduce its logits (max difference ")
        assert reason.endswith("); this item cannot be patched this way")
    assert nan == [{"id": "b0", "reason": "prompt 1 gives NaN or infinite logits"}]


def test_gradient_drop_needs_decoder_layers_it_can_find_and_pair(lm, images):
    from ambi_plugin.analysis.heads import HeadLayout
    from ambi_plugin.analysis.patch_model import PatchingError, grad_drop

    item = _item(0, images[0])
    layout = head_layout(lm)
    patcher = Patcher(lm, layout, -1)
    run_a = run_prompt(lm, patcher, item.prompt_a, item.images)
    run_b = run_prompt(lm, patcher, item.prompt_b, item.images)
    b = int(run_b.logits.argmax())
    one = HeadLayout(layout.names[:1], layout.n_heads, layout.head_dim)
    with pytest.raises(PatchingError, match=r"^AtP\* \(GradDrop\) needs at least two decoder layers$"):
        grad_drop(lm, patcher, run_a, run_b, b, one)
    odd = HeadLayout(("model.blocks.0.attn.o", "model.blocks.1.attn.o"), layout.n_heads, layout.head_dim)
    with pytest.raises(PatchingError, match=r"decoder layer around 'model.blocks.0.attn.o' and found none"):
        grad_drop(lm, patcher, run_a, run_b, b, odd)
    gone = HeadLayout(("model.layers.7.self_attn.o_proj", *layout.names[1:]), layout.n_heads, layout.head_dim)
    with pytest.raises(PatchingError, match=r"around 'model.layers.7.self_attn.o_proj'"):
        grad_drop(lm, patcher, run_a, run_b, b, gone)
    emb = unwrap_model(lm).get_input_embeddings()  # token ids in, vectors out: nothing to pair
    with pytest.raises(PatchingError, match=f"^{UNPAIRED}$"):
        attribution(lm, patcher, run_a, run_b, b, layout, drop_layer=emb)
    assert remaining_hooks(lm) == []
    # GradDrop = the mean over the L - 1 ... of |AtP with each layer dropped|, summed over all L layers
    blocks = unwrap_model(lm).model.language_model.layers
    total = sum(np.abs(attribution(lm, patcher, run_a, run_b, b, layout, drop_layer=blk)) for blk in blocks)
    np.testing.assert_allclose(grad_drop(lm, patcher, run_a, run_b, b, layout), total / (N_LAYERS - 1), rtol=1e-6)


def _prompt_ids(lm, item) -> dict[str, list[int]]:
    """The token ids of the item's two prompts as the backend builds them."""
    from ambi_plugin.analysis.driver import model_driver
    from ambi_plugin.analysis.positions import FirstCallIds

    ids = {}
    with FirstCallIds(lm) as rec:
        for key, prompt in (("a", item.prompt_a), ("b", item.prompt_b)):
            rec.start()
            model_driver(lm, gen_kwargs={"max_new_tokens": 1}).generate(prompt, item.images)
            ids[key] = rec.ids.tolist()
    return ids


def _on_prompt(lm, length, edit):
    """A forward hook that rewrites the last position's logits of every call on a prompt of ``length`` tokens (the
    backend's call and the re-runs alike, so the re-run still reproduces the backend): a model with other logits."""

    def hook(module, args, kwargs, out):
        if kwargs["input_ids"].shape[1] == length:  # out of place: AtP differentiates through it
            out.logits = torch.cat([out.logits[:, :-1], edit(out.logits[0, -1])[None, None]], 1)
        return out

    return unwrap_model(lm).register_forward_hook(hook, with_kwargs=True)


def test_the_same_first_token_is_skipped_even_when_its_probability_changes(lm, images):
    item = _item(0, images[0])
    ids = _prompt_ids(lm, item)
    assert len(ids["a"]) != len(ids["b"])
    b = int(run_prompt(lm, Patcher(lm, head_layout(lm), -1), item.prompt_b, item.images).logits.argmax())

    def a_barely_prefers_b(logits):  # prompt 1 now also answers b, but far less surely than prompt 2
        return torch.where(torch.arange(len(logits)) == b, logits.max() + 0.1, logits)

    handle = _on_prompt(lm, len(ids["a"]), a_barely_prefers_b)
    try:
        data = patch_items(lm, [item], switch_heads=[(2, 3)], per_head=[], draws=0, **QUIET)
    finally:
        handle.remove()
    assert data["n_items"] == 0 and data["skipped"] == [
        {"id": "b0", "reason": "the two runs predict the same first answer token"}
    ]


def test_a_negative_gap_keeps_the_effect_a_share_and_atp_star_a_magnitude(lm, images):
    """Prompt 2 made unsure (its logits flattened) and b made prompt 1's close second: b is less likely under B than
    under A, so the gap logp_B(b) - logp_A(b) is negative. The effect is still the share of the gap the patch
    restores, AtP is divided by the (negative) gap, AtP* by its size: a magnitude."""
    item = _item(0, images[0])
    ids = _prompt_ids(lm, item)
    b = int(run_prompt(lm, Patcher(lm, head_layout(lm), -1), item.prompt_b, item.images).logits.argmax())

    def a_second_on_b(logits):
        return torch.where(torch.arange(len(logits)) == b, logits.max() - 0.1, logits)

    handles = [
        _on_prompt(lm, len(ids["b"]), lambda logits: logits * 0.01),
        _on_prompt(lm, len(ids["a"]), a_second_on_b),
    ]
    try:
        data = patch_items(lm, [item], switch_heads=[(2, 3)], per_head=[(2, 3)], draws=0, atp_star=True, **QUIET)
        layout = head_layout(lm)
        patcher = Patcher(lm, layout, -1)
        run_a = run_prompt(lm, patcher, item.prompt_a, item.images)
        run_b = run_prompt(lm, patcher, item.prompt_b, item.images)
        row = data["items"][0]
        gap = row["logp_b"] - row["logp_a"]
        patched = patched_logits(lm, patcher, run_a, {2: ([3], run_b.acts[2][[3]])})
        raw = attribution(lm, patcher, run_a, run_b, row["token_b"], layout)
    finally:
        for h in handles:
            h.remove()
    assert data["n_items"] == 1 and row["token_b"] == b and gap < -0.5, gap
    assert row["switch heads"]["effect"] == pytest.approx((logp(patched, row["token_b"]) - row["logp_a"]) / gap)
    np.testing.assert_allclose(np.array(row["atp"], dtype=float), raw / gap, rtol=1e-5, atol=1e-9)
    star = np.array(row["atp_star"], dtype=float)
    assert (star >= 0).all() and star.max() > 0, "AtP* is a magnitude whatever the gap's sign"
    np.testing.assert_allclose(star[-1], np.abs(raw[-1] / gap), rtol=1e-4, atol=1e-9)


def test_a_patched_run_with_nan_logits_is_counted_not_averaged(lm, images):
    """Runs A and B (and AtP) finite, but every patched run's logits NaN (a kernel that overflows once values are
    written in): no effect and no flip for that image, counted as non-finite, never read as 0."""
    state = {"after_atp": False}

    def nan_after_atp(module, args, kwargs, out):
        if torch.is_grad_enabled():
            state["after_atp"] = True
        elif state["after_atp"] and kwargs.get("use_cache") is False:
            out.logits = torch.full_like(out.logits, float("nan"))
        return out

    handle = unwrap_model(lm).register_forward_hook(nan_after_atp, with_kwargs=True)
    try:
        data = patch_items(lm, [_item(0, images[0])], switch_heads=[(2, 3)], per_head=[(2, 3)], draws=0, **QUIET)
    finally:
        handle.remove()
    assert data["n_items"] == 1 and data["refused"] == []
    switch = data["conditions"][0]
    assert switch["effect"] is None and switch["n"] == 0 and switch["n_nonfinite"] == 1
    assert switch["flips"] == 0 and switch["n_flip_known"] == 0
    assert data["items"][0]["switch heads"] == {"effect": None, "flip": None}
    assert data["per_head"][0]["n_nonfinite"] == 1 and data["per_head"][0]["effect"] is None


def test_the_defaults_a_plain_call_gets(lm, images, capsys):
    """The last prompt token, the union of the top 10 by AtP, 100 layer-matched random sets drawn when more exist,
    1000 bootstrap resamples at 95%, seed 0, no AtP*, and progress bars on stderr."""
    switch = [(0, 1), (1, 2), (2, 3), (3, 4)]  # one head in each layer: 7^4 layer-matched sets, 100 drawn
    said = []
    data = patch_items(lm, [_item(0, images[0])], switch_heads=switch, say=said.append)
    assert data["position"] == "last_prompt" and data["n_items"] == 1
    assert data["selection"] == {"mode": "union", "k": 10, "atp_star": False, "n_heads": 10}
    assert {r["from"] for r in data["per_head"]} == {"atp"} and data["atp_star"] is None
    perm = data["permutation"]
    assert perm["n"] == 100 and perm["n_possible"] == 7**4 and perm["exact"] is False and perm["seed"] == 0
    assert (data["n_boot"], data["confidence"], data["seed"]) == (1000, 0.95, 0)
    assert data["cost"]["forward_passes"] == 1 + 100 + 10 and 0 < data["cost"]["seconds_per_pass"] < 60
    assert data["conditions"][0]["effect"] > 0.5, "the switch set holds the planted head (2, 3): patched in each layer"
    err = capsys.readouterr().err
    assert "patching: runs, AtP" in err and "patching: 100%" in err
    patch_items(lm, [_item(0, images[0])], switch_heads=switch, per_head=[], draws=0, **QUIET)
    assert "patching" not in capsys.readouterr().err, "progress=False: no bars"


class _EmbeddingsDriver:
    """A model driver for a backend that hands the model embeddings, not token ids (the prompt as plain text)."""

    def __init__(self, lm, *, gen_kwargs=None):
        self.lm = lm

    def generate(self, prompt, images):
        model = unwrap_model(self.lm)
        ids = self.lm.tokenizer(prompt, return_tensors="pt").input_ids
        with torch.no_grad():
            model(inputs_embeds=model.get_input_embeddings()(ids), attention_mask=torch.ones_like(ids))
        return ""


def test_a_backend_passing_embeddings_is_patched_without_the_token_checks(lm, images):
    """No token ids: whether the position names the same token in both prompts cannot be checked (nor its range
    against the ids); the re-run and the patching work on the embeddings as handed over."""
    from ambi_plugin.analysis.driver import set_driver_factory

    old = set_driver_factory(_EmbeddingsDriver)
    try:
        item = PatchItem("e0", [images[0]], "Look at the picture carefully. Is this a duck or a rabbit? One word.",
                         "Look at the picture carefully. Is it a vase or two faces? Answer one word, please.")  # fmt: skip
        data = patch_items(lm, [item], switch_heads=[(2, 3)], per_head=[(2, 3)], draws=0, **QUIET)
        patcher = Patcher(lm, head_layout(lm), -1)
        run = run_prompt(lm, patcher, item.prompt_a, item.images)
        far = patch_items(lm, [item], switch_heads=[(2, 3)], position=-500, per_head=[], draws=0, **QUIET)
        n = len(lm.tokenizer(item.prompt_a).input_ids)
        first = patch_items(lm, [item], switch_heads=[(2, 3)], position=-n, per_head=[], draws=0, **QUIET)
    finally:
        set_driver_factory(old)
    assert run.ids is None and set(run.inputs) >= {"inputs_embeds"} and "input_ids" not in run.inputs
    assert data["refused"] == [] and data["n_items"] == 1 and data["conditions"][0]["effect"] is not None, data
    assert n > 2 * N_HEADS and first["refused"] == [], "the first token of prompt 1: in range"
    assert far["refused"] == [{"id": "e0", "reason": f"token position -500 is outside the prompt, which has {n} "
                               f"tokens (positions {-n}..{n - 1})"}]  # fmt: skip


# last: it builds a model of its own (a mutation run stops a mutant at its first failing test, in file order)
def test_nan_and_inf_head_outputs_are_counted_per_head_and_reported(tmp_path, images):
    """An infinite V bias in layer 3's second K/V group: its two query heads give inf/NaN at every position, the
    logits turn NaN, every image is refused with those heads named, and the heads are counted."""
    folder = save_planted(tmp_path / "m", seed=0)
    from transformers import Qwen2_5_VLForConditionalGeneration

    model = Qwen2_5_VLForConditionalGeneration.from_pretrained(folder)
    with torch.no_grad():
        model.model.language_model.layers[3].self_attn.v_proj.bias[1 * HEAD_DIM] = float("inf")
    model.save_pretrained(folder)
    lm = load_float32(folder)
    items = [_item(i, img, w) for i, (img, w) in enumerate(zip(images, ["duck", "vase", "woman"]))]
    scores = np.zeros((N_LAYERS, N_HEADS))  # with a scores map too (every image refused used to crash its Spearman)
    data = patch_items(lm, items, switch_heads=[(2, 3)], per_head=[], scores=scores, draws=0, **QUIET)
    assert data["n_items"] == 0 and len(data["refused"]) == 3, data["refused"]
    assert data["spearman"]["s_vs_atp"]["rho"] is None and data["spearman"]["s_vs_atp"]["n_heads"] == 0
    assert all("prompt 1 gives NaN or infinite logits; heads with NaN/inf outputs at the position: (3, 2), (3, 3)" in r["reason"]
               for r in data["refused"])  # fmt: skip
    bad = np.array(data["nonfinite_activations"]["per_head"])
    assert bad[3, 2] == bad[3, 3] == 3 and bad.sum() == 6 and data["nonfinite_activations"]["heads"] == 2
    with torch.no_grad():  # one layer lower: its two heads, then every head of layer 3 (NaN inputs): 10 heads named
        unwrap_model(lm).model.language_model.layers[2].self_attn.v_proj.bias[0] = float("inf")
    data = patch_items(lm, items[:1], switch_heads=[(2, 3)], per_head=[], draws=0, **QUIET)
    heads = ", ".join(["(2, 0)", "(2, 1)", "(3, 0)", "(3, 1)", "(3, 2)", "(3, 3)"])
    assert data["refused"][0]["reason"] == (
        f"prompt 1 gives NaN or infinite logits; heads with NaN/inf outputs at the position: {heads} and 4 more"
    )
    layers = unwrap_model(lm).model.language_model.layers
    with torch.no_grad():  # back to finite V biases; infinite queries in layer 3 make single heads NaN
        layers[2].self_attn.v_proj.bias[0] = 0.0
        layers[3].self_attn.v_proj.bias[1 * HEAD_DIM] = 0.0
    for n in (6, 7):  # six named; a seventh is counted
        with torch.no_grad():
            layers[3].self_attn.q_proj.bias[: n * HEAD_DIM] = float("inf")
        reason = patch_items(lm, items[:1], switch_heads=[(2, 3)], per_head=[], draws=0, **QUIET)["refused"][0][
            "reason"
        ]
        named = ", ".join(f"(3, {h})" for h in range(6))
        assert (
            reason
            == f"prompt 1 gives NaN or infinite logits; heads with NaN/inf outputs at the position: {named}"
            + (" and 1 more" if n == 7 else "")
        )


@pytest.mark.parametrize("by_keyword", [False, True])
def test_grad_drop_keeps_the_value_and_passes_gradient_through_the_skip_only(by_keyword):
    """A decoder layer's hidden states come positionally or by keyword (transformers releases differ), its output as
    a tensor or a tuple: the dropped layer's output keeps its value, its gradient is the skip connection's."""
    from ambi_plugin.analysis.patch_model import PatchingError, _drop_hook

    h = torch.tensor([[1.0, -2.0, 3.0]], requires_grad=True)
    # the hook runs inside attribution's torch.enable_grad() (patch_model.py); here too, since importing
    # VLMEvalKit's vlmeval.vlm (another test in this process may have) turns gradients off process-wide
    with torch.enable_grad():
        for out in (h**2 * 3, (h**2 * 3, "attn weights")):
            args, kwargs = ((), {"hidden_states": h}) if by_keyword else ((h,), {})
            new = _drop_hook(None, args, kwargs, out)
            value = new[0] if isinstance(out, tuple) else new
            if isinstance(out, tuple):
                assert new[1:] == ("attn weights",)
            assert torch.equal(value, h.detach() ** 2 * 3)
            (grad,) = torch.autograd.grad(value.sum(), h)
            assert torch.equal(grad, torch.ones_like(h)), "d(h + (f(h) - h).detach())/dh = 1"
    with pytest.raises(PatchingError, match=f"^{UNPAIRED}$"):  # no hidden states in
        _drop_hook(None, (), {"position_ids": h}, h * 2)
    with pytest.raises(PatchingError, match=f"^{UNPAIRED}$"):  # no tensor out
        _drop_hook(None, (h,), {}, ("no tensor",))


def test_atp_of_a_frozen_model(lm, images):
    """A backend whose weights do not require gradients (frozen for inference) gets the same AtP."""
    item = _item(0, images[0])
    layout = head_layout(lm)
    patcher = Patcher(lm, layout, -1)
    run_a = run_prompt(lm, patcher, item.prompt_a, item.images)
    run_b = run_prompt(lm, patcher, item.prompt_b, item.images)
    b = int(run_b.logits.argmax())
    model = unwrap_model(lm)
    want = attribution(lm, patcher, run_a, run_b, b, layout)
    model.requires_grad_(False)
    try:
        got = attribution(lm, patcher, run_a, run_b, b, layout)
    finally:
        model.requires_grad_(True)
    assert np.abs(want).max() > 1e-3
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)


def test_the_tolerance_is_inclusive(lm, images):
    """Logits whose largest is 1000 give a tolerance of exactly 1.0: a re-run off by exactly 1.0 is accepted (then
    skipped: both prompts now predict the same token), by 1.5 refused."""
    spoil = {"by": 1.0}

    def fixed(module, args, kwargs, out):
        logits = torch.zeros_like(out.logits)
        logits[..., 0] = 1000.0 + (spoil["by"] if kwargs.get("use_cache") is False else 0.0)
        out.logits = logits
        return out

    handle = unwrap_model(lm).register_forward_hook(fixed, with_kwargs=True)
    try:
        exact = patch_items(lm, [_item(0, images[0])], switch_heads=[(2, 3)], per_head=[], draws=0, **QUIET)
        spoil["by"] = 1.5
        over = patch_items(lm, [_item(0, images[0])], switch_heads=[(2, 3)], per_head=[], draws=0, **QUIET)
    finally:
        handle.remove()
    assert exact["refused"] == [] and [s["id"] for s in exact["skipped"]] == ["b0"]
    assert over["refused"][0]["reason"].startswith("re-running the backend's inputs does not reproduce its logits")


def test_the_backend_is_asked_for_one_token_and_called_once_per_prompt(lm, images):
    """The first step needs one forward pass; a longer answer would cost one more per token (a re-run follows)."""
    calls = []

    def count(module, args, kwargs, out):
        calls.append("re-run" if kwargs.get("use_cache") is False else "backend")

    item = _item(0, images[0])
    handle = unwrap_model(lm).register_forward_hook(count, with_kwargs=True)
    try:
        run_prompt(lm, Patcher(lm, head_layout(lm), -1), item.prompt_a, item.images)
    finally:
        handle.remove()
    assert calls == ["backend", "re-run"]
    with pytest.raises(PositionError, match=r"^token position -500 is outside the prompt, which has \d+ tokens"):
        run_prompt(lm, Patcher(lm, head_layout(lm), -500), item.prompt_a, item.images)


def test_a_bfloat16_backend_is_patched_in_its_own_dtype(tmp_path, images):
    """lmms-eval loads the model in bfloat16: the heads are recorded in float32 and written back in the model's dtype."""
    from ambi_plugin.cli.demo import TINY_MODEL_ARGS
    from ambi_plugin.lmms.analysis_driver import load_backend

    folder = save_planted(tmp_path / "m", seed=0, heads=[(2, 3)])
    lm16 = load_backend("qwen2_5_vl", f"pretrained={folder},{TINY_MODEL_ARGS}")
    assert next(unwrap_model(lm16).parameters()).dtype == torch.bfloat16
    data = patch_items(lm16, [_item(0, images[0])], switch_heads=[(2, 3)], per_head=[(2, 3)], draws=0, **QUIET)
    assert data["refused"] == [] and data["n_items"] == 1
    assert data["conditions"][0]["effect"] > 0.5 and data["per_head"][0]["effect"] > 0.5


def test_the_patcher_reads_the_modules_and_the_split_it_is_given(lm, images):
    """Another module pattern (here each layer's q_proj input) and another head split (4 wider heads) are what the
    Patcher records: the hooks follow its pattern and its layout, not the defaults."""
    item = _item(0, images[0])
    pattern = r"(?:^|\.)layers\.(\d+)\.self_attn\.q_proj$"
    seen = {}

    def keep(module, args):
        seen.setdefault("x", args[0][0, -1].detach().float().clone())

    layers = unwrap_model(lm).model.language_model.layers
    layout = head_layout(lm, pattern=pattern)
    handle = layers[1].self_attn.q_proj.register_forward_pre_hook(keep)
    try:
        run = run_prompt(lm, Patcher(lm, layout, -1, pattern), item.prompt_a, item.images)
    finally:
        handle.remove()
    assert layout.names[1].endswith("layers.1.self_attn.q_proj")
    np.testing.assert_allclose(run.acts[1].reshape(-1).numpy(), seen["x"].numpy(), rtol=1e-6)
    wide = run_prompt(lm, Patcher(lm, head_layout(lm, n_heads=4), -1), item.prompt_a, item.images)
    assert tuple(wide.acts[0].shape) == (4, 2 * HEAD_DIM) and wide.nonfinite.shape == (N_LAYERS, 4)
    assert remaining_hooks(lm) == []
