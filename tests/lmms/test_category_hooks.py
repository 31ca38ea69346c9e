"""Joining a group of ours by ``metadata.join_groups`` and derived metrics, against lmms-eval's own TaskManager."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.runtime.new_category import scaffold


@pytest.fixture(scope="module")
def manager(tmp_path_factory):
    from lmms_eval.tasks import TaskManager

    from ambi_plugin.lmms.patches import install_hooks

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
    # a task that names a group and a group nested in it: it joins the inner one only (once in ambibench_all)
    (yamls / "mine_both.yaml").write_text(
        (yamls / "ambibench_ducks_open.yaml").read_text()
        .replace("task: ambibench_ducks_open", "task: mine_joins_both")
        .replace('"join_groups": ["ambibench_all"]', '"join_groups": ["ambibench_all", "ambibench_hybrid"]')
    )  # fmt: skip
    return TaskManager(include_path=str(yamls))


def test_a_task_declaring_the_key_joins_our_group(manager):
    members = manager._get_config("ambibench_all")["task"]
    assert members[-1:] == ["ambibench_ducks_open"] and "ambibench_color" in members
    assert manager._get_config("ambibench_color")["task"] == ["ambibench_color_open", "mine_joins_mmbench"]


def test_a_task_naming_a_group_and_its_subgroup_joins_the_inner_one_only(manager):
    assert "mine_joins_both" not in manager._get_config("ambibench_all")["task"]
    assert manager._get_config("ambibench_hybrid")["task"][-1] == "mine_joins_both"


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


def _ambi_on_a_terminal(args: list[str], typed: str, cwd) -> tuple[int, str]:
    """Run ``ambi ARGS`` with a pseudo-terminal as stdin and ``typed`` typed into it; (exit code, stdout+stderr)."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "ambi_plugin.cli", *args], stdin=slave, cwd=cwd,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
        os.close(slave)
        os.write(master, typed.encode())
        out, _ = proc.communicate(timeout=300)
    finally:
        os.close(master)
    return proc.returncode, out


def test_new_category_asks_on_a_terminal_for_what_the_flags_leave_out(tmp_path):
    from ambi_plugin.core.schema import read_records

    args = ["new-category", "--benchmark", "ambibench", "--yaml-dir", "t", "--data-dir", "d"]
    code, out = _ambi_on_a_terminal(args, "ducks\nopen\nName the two animals.\nnear, far\n", tmp_path)
    assert code == 0, out
    asked = [q for q in ("Benchmark", "Category name", "Task type", "Prompt template", "View names") if q in out]
    assert asked == ["Category name", "Task type", "Prompt template", "View names"]  # --benchmark was given
    text = (tmp_path / "t" / "ambibench_ducks_open.yaml").read_text()
    assert "task: ambibench_ducks_open" in text and 'prompt: "Name the two animals."' in text
    assert "_templates/_open" in text and "join_groups" not in text
    (rec,) = read_records(tmp_path / "d" / "ducks.jsonl")
    assert [v["name"] for v in rec["views"]] == ["near", "far"]


def test_new_category_without_a_terminal_names_the_missing_flag(tmp_path):
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "ambi_plugin.cli", "new-category", "--benchmark", "ambibench"],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=tmp_path, timeout=300)  # fmt: skip
    assert run.returncode == 2 and "needs --category" in run.stderr and "Traceback" not in run.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written
