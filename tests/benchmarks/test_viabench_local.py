"""VIA-Bench's public challenge split as downloaded, pointed at with AMBI_VIABENCH_DIR: read once, with a load report."""

from __future__ import annotations

from ambi_plugin.benchmarks import viabench as VB
from ambi_plugin.benchmarks.release import read_report
from ambi_plugin.core.schema import read_records


def test_the_challenge_folder_as_downloaded_is_a_local_copy(shared_data, monkeypatch, tmp_path):
    from ambi_plugin.data.sources import source_root

    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "none.yaml"))
    monkeypatch.setenv("AMBI_VIABENCH_DIR", str(shared_data / "via_bench_val"))
    root = source_root("ambi://viabench")
    assert root == VB.materialize_local(shared_data / "via_bench_val")  # converted once
    recs = read_records(root / "viabench_val.jsonl")
    assert len(recs) == 249
    report = read_report(root)
    assert report["rows_read"] == 249 and report["skipped_total"] == 0
    assert report["records"]["ambi_viabench_val"] == 249
    assert VB.materialize_local(root) == root  # canonical records are used as they are
