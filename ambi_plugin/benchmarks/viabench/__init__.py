"""VIA-Bench (Hou et al., 2026, "Seeing Is Believing?"; ``../shared/seeds/003_*``): visual illusions and anomalies.

Multiple-choice questions in six categories (VA, CI, MI, GI, GSI, VI), each with a "Not Sure" option that is
never the answer, scored by two independent protocols reported side by side: **Match** (our regular
expression extracts the final option label) and **Judge** (the configured judge decides which option the
answer chose). Modules:

* :mod:`.spec` — categories, prompts, system prompts (normal, zero-shot CoT, manual CoT), variants, paper rows;
* :mod:`.release` — the public challenge layout (``image_name``, ``Question``, ``option``), the importer,
  and ``materialize_from_hub`` (VIA-Bench has no Hub release: it raises ``DataUnavailableError``);
* :mod:`.match` — the Match regex; :mod:`.scoring` — item scores and metrics;
* :mod:`.variants` — opt-in option permutation and polarity flipping;
* :mod:`.lmms` — the functions the task YAMLs name; :mod:`.runs` — repeated runs to mean and std.

``python -m ambi_plugin.benchmarks.viabench --help`` (also ``ambi viabench``) imports a release, prints
the random baseline and aggregates repeated runs.
"""

from __future__ import annotations

from ambi_plugin.benchmarks.viabench.release import (
    ReadReport,
    import_challenge,
    materialize_from_hub,
    materialize_local,
    parse_challenge_rows,
    read_challenge_json,
)
from ambi_plugin.benchmarks.viabench.scoring import aggregate, random_baseline, score_item
from ambi_plugin.benchmarks.viabench.spec import BENCHMARK, CATEGORIES

__all__ = [
    "BENCHMARK",
    "CATEGORIES",
    "ReadReport",
    "aggregate",
    "import_challenge",
    "materialize_from_hub",
    "materialize_local",
    "parse_challenge_rows",
    "random_baseline",
    "read_challenge_json",
    "score_item",
]
