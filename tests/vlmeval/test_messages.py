"""Messages built from a task YAML's own hooks: a benchmark with doc_to_* functions of its own (VIA-Bench has
a system prompt and a blind variant) needs no code in the VLMEvalKit adapter."""

from __future__ import annotations

import dataclasses

import pytest

from ambi_plugin.data.taskdocs import read_docs
from ambi_plugin.runtime import hooks
from ambi_plugin.runtime.task import TaskPrompt, all_tasks
from ambi_plugin.vlmeval.messages import MessageError, build

HELPERS = "vlmeval_run"


def _custom(monkeypatch, **kwargs) -> tuple[TaskPrompt, dict]:
    monkeypatch.setenv("AMBI_SYNTH_N", "2")
    base = all_tasks()["ambi_synth_geometric_letter"]
    spec = dataclasses.replace(
        base,
        interleaved=True,
        hooks={
            **base.hooks,
            "doc_to_visual": f"{HELPERS}.custom_visual",
            "doc_to_messages": f"{HELPERS}.custom_messages",
        },
        prompt_kwargs={"default": {**base.prompt_kwargs["default"], **kwargs}},
    )
    return spec.prompt(), read_docs(spec)[0]


def test_a_system_turn_leads_the_message(monkeypatch):
    task, doc = _custom(monkeypatch, system_prompt="You are careful.")
    msg = build(task, doc)
    assert msg[0] == {"type": "text", "value": "You are careful."}
    assert [m["type"] for m in msg] == ["text", "image", "text"]
    assert msg[-1]["value"] == hooks.doc_to_text(doc, task.kwargs)


def test_a_blind_variant_sends_text_only(monkeypatch):
    task, doc = _custom(monkeypatch, blind=True)
    assert task.visuals(doc) == []
    assert [m["type"] for m in build(task, doc)] == ["text"]


def test_several_rounds_are_refused_naming_task_and_record(monkeypatch):
    task, doc = _custom(monkeypatch, two_rounds=True)
    with pytest.raises(MessageError, match=r"ambi_synth_geometric_letter, record id=.*'assistant'"):
        build(task, doc)
