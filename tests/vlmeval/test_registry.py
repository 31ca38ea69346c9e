"""register() in process: a class per task in VLMEvalKit's tables, messages built by the lmms-eval hooks."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import vlmeval.config
import vlmeval.dataset as vd
from PIL import Image

from ambi_plugin.runtime import hooks
from ambi_plugin.runtime.task import all_tasks
from ambi_plugin.vlmeval import register
from ambi_plugin.vlmeval.dataset import AmbiTaskDataset, MultiImageRefused


@pytest.fixture(scope="module")
def classes():
    return register()


def test_every_task_yaml_becomes_a_registered_class(classes):
    assert sorted(classes) == sorted(all_tasks())
    assert register() == classes  # idempotent
    for name, cls in classes.items():
        assert issubclass(cls, AmbiTaskDataset) and cls.force_use_dataset_prompt
        assert cls in vd.DATASET_CLASSES and vd.DATASET_CLASSES.count(cls) == 1
        assert name in vd.SUPPORTED_DATASETS
        assert getattr(vd, cls.__name__) is cls  # run.py --config takes it as a `class`
        assert vd.DATASET_TYPE(name) == "VQA"
    assert "ambi_replay" in vlmeval.config.supported_VLM


def _same_pixels(path: str, image) -> bool:
    with Image.open(path) as im:
        return im.convert("RGB").tobytes() == image.convert("RGB").tobytes() and im.size == image.size


@pytest.mark.parametrize("task", ["ambi_synth_region", "ambi_synth_geometric_mc", "ambibench_motion_video_open"])
def test_build_dataset_gives_our_prompt_and_pixels(classes, task, monkeypatch):
    monkeypatch.setenv("AMBI_SYNTH_N", "2")
    ds = vd.build_dataset(task, work_dir="ignored", verbose=False)  # run.py passes all its args
    assert type(ds) is classes[task]
    kwargs = ds.AMBI_TASK.prompt_kwargs_for(None)
    for i in range(len(ds)):
        doc = ds.docs[i]
        msg = ds.build_prompt(ds.data.iloc[i])
        assert msg[-1] == {"type": "text", "value": hooks.doc_to_text(doc, kwargs)}
        visuals = hooks.doc_to_visual(doc, kwargs)
        assert [m["type"] for m in msg[:-1]] == ["image"] * len(visuals) and visuals
        assert all(_same_pixels(m["value"], v) for m, v in zip(msg, visuals))


def test_unknown_task_name_is_not_claimed(classes):
    cls = classes["ambi_synth_region"]
    with pytest.raises(ValueError, match="ambi_synth_region"):
        cls("ambi_synth_regio")


def test_few_shot_images_are_interleaved_where_the_prompt_places_them(classes, tmp_path, monkeypatch, shared_data):
    from illusion_fixtures import illusionvqa_copy

    monkeypatch.setenv("AMBI_ILLUSIONVQA_DIR", str(illusionvqa_copy(tmp_path, shared_data)))
    ds = vd.build_dataset("ambi_illusionvqa_soft_localization_4shot_cot")
    kwargs = ds.AMBI_TASK.prompt_kwargs_for(None)
    assert ds.AMBI_TASK.interleaved
    doc = ds.docs[0]
    msg = ds.build_prompt(0)
    (turn,) = hooks.doc_to_messages(doc, kwargs)
    assert [m["type"] for m in msg] == [p["type"] for p in turn["content"]]
    assert [m["type"] for m in msg].count("image") == 5  # four examples and the question
    for m, part in zip(msg, turn["content"]):
        if m["type"] == "text":
            assert m["value"] == part["text"]
        else:
            assert _same_pixels(m["value"], part["url"])  # resized to 512 and grayscale, as lmms-eval sends


# -- several images and models that take one (INTERLEAVE = False) ------------------------------------------
def first_image_model():
    """A minimal VLMEvalKit model without interleaved input: it answers through BaseModel's own
    ``message_to_promptimg`` (which keeps only the first image) with the image it got."""
    from vlmeval.vlm.base import BaseModel

    class FirstImage(BaseModel):
        INTERLEAVE = False

        def generate_inner(self, message, dataset=None):
            _prompt, image = self.message_to_promptimg(message, dataset=dataset)
            return str(image)

    return FirstImage()


def _infer(model, dataset, tmp_path, limit=2):
    from vlmeval.inference import infer_data_job

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return infer_data_job(model, work_dir=str(work), model_name="m", dataset=dataset, limit=limit)


@pytest.fixture
def illusionvqa(tmp_path, monkeypatch, shared_data):
    from illusion_fixtures import illusionvqa_copy

    monkeypatch.setenv("AMBI_ILLUSIONVQA_DIR", str(illusionvqa_copy(tmp_path, shared_data)))


def test_several_images_are_refused_for_a_model_without_interleave(classes, tmp_path, illusionvqa):
    ds = vd.build_dataset("ambi_illusionvqa_comprehension_4shot")
    rid = json.loads(ds.docs[0]["record"])["id"]
    with pytest.raises(MultiImageRefused) as err:  # through VLMEvalKit's own inference path
        _infer(first_image_model(), ds, tmp_path)
    msg = str(err.value)
    assert "ambi_illusionvqa_comprehension_4shot" in msg and f"record id={rid!r}" in msg
    assert "5 images" in msg and "FirstImage" in msg and "INTERLEAVE = False" in msg


def test_a_real_vlmevalkit_class_without_interleave_is_refused_before_it_answers(classes, tmp_path, illusionvqa):
    from vlmeval.vlm import PandaGPT

    assert PandaGPT.INTERLEAVE is False
    model = PandaGPT.__new__(PandaGPT)  # no weights: the refusal comes before generate
    ds = vd.build_dataset("ambi_illusionvqa_soft_localization_4shot")
    with pytest.raises(MultiImageRefused, match=r"ambi_illusionvqa_soft_localization_4shot.*class PandaGPT"):
        _infer(model, ds, tmp_path)


def test_one_image_items_still_reach_a_model_without_interleave(classes, tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_SYNTH_N", "2")
    ds = vd.build_dataset("ambi_synth_geometric_tf")
    with pytest.warns(UserWarning, match="does not support interleaved input"):  # VLMEvalKit's one-image path
        _infer(first_image_model(), ds, tmp_path)
    pred = pd.read_excel(next((tmp_path / "work").glob("m_ambi_synth_geometric_tf.xlsx")))
    want = [ds.build_prompt(ds.data.iloc[i])[0]["value"] for i in range(len(ds))]
    assert list(pred["prediction"]) == want  # the item's one image, as VLMEvalKit passes it


def test_interleaving_models_get_every_image(classes, tmp_path, illusionvqa):
    from vlmeval.vlm.base import BaseModel

    class Counting(BaseModel):
        INTERLEAVE = True

        def generate_inner(self, message, dataset=None):
            return str(sum(m["type"] == "image" for m in message))

    ds = vd.build_dataset("ambi_illusionvqa_comprehension_4shot")
    _infer(Counting(), ds, tmp_path)
    pred = pd.read_excel(next((tmp_path / "work").glob("m_ambi_illusionvqa_comprehension_4shot.xlsx")))
    assert list(pred["prediction"]) == [5, 5]


# -- per-model prompt settings ---------------------------------------------------------------------------
def test_prompt_model_selects_the_yaml_entry_and_scores_in_its_coordinates(classes, tmp_path):
    from ambi_plugin.core.coords import from_original_pixels

    task = "ambibench_multiscene_localization"
    qwen = vd.build_dataset(task, prompt_model="qwen2_5_vl")
    plain = vd.build_dataset(task)
    entry = qwen.AMBI_TASK.prompt_kwargs["qwen2_5_vl"]
    assert qwen.prompt_kwargs() == entry and plain.prompt_kwargs() == qwen.AMBI_TASK.prompt_kwargs["default"]
    moved = vd.build_dataset(task, prompt_model="qwen2_5_vl", prompt_settings={"max_pixels": 200704})
    assert moved.prompt_kwargs() == {**entry, "max_pixels": 200704}
    assert vd.build_dataset(task, prompt_model="llava").prompt_kwargs() == plain.prompt_kwargs()  # no entry

    records = [json.loads(d["record"]) for d in qwen.docs]
    answers = [
        "[" + ", ".join("({:.0f}, {:.0f}, {:.0f}, {:.0f})".format(*from_original_pixels(b["box"], {**r, **entry}))
                        for b in r["boxes"]) + "]"
        for r in records
    ]  # fmt: skip
    pred = tmp_path / "m_loc.xlsx"
    pd.DataFrame({"index": list(range(len(answers))), "prediction": answers}).to_excel(pred, index=False)
    assert qwen.evaluate(str(pred))["hit_rate"] == 1.0
    score = json.loads((tmp_path / "m_loc_score.json").read_text())
    assert score["prompt_entry"] == "qwen2_5_vl" and score["model_settings"]["box_format"] == "qwen_resized"
    assert plain.evaluate(str(pred))["hit_rate"] < 1.0  # the same numbers read as original pixels


def test_prompt_settings_outside_the_scoring_settings_are_refused(classes):
    from ambi_plugin.vlmeval.prompt_model import PromptModelError

    with pytest.raises(PromptModelError, match=r"task ambibench_multiscene_localization: prompt_settings.*prompt"):
        vd.build_dataset(
            "ambibench_multiscene_localization", prompt_model="qwen2_5_vl", prompt_settings={"prompt": "x"}
        )
