"""Sources of every registered benchmark in their published layouts, and one data root with each built."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# the published-layout fixtures live beside the benchmark tests
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

BENCHMARKS = ("ambibench", "illusionbench", "illusionvqa", "ambi_synth", "viabench", "rcid")
# RCID's paper dev split in a copy laid out like the Hub repo (imagefolder reads a `dev` folder as `validation`)
RCID_DEV = (("stripe", "look_like_different", "s1"), ("stripe", "same", "s5"))


def rcid_release(root: Path) -> Path:
    """The RCID fixture as the Hub repo lays it out (``test/<type>/<class>/<file>``, three bad rows), plus a
    ``dev`` split of two images, as a release with the paper's splits would have."""
    import shutil

    from rcid_fixtures import hub_layout

    hub_layout(root)
    for ttype, label, stem in RCID_DEV:
        dst = root / "dev" / ttype / label / f"dev_{stem}.png"
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / "test" / ttype / label / f"{stem}.png", dst)
    return root


@pytest.fixture(scope="session")
def sources(tmp_path_factory, shared_data, ambibench_fixtures_dir) -> dict[str, Path]:
    """{benchmark: its source}: AmbiBench and IllusionBench as their authors publish them, IllusionVQA as the two
    csebuetnlp Hub repos downloaded (first questions of the real release, generated images), the synthetic suite
    as ``ambi synth --out`` writes it, VIA-Bench as a local copy (the real public challenge split imported, plus
    per-category fixtures with answers), RCID as its Hub repo laid out on disk (with bad rows and a dev split)."""
    from illusion_fixtures import illusionvqa_hub_folder
    from published_layouts import ambibench_release, illusionbench_release
    from viabench_fixtures import build_copy

    from ambi_plugin.synth import build_suite

    root = tmp_path_factory.mktemp("sources")
    for task in ("comprehension", "soft_localization"):
        illusionvqa_hub_folder(root / "illusionvqa", shared_data, task, n=6)
    return {
        "ambibench": ambibench_release(ambibench_fixtures_dir, root / "ambibench"),
        "illusionbench": illusionbench_release(root / "illusionbench"),
        "illusionvqa": root / "illusionvqa",
        "ambi_synth": build_suite(root / "synth", seed=0, n=2),
        "viabench": build_copy(root / "viabench", shared_data),
        "rcid": rcid_release(root / "rcid"),
    }


@pytest.fixture(scope="session")
def data_root(tmp_path_factory, sources) -> Path:
    """A data root holding every benchmark built by ``ambi build`` (the CLI)."""
    from ambi_plugin.cli import main

    root = tmp_path_factory.mktemp("data_root")
    for bench in BENCHMARKS:
        code = main(["build", bench, "--source", str(sources[bench]), "--out", str(root / bench), "--quiet"])
        assert code == 0, bench
    return root
