"""One-to-one matching: can every left item be given its own right item? (Kuhn's augmenting paths.)

Used where a paper asks for a one-to-one match: AmbiBench's set match (every gold concept matched to a distinct
predicted term, ``core/matching.py``) and the per-image localization hit (every ground-truth box matched by its own
predicted box, ``core/metrics.py``).
"""

from __future__ import annotations

from collections.abc import Sequence


def every_left_matched(edges: Sequence[Sequence[int]]) -> bool:
    """``edges[i]`` lists the right items left item ``i`` may take; True when a matching covers every left item
    (each right item used at most once). No left items: True."""
    owner: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in range(len(edges)))
