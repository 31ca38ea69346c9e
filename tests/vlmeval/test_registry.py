"""register() in process: a class per task in VLMEvalKit's tables, messages built by the lmms-eval hooks."""

from __future__ import annotations

import pytest
import vlmeval.config
import vlmeval.dataset as vd
from PIL import Image

from ambi_plugin.lmms import hooks
from ambi_plugin.vlmeval import register
from ambi_plugin.vlmeval.dataset import AmbiTaskDataset
from ambi_plugin.vlmeval.spec import all_specs


@pytest.fixture(scope="module")
def classes():
    return register()


def test_every_task_yaml_becomes_a_registered_class(classes):
    assert sorted(classes) == sorted(all_specs())
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
    kwargs = ds.AMBI_SPEC.prompt_kwargs_for(None)
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
    kwargs = ds.AMBI_SPEC.prompt_kwargs_for(None)
    assert ds.AMBI_SPEC.interleaved
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
