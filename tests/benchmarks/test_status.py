"""``ambi data``: what is available locally or in the HF cache, and the command that fetches the rest."""

from __future__ import annotations

from published_layouts import hub_cache

from ambi_plugin.benchmarks.status import HUB_SOURCES, status
from ambi_plugin.cli import main


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
    assert "ambibench: available" in out and "BLNL/AmbiBench: in the HF cache" in out
    assert "illusionbench: missing" in out and "does not exist" in out
    for repo in HUB_SOURCES["illusionvqa"]:
        assert f"fetch: huggingface-cli download {repo} --repo-type dataset" in out
