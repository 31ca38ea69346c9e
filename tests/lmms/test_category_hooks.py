"""Joining a group of ours by ``metadata.join_groups`` and derived metrics, against lmms-eval's own TaskManager."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.lmms.new_category import scaffold


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    from lmms_eval.tasks import TaskManager

    from ambi_plugin.lmms.discovery import install_hooks

    assert install_hooks()
    yamls = tmp_path_factory.mktemp("my_tasks")
    scaffold(benchmark="ambibench", category="ducks", task_type="open", prompt="Name them.", views="near,far",
             group="ambibench_all", yaml_dir=yamls, data_dir=yamls.parent / "records")  # fmt: skip
    # a task that asks to join a group that is not ours: nothing happens to that group
    (yamls / "mine_mmbench.yaml").write_text(
        (yamls / "ambibench_ducks_open.yaml").read_text()
        .replace("task: ambibench_ducks_open", "task: mine_joins_mmbench")
        .replace('"join_groups": ["ambibench_all"]', '"join_groups": ["mmbench", "ambibench_color"]')
    )  # fmt: skip
    return TaskManager(include_path=str(yamls))


def test_a_task_declaring_the_key_joins_our_group(manager):
    members = manager._get_config("ambibench_all")["task"]
    assert members[-1:] == ["ambibench_ducks_open"] and "ambibench_color" in members
    assert manager._get_config("ambibench_color")["task"] == ["ambibench_color_open", "mine_joins_mmbench"]


def test_groups_that_are_not_ours_are_untouched(manager):
    from lmms_eval import utils

    path = manager.task_index["mmbench"]["yaml_path"]
    assert manager._get_config("mmbench") == utils.load_yaml_config(path, mode="full")
    assert "mine_joins_mmbench" not in json.dumps(manager._get_config("mmbench"), default=str)


def test_scaffold_refuses_an_unknown_group_and_overwrites_nothing(tmp_path):
    with pytest.raises(ValueError, match="unknown group 'ambibench_everything'.*ambibench_all"):
        scaffold(benchmark="ambibench", category="x", task_type="open", prompt="p", group="ambibench_everything",
                 yaml_dir=tmp_path, data_dir=tmp_path)  # fmt: skip
    kw = {"benchmark": "mine", "category": "x", "task_type": "choice", "yaml_dir": tmp_path, "data_dir": tmp_path / "d"}
    yaml_path, records = scaffold(prompt="{question}\n{options}", **kw)
    assert json.loads(records.read_text())["options"] and "_templates/_choice" in yaml_path.read_text()
    with pytest.raises(FileExistsError):
        scaffold(prompt="again", **kw)
    assert "again" not in yaml_path.read_text()
