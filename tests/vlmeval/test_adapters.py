"""The harness-neutral parts of the VLMEvalKit adapters: specs, judge mapping, launcher arguments, TSV export."""

from __future__ import annotations

import base64
import io
import json
import math

import pandas as pd
import pytest
from PIL import Image

from ambi_plugin.data.taskdocs import read_docs
from ambi_plugin.runtime import hooks
from ambi_plugin.runtime.task import all_tasks, clean_response, clt_stderr
from ambi_plugin.runtime.taskindex import expand_groups, expand_tasks, index
from ambi_plugin.vlmeval.judges import settings_overrides
from ambi_plugin.vlmeval.launcher import expand_data_args
from ambi_plugin.vlmeval.tsv import export_tsv


def test_every_task_yaml_gives_a_spec_with_its_metrics_and_prompt():
    idx = index()
    specs = all_tasks()
    assert sorted(specs) == sorted(n for n, i in idx.items() if i.kind == "task")
    for name, spec in specs.items():
        cfg = idx[name].config
        assert [m.name for m in spec.metrics] == [m["metric"] for m in cfg["metric_list"]]
        assert spec.prompt_kwargs_for(None) == cfg["lmms_eval_specific_kwargs"]["default"]
        assert spec.interleaved == ("doc_to_messages" in cfg)


def test_groups_in_data_arguments_become_their_tasks():
    members = index()["ambi_synth_all"].members
    argv = expand_data_args(["--data", "ambi_synth_all", "MMBench_DEV_EN", "--model", "m", "--data=ambi_synth_region"])
    assert argv == ["--data", *members, "MMBench_DEV_EN", "--model", "m", "--data", "ambi_synth_region"]


def test_one_group_expander_for_both_harnesses_and_the_replay_tools():
    idx = index()
    members = idx["ambi_synth_all"].members
    assert expand_groups("ambi_synth_all, ambi_synth_region") == members  # each task once, in order
    assert [i.name for i in expand_tasks(["ambi_synth_all"])] == members
    assert expand_tasks("ambi_synth_region") == [idx["ambi_synth_region"]]
    assert expand_groups(["MMBench_DEV_EN", "ambi_synth_all"], keep_unknown=True) == ["MMBench_DEV_EN", *members]
    with pytest.raises(KeyError, match="did you mean ambi_synth_region"):
        expand_groups(["ambi_synth_regio"])


@pytest.mark.parametrize(
    ("judge_kwargs", "want"),
    [
        ({"nproc": 4, "retry": 3, "timeout": 600, "verbose": False}, {}),  # no --judge: our configured judge
        ({"model": "exact_matching", "nproc": 4}, {"backend": "offline", "embeddings": False}),
        ({"model": "offline"}, {"backend": "offline"}),
        (
            {"model": "gpt-4o-mini", "api_base": "http://h:8000/v1/chat/completions", "key": "k", "nproc": 2, "retry": 1},
            {"backend": "openai", "model": "gpt-4o-mini", "base_url": "http://h:8000/v1", "api_key": "k",
             "max_concurrency": 2, "retries": 1},
        ),
        ({"model": "/models/q", "backend": "hf", "rounds": 3}, {"backend": "hf", "model": "/models/q", "rounds": 3}),
    ],
)  # fmt: skip
def test_vlmevalkit_judge_arguments_map_onto_our_judge(judge_kwargs, want, monkeypatch):
    monkeypatch.delenv("LOCAL_LLM", raising=False)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    assert settings_overrides(judge_kwargs) == want


def test_local_llm_names_the_judge_model(monkeypatch):
    monkeypatch.setenv("LOCAL_LLM", "Qwen3-8B")
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:23333/v1/chat/completions")
    got = settings_overrides({"model": "gpt-4o-mini"})
    assert got["model"] == "Qwen3-8B" and got["base_url"] == "http://127.0.0.1:23333/v1"


