"""Shared fixtures. Every test runs offline, with its caches in a temporary folder."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/support: helpers that are not the package's

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One cache per test session (per xdist worker), shared with the lmms-eval subprocesses.
if "AMBI_CACHE" not in os.environ:
    os.environ["AMBI_CACHE"] = tempfile.mkdtemp(prefix="ambi-test-cache-")

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture
def offline_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    return env


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = SHARED / "data"
    if not path.is_dir():
        pytest.skip(f"../shared/data is absent (looked in {path}); it holds the real public test data")
    return path


@pytest.fixture(scope="session", autouse=True)
def ambibench_fixtures_dir() -> Path:
    """``ambi://ambibench`` resolves to the generated AmbiBench fixtures in tests (the release is not
    available offline); subprocesses (lmms-eval runs) inherit the variable."""
    from support.ambibench_fixtures import ensure_fixtures

    path = ensure_fixtures()
    os.environ["AMBI_AMBIBENCH_DIR"] = str(path)
    return path


@pytest.fixture
def lmms_eval(offline_env):
    """Run the real lmms-eval CLI; fail the test with its output when it wrote no results JSON."""
    from ambi_plugin.lmms.cli_run import run_lmms_eval

    def run(args, output, *, env=None, timeout=1200, expect_results=True, run_id=None):
        result = run_lmms_eval(args, output=output, env={**offline_env, **(env or {})}, timeout=timeout, run_id=run_id)
        if expect_results and result.results is None:
            pytest.fail(f"lmms-eval wrote no results JSON\n{result.tail()}")
        return result

    return run


@pytest.fixture
def default_judge_provider():
    """Core scoring called directly, with no judge handed in, asks the installed judge provider; importing the judge
    layer installs none (a run hands its judge in, runtime/run_state.py). Tests of core's default install it."""
    from ambi_plugin.core.judging import set_judge_provider
    from ambi_plugin.judge import default_judge_for

    old = set_judge_provider(default_judge_for)
    yield default_judge_for
    set_judge_provider(old)


# A hang or a failure is named at once (tests/support/limits.py): the hooks are this conftest's.
from support.limits import (  # noqa: E402,F401
    pytest_configure,
    pytest_runtest_logreport,
    pytest_runtest_protocol,
    pytest_sessionstart,
)
