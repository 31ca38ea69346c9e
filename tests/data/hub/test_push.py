"""ambi push through the real ``huggingface_hub.HfApi`` against a loopback Hub (``HF_ENDPOINT``): the exact files and
card it uploads, and no token in any output, with every logger at DEBUG and huggingface_hub's request dumps on.

Each push runs ``ambi push`` in a fresh process, configured the way a user configures the client: ``HF_ENDPOINT``
(the loopback Hub of ``hf_loopback.py``), ``HF_TOKEN``, ``HF_DEBUG=1``. Two upload paths of huggingface_hub 2.4
are exercised: with ``hf_xet`` installed (the default) ``upload_folder`` takes its pipelined path, and the Hub
answers "regular" for every file (inline in the commit: the loopback Hub does not speak the Xet storage protocol);
with ``HF_HUB_DISABLE_XET=1`` it takes the single-commit path and the parquet shards go through the LFS batch API.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hf_loopback import LoopbackHub

from ambi_plugin.cli import main

TOKEN = "hf_ambiTestTokenThatMustNeverAppear0123456789"
REPO = "someone/illusionbench-ambi"
GONE = "data/illusionbench_gone/test-00000-of-00001.parquet"  # a shard of an earlier push
# `ambi` with every logger at DEBUG (ambi_plugin.push, huggingface_hub, httpx, httpcore) on stderr
RUNNER = (
    "import logging, sys; logging.basicConfig(level=logging.DEBUG); "
    "from ambi_plugin.cli import main; raise SystemExit(main(sys.argv[1:]))"
)
PATHS = {
    "xet-regular": {"lfs_suffixes": (), "env": {}},
    "lfs": {"lfs_suffixes": (".parquet",), "env": {"HF_HUB_DISABLE_XET": "1"}},
}


def ambi(args: list[str], hub: LoopbackHub, home: Path, **env: str) -> subprocess.CompletedProcess:
    full = {
        **os.environ,
        "HF_ENDPOINT": hub.endpoint,
        "HF_HUB_OFFLINE": "0",  # the only endpoint is the loopback Hub
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "HF_DEBUG": "1",  # huggingface_hub logs every request as a curl command
        "HF_HUB_VERBOSITY": "debug",
        "HF_HOME": str(home),  # no stored login: the token is HF_TOKEN's or none
        **env,
    }
    return subprocess.run([sys.executable, "-c", RUNNER, *args], env=full, capture_output=True, text=True, timeout=300)


def files_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("path", sorted(PATHS))
def test_push_uploads_exactly_the_push_folder_with_the_card(path, data_root, tmp_path):
    folder = tmp_path / "built"
    shutil.copytree(data_root / "illusionbench", folder)
    (folder / "notes.txt").write_text("a stray file that must not be uploaded")
    assert main(["push", str(folder), "--to-folder", str(tmp_path / "dir2")]) == 0
    local = files_of(tmp_path / "dir2")
    with LoopbackHub(lfs_suffixes=PATHS[path]["lfs_suffixes"], token=TOKEN) as hub:
        run = ambi(["push", str(folder), "--repo", REPO, "--private"], hub, tmp_path / "hf",
                   HF_TOKEN=TOKEN, **PATHS[path]["env"])  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]
        repo = hub.repos[("dataset", REPO)]
        sent = {k: v for k, v in repo.files.items() if k != ".gitattributes"}
        # the second push of a rebuilt folder: shards the new build no longer has are deleted on the Hub
        repo.files[GONE] = b"PAR1 an old shard"
        again = ambi(["push", str(folder), "--repo", REPO], hub, tmp_path / "hf", HF_TOKEN=TOKEN, **PATHS[path]["env"])
        assert again.returncode == 0, again.stderr[-3000:]
    assert repo.private and sent == local and "notes.txt" not in sent
    assert {"README.md", "build_info.json"} <= set(local) and any(k.startswith("data/") for k in local)
    assert sent["README.md"] == (data_root / "illusionbench" / "README.md").read_bytes()  # the card, as built
    parquet = {k for k in local if k.endswith(".parquet")}
    assert repo.lfs_paths == (parquet if path == "lfs" else set())
    assert GONE not in repo.files
    assert {k: v for k, v in repo.files.items() if k != ".gitattributes"} == local
    assert len(repo.commits) == 2 and repo.commits[1]["changes"] == [GONE]
    # the token reached the Hub's API on every request; never the storage the LFS batch API points to ...
    storage = [r for r in hub.requests if r.path.startswith("/lfs-upload/")]
    assert [r.method for r in storage] == (["PUT"] * len(parquet) if path == "lfs" else [])
    assert all(r.authorization is None for r in storage)
    api = [r for r in hub.requests if not r.path.startswith("/lfs-upload/")]
    assert {r.authorization for r in api} == {f"Bearer {TOKEN}"}, hub.requests
    # ... and nowhere else: not in the output, not in any log line, though the requests were logged in full
    output = run.stdout + run.stderr + again.stdout + again.stderr
    assert "curl -X POST" in output and f"{hub.endpoint}/api/repos/create" in output and "<TOKEN>" in output
    assert f"to dataset repo {REPO} (private=True)" in output  # ambi's own log line
    assert TOKEN not in output
    assert f"pushed {folder} to the dataset repo {REPO}: {hub.endpoint}/datasets/{REPO}/commit/" in run.stdout


def test_push_without_a_token_says_what_to_do(data_root, tmp_path):
    with LoopbackHub() as hub:
        run = ambi(["push", str(data_root / "ambi_synth"), "--repo", "someone/x"], hub, tmp_path / "hf", HF_TOKEN="")
    assert run.returncode == 2 and "HF_TOKEN" in run.stderr and "Traceback" not in run.stderr
    assert hub.requests == []


def test_push_refuses_an_invalid_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    with LoopbackHub() as hub:
        run = ambi(["push", str(tmp_path / "empty"), "--repo", "someone/x"], hub, tmp_path / "hf", HF_TOKEN=TOKEN)
    assert run.returncode == 2 and "does not validate" in run.stderr and hub.requests == []
    assert TOKEN not in run.stdout + run.stderr
