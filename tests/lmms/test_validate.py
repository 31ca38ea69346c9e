"""Every task YAML of ours loads through lmms-eval's own task config and declares the right metrics."""

from __future__ import annotations

import pytest

from ambi_plugin.lmms.validate import validate_tasks
from ambi_plugin.runtime.breakdown import fields_of, make_process_results
from ambi_plugin.runtime.taskindex import TaskYamlError, index, load_yaml


def test_every_yaml_validates_through_lmms_eval():
    assert validate_tasks(load=True) == []


def test_breakdown_function_names():
    assert fields_of("by_image_category_and_difficulty") == ("image_category", "difficulty")
    with pytest.raises(AttributeError):
        fields_of("image_category")
    fn = make_process_results(("difficulty",))
    assert fn.breakdown_fields == ("difficulty",)


def test_malformed_yaml_names_the_file(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("task: [unclosed\n")
    with pytest.raises(TaskYamlError, match="broken.yaml"):
        load_yaml(bad)
    (tmp_path / "a.yaml").write_text("task: same\n")
    (tmp_path / "b.yaml").write_text("task: same\n")
    bad.unlink()
    with pytest.raises(TaskYamlError, match="also defined"):
        index(tmp_path)
