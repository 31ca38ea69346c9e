"""ambi push at the huggingface_hub boundary: the exact files and card it uploads, and no token in any output."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import huggingface_hub
import pytest
from huggingface_hub.utils import filter_repo_objects

from ambi_plugin.cli import main

TOKEN = "hf_ambiTestTokenThatMustNeverAppear0123456789"


class FakeApi:
    """Stands in for ``huggingface_hub.HfApi``: records every call and what an upload would send."""

    instances: list[FakeApi] = []

    def __init__(self, token=None, **kwargs):
        self.token = token
        self.calls: list[tuple[str, dict]] = []
        self.sent: dict[str, bytes] = {}
        FakeApi.instances.append(self)

    def create_repo(self, **kwargs):
        self.calls.append(("create_repo", kwargs))
        return f"https://huggingface.co/datasets/{kwargs['repo_id']}"

    def upload_folder(self, **kwargs):
        self.calls.append(("upload_folder", kwargs))
        root = Path(kwargs["folder_path"])
        files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
        for rel in filter_repo_objects(files, allow_patterns=kwargs.get("allow_patterns")):
            self.sent[rel] = (root / rel).read_bytes()
        return type("CommitInfo", (), {"commit_url": f"https://huggingface.co/datasets/{kwargs['repo_id']}/commit/1"})()


@pytest.fixture
def fake_hub(monkeypatch):
    FakeApi.instances.clear()
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    return FakeApi


def test_push_uploads_exactly_the_push_folder_with_the_card(data_root, tmp_path, fake_hub, capsys, caplog):
    folder = tmp_path / "built"
    shutil.copytree(data_root / "illusionbench", folder)
    (folder / "notes.txt").write_text("a stray file that must not be uploaded")
    caplog.set_level(logging.DEBUG)
    assert main(["push", str(folder), "--repo", "someone/illusionbench-ambi", "--private"]) == 0
    assert main(["push", str(folder), "--to-folder", str(tmp_path / "dir2")]) == 0
    (api,) = fake_hub.instances
    assert api.token == TOKEN
    assert [name for name, _ in api.calls] == ["create_repo", "upload_folder"]
    create, upload = api.calls[0][1], api.calls[1][1]
    assert create == {
        "repo_id": "someone/illusionbench-ambi",
        "repo_type": "dataset",
        "private": True,
        "exist_ok": True,
    }
    assert upload["repo_type"] == "dataset" and upload["repo_id"] == "someone/illusionbench-ambi"
    dir2 = tmp_path / "dir2"
    local = {str(p.relative_to(dir2)): p.read_bytes() for p in dir2.rglob("*") if p.is_file()}
    assert api.sent == local and "notes.txt" not in api.sent
    assert {"README.md", "build_info.json"} <= set(local) and any(k.startswith("data/") for k in local)
    assert api.sent["README.md"] == (data_root / "illusionbench" / "README.md").read_bytes()
    out = capsys.readouterr()
    logs = "\n".join(r.getMessage() for r in caplog.records)
    assert "someone/illusionbench-ambi" in out.out + logs  # the command does talk ...
    assert TOKEN not in out.out + out.err + logs  # ... but never about the token


def test_push_without_a_token_says_what_to_do(data_root, monkeypatch, fake_hub, capsys):
    monkeypatch.delenv("HF_TOKEN")
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    assert main(["push", str(data_root / "ambi_synth"), "--repo", "someone/x"]) == 2
    assert "HF_TOKEN" in capsys.readouterr().err and fake_hub.instances == []


def test_push_refuses_an_invalid_folder(tmp_path, fake_hub, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["push", str(tmp_path / "empty"), "--repo", "someone/x"]) == 2
    assert "does not validate" in capsys.readouterr().err and fake_hub.instances == []
