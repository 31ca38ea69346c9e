"""The hf backend with tiny causal LMs built here: batching, reading, voting, cache, device_map.

The models are random Phi networks (2 layers, hidden 16) with a word-level tokenizer. Zeroing the final
layer norm makes every hidden state 0, so the logits equal the LM head's bias: setting the bias picks the
one token the model always emits ("True", "1", ...). A model with random weights emits noise.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

from ambi_plugin.judge import JudgeSettings, make_judge  # noqa: E402

WORDS = ["<pad>", "<eos>", "<unk>", "True", "False", "0", "1", "2", "A", "B", "C", "None", "the", "set", "word"]


def build_tiny_lm(path, *, always: str | None, seed: int = 0):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PhiConfig, PhiForCausalLM, PreTrainedTokenizerFast

    torch.manual_seed(seed)
    vocab = {w: i for i, w in enumerate(WORDS)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    cfg = PhiConfig(
        vocab_size=len(WORDS),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        max_position_embeddings=4096,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=1,
    )
    model = PhiForCausalLM(cfg).eval()
    if always is not None:
        with torch.no_grad():
            model.model.final_layernorm.weight.zero_()
            model.model.final_layernorm.bias.zero_()
            model.lm_head.bias.zero_()
            model.lm_head.bias[vocab[always]] = 10.0
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("tiny-lms")
    return {
        name: str(build_tiny_lm(root / str(name), always=name)) for name in ("True", "False", "1", "2", "word", None)
    }


def _judge(path, tmp_path, **kw):
    opts = {"backend": "hf", "model": path, "device_map": "cpu", "max_tokens": 1, "cache_path": str(tmp_path / "c.db")}
    opts.update(kw)
    return make_judge(JudgeSettings(**opts))


def test_verdicts_from_a_local_model(models, tmp_path):
    yes, no = _judge(models["True"], tmp_path), _judge(models["False"], tmp_path / "no")
    v = yes.set_match(["desert"], ["sand"])
    assert v.value is True and v.raw == ["True"] and not v.error
    assert no.set_match(["desert"], ["sand"]).value is False
    info = yes.info()
    assert info["backend"] == "hf" and info["model"] == models["True"] and info["device_map"] == "cpu"


def test_five_rounds_go_out_as_one_batch_and_are_cached(models, tmp_path):
    judge = _judge(models["1"], tmp_path, batch_size=8)
    v = judge.correct_true_false("q", "True", "True", rounds=5)
    assert v.value is True and v.votes == [True] * 5
    stats = judge.stats()
    assert stats["backend_requests"] == 5 and stats["backend_batches"] < 5
    again = _judge(models["1"], tmp_path)
    assert again.correct_true_false("q", "True", "True", rounds=5).value is True
    assert again.stats().get("backend_requests", 0) == 0 and again.stats()["cache_hits"] == 5


def test_concurrent_callers_share_batches(models, tmp_path):
    judge = _judge(models["2"], tmp_path, batch_size=4, cache=False)
    with ThreadPoolExecutor(8) as pool:
        scores = list(pool.map(lambda i: judge.description_score(f"the word {i}", "the set", rounds=1), range(8)))
    assert all(s.mean == 2.0 for s in scores)
    stats = judge.stats()
    assert stats["backend_requests"] == 8 and stats["backend_batches"] < 8
    assert max(int(k.rsplit("_", 1)[1]) for k in stats if k.startswith("backend_batch_size_")) <= 4


def test_a_reply_that_is_no_verdict_is_a_judge_error(models, tmp_path):
    judge = _judge(models["word"], tmp_path, parse_retries=1)
    v = judge.set_match(["desert"], ["sand"])
    assert v.error and v.value is None and v.raw == ["word"]
    assert judge.stats()["backend_requests"] == 2  # asked again once, then recorded as an error


def test_random_weights_run_end_to_end(models, tmp_path):
    judge = _judge(models[None], tmp_path, max_tokens=3)
    v = judge.set_match(["desert"], ["sand"])
    assert len(v.raw) == 1 and isinstance(v.raw[0], str)
    assert v.error is (v.value is None)


def test_sampling_with_temperature(models, tmp_path):
    judge = _judge(models["True"], tmp_path, temperature=0.7, cache=False)
    assert judge.set_match(["a"], ["b"], rounds=3).value is True  # bias 10 dominates the sampling