def test_exact_matching_scores_open_answers_without_embeddings(monkeypatch):
    from ambi_plugin.vlmeval.judges import judge_for

    info = judge_for({"model": "exact_matching"}).info()
    assert info["backend"] == "offline" and info["settings"]["embeddings"] is False


def test_an_evaluation_hands_its_judge_in_and_installs_none_for_the_process(monkeypatch, tmp_path):
    """`--judge exact_matching`: the dataset's evaluation scores every item with that judge, handed in through a run
    state of its own; the process's judge is never replaced by it (not even while it scores)."""
    import pandas as pd
    import vlmeval.dataset as vd

    from ambi_plugin import judge as judge_layer
    from ambi_plugin.runtime.run_state import current
    from ambi_plugin.runtime.task import Task
    from ambi_plugin.vlmeval import register

    monkeypatch.setenv("AMBI_SYNTH_N", "2")
    register()
    dataset = vd.build_dataset("ambi_synth_geometric_tf")
    process = dataset.AMBI_TASK.process_function()
    seen = []

    def spy(doc, results):
        seen.append((current().judge_for(), judge_layer.current_judge()))
        return process(doc, results)

    monkeypatch.setattr(Task, "process_function", lambda self: spy)
    monkeypatch.setattr(judge_layer, "_judge", None)
    pred = tmp_path / "m_judge.xlsx"
    gold = [str(a) for a in dataset.data["answer"]]
    pd.DataFrame({"index": range(len(gold)), "prediction": gold}).to_excel(pred, index=False)
    dataset.evaluate(str(pred), model="exact_matching")
    assert len(seen) == len(gold)
    handed = {id(j) for j, _ in seen}
    assert len(handed) == 1 and all(installed is None for _, installed in seen)
    info = json.loads((tmp_path / "m_judge_score.json").read_text())["judge"]
    assert info["backend"] == "offline" and info["settings"]["embeddings"] is False
    assert seen[0][0].info() == info and judge_layer.current_judge() is None


def test_responses_are_cleaned_like_lmms_eval_and_clt_stderr_matches_its_formula():
    assert clean_response(None) == "" and clean_response(float("nan")) == "" and clean_response(" B \n") == "B"
    items = [{"score": 2}, {"score": 0}, {"score": 1}, {"other": 5}]
    assert clt_stderr(items) == pytest.approx(1.0 / math.sqrt(3))
    assert clt_stderr([{"score": 1}]) is None and clt_stderr([{"x": 1}, {"x": 2}]) is None


def test_score_task_uses_the_yaml_breakdown_hook(monkeypatch):
    monkeypatch.setenv("AMBI_SYNTH_N", "3")
    spec = all_tasks()["ambi_synth_geometric_tf"]
    docs = read_docs(spec)
    gold = [hooks.doc_to_target(d) for d in docs]
    scores = spec.evaluate(docs, gold)
    assert scores.metrics["acc"] == 1.0 and scores.metrics["unparsed_rate"] == 0.0
    assert {"acc_easy", "fp_ratio_trap"} <= set(scores.metrics)
    garbage = spec.evaluate(docs, ["???"] * len(docs))
    assert garbage.metrics["acc"] == 0.0 and garbage.metrics["unparsed_rate"] == 1.0


