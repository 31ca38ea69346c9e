"""``ambi data``: what is available locally or in the HF cache, and the command that fetches the rest."""

from __future__ import annotations

from published_layouts import hub_cache

from ambi_plugin.cli import main
from ambi_plugin.data.status import HUB_OVERRIDES, HUB_SOURCES, status


def test_ambi_data_reports_cached_local_and_missing(tmp_path, monkeypatch, capsys):
    import huggingface_hub.constants as C

    files = tmp_path / "repo"
    (files / "test").mkdir(parents=True)
    (files / "test" / "metadata.jsonl").write_text("")
    monkeypatch.setattr(C, "HF_HUB_CACHE", str(hub_cache(tmp_path / "hf", "BLNL/AmbiBench", files)))
    monkeypatch.setattr(C, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    for var in ("AMBI_AMBIBENCH_DIR", "AMBI_ILLUSIONVQA_DIR", "AMBI_AMBIBENCH_HUB"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AMBI_ILLUSIONBENCH_DIR", str(tmp_path / "nowhere"))
    assert status("ambibench").available and status("ambibench").cached == {"BLNL/AmbiBench": True}
    ib = status("illusionbench")
    assert not ib.available and ib.local_exists is False
    assert main(["data"]) == 0
    out = capsys.readouterr().out
    # in the HF cache, but its metadata.jsonl holds no row: not usable, and said so (issue 20)
    assert "ambibench: not usable" in out and "BLNL/AmbiBench: in the HF cache" in out
    assert "holds no records for any task of ambibench" in out
    assert "illusionbench: missing" in out and "does not exist" in out
    for repo in HUB_SOURCES["illusionvqa"]:
        assert f"fetch: hf download {repo} --repo-type dataset" in out


def test_ambi_data_names_the_records_a_converted_copy_lacks(tmp_path, monkeypatch, capsys):
    from published_layouts import illusionbench_lmms_copy

    from ambi_plugin.benchmarks.illusionbench import materialize_local

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    copy = illusionbench_lmms_copy(tmp_path / "IllusionBench")
    monkeypatch.setenv("AMBI_ILLUSIONBENCH_DIR", str(copy))
    materialize_local(copy)
    st = status("illusionbench")
    assert st.available and st.records == 15 and st.skipped == 3
    assert "no golden descriptions" in st.absent["illusionbench_description"]
    assert main(["data"]) == 0
    assert "no records: illusionbench_description (its tasks report NaN)" in capsys.readouterr().out


def test_the_fetch_command_is_one_the_installed_hf_cli_accepts():
    """The installed huggingface_hub (2.x) ships only the ``hf`` CLI (no ``huggingface-cli``): the printed command parses."""
    import shlex
    import subprocess
    import sys
    from pathlib import Path

    from ambi_plugin.benchmarks.release import fetch_command

    argv = shlex.split(fetch_command("BLNL/AmbiBench"))
    assert argv[:2] == ["hf", "download"] and "huggingface-cli" not in " ".join(argv)
    hf = Path(sys.executable).with_name("hf")
    assert hf.is_file(), "huggingface_hub's hf CLI is not installed next to this interpreter"
    # --help after the arguments: the CLI parses them (an unknown option or a missing REPO_ID fails) and stops there
    proc = subprocess.run([str(hf), *argv[1:], "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "--repo-type" in proc.stdout
    bad = subprocess.run([str(hf), "download", "--no-such-option", "x", "--help"], capture_output=True, timeout=120)
    assert bad.returncode != 0


def test_ambi_data_check_gives_three_verdicts_and_exit_codes(tmp_path, monkeypatch, capsys):
    """An empty folder, a folder of the wrong layout and a good copy: three different verdicts (issue 20)."""
    from support.ambibench_fixtures import ensure_fixtures

    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    empty, wrong = tmp_path / "empty", tmp_path / "wrong"
    empty.mkdir()
    (wrong / "images").mkdir(parents=True)
    (wrong / "notes.txt").write_text("not a release")
    verdicts = {}
    for name, folder in (("empty", empty), ("wrong", wrong), ("good", ensure_fixtures())):
        monkeypatch.setenv("AMBI_AMBIBENCH_DIR", str(folder))
        rc = main(["data", "--check", "ambibench"])
        verdicts[name] = (rc, capsys.readouterr().out)
    assert verdicts["empty"][0] == 1 and "is not usable: it is empty; expected" in verdicts["empty"][1]
    assert verdicts["wrong"][0] == 1 and "it holds images, notes.txt; expected" in verdicts["wrong"][1]
    assert "metadata.jsonl" in verdicts["wrong"][1]  # the layout the loader reads is named
    rc, out = verdicts["good"]
    assert rc == 0 and "ambibench: available" in out and "records: 65 in 18 task(s)" in out
    assert "ambibench_mixed_region 2" in out
    assert main(["data", "--check", "nosuchbench"]) == 2


def test_a_benchmark_with_only_some_of_its_hub_repos_cached_is_not_available(tmp_path, monkeypatch, capsys):
    """IllusionVQA reads two Hub repos: with only the comprehension one in the HF cache it is missing (the
    soft-localization tasks would have nothing to read), and ``ambi data`` fetches exactly the other one; with
    both cached it is available. A Hub-cache layout in a temporary HF home, nothing else configured."""
    import huggingface_hub.constants as C

    comprehension, soft = HUB_SOURCES["illusionvqa"]
    files = tmp_path / "files"
    (files / "data").mkdir(parents=True)
    (files / "data" / "test-00000-of-00001.parquet").write_bytes(b"PAR1")
    cache = hub_cache(tmp_path / "hf" / "hub", comprehension, files)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setattr(C, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(C, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("AMBI_CACHE", str(tmp_path / "ambi-cache"))
    for var in ("AMBI_ILLUSIONVQA_DIR", "AMBI_DATA_ROOT", *HUB_OVERRIDES["illusionvqa"]):
        monkeypatch.delenv(var, raising=False)

    st = status("illusionvqa")
    assert st.cached == {comprehension: True, soft: False}
    assert not st.available
    assert st.fetch_commands() == [f"hf download {soft} --repo-type dataset"]
    assert main(["data"]) == 0
    out = capsys.readouterr().out
    assert "illusionvqa: missing" in out
    assert f"fetch: hf download {soft} --repo-type dataset" in out
    assert f"fetch: hf download {comprehension} " not in out

    hub_cache(cache, soft, files)  # now both
    st = status("illusionvqa")
    assert st.cached == {comprehension: True, soft: True} and st.available
