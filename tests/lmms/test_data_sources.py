"""Pointing tasks at data: ``ambi://synth`` reads ``$AMBI_SYNTH_DIR`` (a suite from ``ambi synth --out``) when set."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.data.synth import build_suite
from ambi_plugin.lmms.datasets import DatasetSpecError, resolve_jsonl, source_root


def test_synth_dir_is_read(tmp_path, monkeypatch):
    suite = build_suite(tmp_path / "suite", seed=4, n=2)
    monkeypatch.setenv("AMBI_SYNTH_DIR", str(suite))
    assert source_root("ambi://synth") == suite
    rows = [json.loads(ln) for ln in resolve_jsonl("ambi://synth", "ambi_synth_navon_open").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["navon_open_0000", "navon_open_0001"]
    assert all(json.loads(r["record"])["image"].startswith(str(suite)) for r in rows)


def test_synth_dir_without_a_suite_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("AMBI_SYNTH_DIR", str(tmp_path))
    with pytest.raises(DatasetSpecError, match=r"AMBI_SYNTH_DIR=.*no synthetic suite.*ambi synth --out"):
        source_root("ambi://synth")