def test_export_tsv_writes_lmudata_rows_with_our_prompts_and_pixels(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_SYNTH_N", "2")
    written = export_tsv("ambi_synth_region,ambi_synth_geometric_mc", tmp_path)
    assert [w.path.name for w in written] == ["ambi_synth_region.tsv", "ambi_synth_geometric_mc.tsv"]
    spec = all_tasks()["ambi_synth_region"]
    docs = read_docs(spec)
    table = pd.read_csv(tmp_path / "ambi_synth_region.tsv", sep="\t")
    kwargs = spec.prompt_kwargs_for(None)
    assert list(table["question"]) == [hooks.doc_to_text(d, kwargs) for d in docs]
    assert list(table["answer"]) == [hooks.doc_to_target(d) for d in docs]
    assert [json.loads(r)["id"] for r in table["record"]] == [json.loads(d["record"])["id"] for d in docs]
    image = Image.open(io.BytesIO(base64.b64decode(table["image"][0])))
    assert image.tobytes() == hooks.doc_to_visual(docs[0], kwargs)[0].tobytes()


def test_export_tsv_names_what_it_does_not_know(tmp_path):
    with pytest.raises(ValueError, match="ambi_synth, ambibench"):
        export_tsv("ambi_synthh", tmp_path)


def test_missing_scores_reads_models_and_datasets_of_a_config_json(tmp_path, monkeypatch):
    import time

    from ambi_plugin.vlmeval import register
    from ambi_plugin.vlmeval.launcher import missing_scores

    register()
    monkeypatch.delenv("MMEVAL_ROOT", raising=False)
    config = tmp_path / "run.json"
    config.write_text(json.dumps({
        "model": {"m1": {"class": "AmbiReplayVLM"}, "m2": {"class": "AmbiReplayVLM"}},
        "data": {"ambi_synth_geometric_tf": {"class": "AmbiSynthGeometricTf"},
                 "renamed_task": {"class": "AmbiSynthRegion"},
                 "MMBench_DEV_EN": {"class": "ImageMCQDataset"}},
    }))  # fmt: skip
    work = tmp_path / "out"
    argv = ["--config", str(config), "--work-dir", str(work)]
    start = time.time() - 1
    assert missing_scores(argv, since=start) == [
        "m1 x ambi_synth_geometric_tf", "m1 x renamed_task", "m2 x ambi_synth_geometric_tf", "m2 x renamed_task"]  # fmt: skip
    for model, name in (("m1", "ambi_synth_geometric_tf"), ("m1", "renamed_task"), ("m2", "renamed_task")):
        (work / model).mkdir(parents=True, exist_ok=True)
        (work / model / f"{model}_{name}_score.json").write_text("{}")
    assert missing_scores(argv, since=start) == ["m2 x ambi_synth_geometric_tf"]
    assert missing_scores(argv, since=time.time() + 10) == [  # files older than the run do not count
        "m1 x ambi_synth_geometric_tf", "m1 x renamed_task", "m2 x ambi_synth_geometric_tf", "m2 x renamed_task"]  # fmt: skip


def test_well_known_vlmevalkit_models_map_to_lmms_eval_entries():
    from ambi_plugin.vlmeval import register
    from ambi_plugin.vlmeval.prompt_model import for_model, lmms_key

    register()
    assert for_model("Qwen2.5-VL-7B-Instruct") == (
        "qwen2_5_vl",
        {"min_pixels": 1280 * 28 * 28, "max_pixels": 16384 * 28 * 28},
    )  # its supported_VLM kwargs
    assert for_model("InternVL3-8B") == ("internvl3", {})
    assert for_model("InternVL3_5-8B") == ("internvl3_5", {})
    assert for_model("Qwen3-VL-8B-Instruct") == ("qwen3_vl", {})
    assert for_model("llava_v1.5_7b") == (None, {})  # no entry: the YAML's default, as in lmms-eval
    assert lmms_key("mine", "/models/Qwen2.5-VL-3B-Instruct") == "qwen2_5_vl"  # a config entry's model_path
    config = {"q": {"class": "Qwen2VLChat", "model_path": "Qwen/Qwen2.5-VL-3B-Instruct", "max_pixels": 1003520}}
    assert for_model("q", config) == ("qwen2_5_vl", {"min_pixels": 3136, "max_pixels": 1003520})  # qwen_vl_utils'
    assert for_model("r", {"r": {"class": "AmbiReplayVLM", "model_path": "Qwen2.5-VL"}}) == ("qwen2_5_vl", {})


def test_launcher_applies_one_entry_and_refuses_models_that_need_different_ones(tmp_path):
    from ambi_plugin.vlmeval import register
    from ambi_plugin.vlmeval.launcher import choose_prompt_model
    from ambi_plugin.vlmeval.prompt_model import PromptModelError

    register()
    loc = ["--data", "ambibench_multiscene_localization", "ambi_synth_geometric_tf"]
    key, settings = choose_prompt_model([*loc, "--model", "Qwen2.5-VL-7B-Instruct"])
    assert key == "qwen2_5_vl" and settings["max_pixels"] == 16384 * 28 * 28
    assert choose_prompt_model([*loc, "--model", "InternVL3-8B", "InternVL3-2B"]) == ("internvl3", {})
    with pytest.raises(PromptModelError, match=r"InternVL3-8B -> internvl3.*ambibench_multiscene_localization"):
        choose_prompt_model([*loc, "--model", "Qwen2.5-VL-7B-Instruct", "InternVL3-8B"])
    # tasks without per-model entries: any mix of models runs, with the default entry
    assert choose_prompt_model(["--data", "ambi_synth_geometric_tf", "--model", "Qwen2.5-VL-7B-Instruct",
                                "InternVL3-8B"]) == (None, {})  # fmt: skip
    config = tmp_path / "c.json"
    config.write_text(json.dumps({
        "model": {"Qwen2.5-VL-7B-Instruct": {}, "InternVL3-8B": {}},
        "data": {"ambibench_multiscene_localization": {"class": "AmbibenchMultisceneLocalization",
                                                       "prompt_model": "internvl3"}},
    }))  # fmt: skip
    assert choose_prompt_model(["--config", str(config)]) == (None, {})  # the dataset names its entry itself


def test_register_refuses_a_name_that_is_not_ours():
    from ambi_plugin.vlmeval import register
    from ambi_plugin.vlmeval.registry import RegistrationError

    with pytest.raises(RegistrationError, match=r"'ambi_synth_geometric_tff'.*Did you mean ambi_synth_geometric_tf"):
        register(tasks=["ambi_synth_geometric_tff"])
    assert sorted(register(tasks=["ambi_synth_all"])) == sorted(index()["ambi_synth_all"].members)


def test_launcher_asks_for_json_only_for_runs_of_ours_and_leaves_a_set_format_alone(tmp_path, monkeypatch):
    import os

    from ambi_plugin.vlmeval import register
    from ambi_plugin.vlmeval.launcher import choose_pred_format

    register()

    def chosen(argv: list[str]) -> tuple[str, str]:
        monkeypatch.setenv("PRED_FORMAT", "")  # unset for VLMEvalKit (and restored after the test)
        said = choose_pred_format(argv)
        return os.environ["PRED_FORMAT"], said

    fmt, said = chosen(["--data", "ambi_synth_geometric_tf", "--model", "m"])
    assert fmt == "json" and "prediction files in json" in said
    fmt, said = chosen(["--data", "ambi_synth_geometric_tf", "MMBench_DEV_EN", "--model", "m"])
    assert fmt == ""  # VLMEvalKit's own datasets in the run: VLMEvalKit's default is kept
    assert "xlsx" in said and "MMBench_DEV_EN" in said and "damaged_answers" in said
    fmt, said = chosen(["--data", "MMBench_DEV_EN", "--model", "m"])
    assert fmt == "" and "no dataset of ours" in said
    config = tmp_path / "run.json"
    config.write_text(json.dumps({"model": {"m": {}}, "data": {"renamed": {"class": "AmbiSynthRegion"}}}))
    assert chosen(["--config", str(config)])[0] == "json"
    monkeypatch.setenv("PRED_FORMAT", "XLSX")
    assert (
        choose_pred_format(["--data", "ambi_synth_geometric_tf"]) == "prediction files in xlsx (PRED_FORMAT set by you)"
    )
    assert os.environ["PRED_FORMAT"] == "XLSX"
