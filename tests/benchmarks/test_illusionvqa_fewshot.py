"""Few-shot prompts with interleaved images and the image preprocessing IllusionVQA prescribes."""

from __future__ import annotations

import pytest
from PIL import Image

from ambi_plugin.core.fewshot import FewShotError, fewshot_fields
from ambi_plugin.core.preprocess import check_spec, downscaled_size, preprocess_image
from ambi_plugin.runtime.hooks import build_prompt


def _rec(k: int = 2) -> dict:
    shots = [{"question": f"Q{i}?", "options": ["x", "y", "z"], "answer_index": i % 3, "reasoning": f"because {i}"}
             for i in range(k)]  # fmt: skip
    return {"id": "r1", "benchmark": "b", "category": "c", "task_type": "choice", "question": "Final?",
            "options": ["p", "q"], "answer_index": 0, "option_style": "letter_lower",
            "image": [f"ex{i}.png" for i in range(k)] + ["query.png"], "fewshot": shots}  # fmt: skip


def test_fewshot_block_numbers_examples_and_places_image_tokens():
    fields = fewshot_fields(_rec(), {}, lambda i: "abc"[i])
    assert fields["n"] == "3" and fields["image"] == "<image 3>"
    assert fields["fewshot"] == (
        "Image 1: Q0?\na. x\nb. y\nc. z\n<image 1>\nAnswer 1: a\nImage 2: Q1?\na. x\nb. y\nc. z\n<image 2>\nAnswer 2: b"
    )
    custom = fewshot_fields(
        _rec(), {"fewshot_template": "{image} {question} -> {answer_text} ({reasoning})", "image_token": "", "fewshot_separator": " | "},
        lambda i: "abc"[i],
    )  # fmt: skip
    assert custom == {"fewshot": " Q0? -> x (because 0) |  Q1? -> y (because 1)", "n": "3", "image": ""}


def test_prompt_template_uses_fewshot_fields_through_the_hook():
    kwargs = {"prompt": "Examples:\n{fewshot}\nNow: Image {n}: {question}\n{options}\n{image}\nAnswer {n}:"}
    text = build_prompt(_rec(1), kwargs)
    assert text.endswith("Now: Image 2: Final?\na. p\nb. q\n<image 2>\nAnswer 2:")
    assert "Image 1: Q0?\na. x" in text


def test_fewshot_errors_name_the_record_and_example():
    rec = _rec()
    rec["image"] = rec["image"][:-1]
    with pytest.raises(FewShotError, match="id='r1'.*need 3 images"):
        fewshot_fields(rec, {}, str)
    rec = _rec()
    rec["fewshot"][1]["answer_index"] = 7
    with pytest.raises(FewShotError, match="example 1 has answer_index 7"):
        fewshot_fields(rec, {}, str)
    with pytest.raises(FewShotError, match="cannot be filled.*fields"):
        fewshot_fields(_rec(), {"fewshot_template": "{nope}"}, str)


def test_downscale_only_keeps_aspect_and_uses_lanczos():
    assert downscaled_size(1024, 400, 512) == (512, 200)
    assert downscaled_size(300, 1000, 512) == (153, 512)  # 300 * 0.512 = 153.6, truncated like the authors' code
    assert downscaled_size(512, 100, 512) == (512, 100)
    assert downscaled_size(40, 30, 512) == (40, 30)
    im = Image.effect_noise((1000, 700), 60).convert("RGB")
    out = preprocess_image(im, {"max_side": 512})
    assert out.size == (512, 358)
    assert out.tobytes() == im.resize((512, 358), Image.Resampling.LANCZOS).tobytes()
    assert out.tobytes() != im.resize((512, 358), Image.Resampling.BILINEAR).tobytes()
    gray = preprocess_image(im, {"max_side": 512, "grayscale": True})
    assert gray.mode == "RGB" and gray.tobytes() == out.convert("L").convert("RGB").tobytes()
    tiny = Image.new("RGB", (10, 10), (1, 2, 3))
    assert preprocess_image(tiny, {"max_side": 512}).size == (10, 10)


@pytest.mark.parametrize("bad", [{"max_side": 0}, {"max_side": "512"}, {"grayscale": "yes"}, {"resize": 3}, [512]])
def test_bad_preprocess_specs_are_refused(bad):
    with pytest.raises(ValueError):
        check_spec(bad)


def test_doc_to_messages_interleaves_images_at_their_placeholders(tmp_path):
    from ambi_plugin.runtime.hooks import doc_to_messages

    rec = _rec(2)
    for i, name in enumerate(rec["image"]):
        Image.new("RGB", (20 + i, 10), (i * 50, 0, 0)).save(tmp_path / name)
    rec["image"] = [str(tmp_path / n) for n in rec["image"]]
    kwargs = {"prompt": "Look:\n{fewshot}\nNow: {question}\n{image}\nAnswer {n}:"}
    (turn,) = doc_to_messages(rec, kwargs)
    kinds = [c["type"] for c in turn["content"]]
    assert kinds == ["text", "image", "text", "image", "text", "image", "text"]
    assert [c["url"].size for c in turn["content"] if c["type"] == "image"] == [(20, 10), (21, 10), (22, 10)]
    assert turn["content"][-1]["text"] == "\nAnswer 3:" and "<image" not in "".join(
        c["text"] for c in turn["content"] if c["type"] == "text"
    )
    # without placeholders (image_token ""), every image comes first, as lmms-eval's default turn does
    (flat,) = doc_to_messages(rec, {**kwargs, "image_token": ""})
    assert [c["type"] for c in flat["content"]] == ["image", "image", "image", "text"]
