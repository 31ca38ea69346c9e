"""core/bipartite.py: the one-to-one matching behind AmbiBench's set match and the per-image localization hit."""

from __future__ import annotations

import itertools
import random

from ambi_plugin.core.bipartite import every_left_matched


def _brute_force(edges, n_right):
    return any(
        all(p[i] in edges[i] for i in range(len(edges))) for p in itertools.permutations(range(n_right), len(edges))
    )


def test_small_cases():
    assert every_left_matched([])  # nothing to match
    assert every_left_matched([[0], [1]])
    assert not every_left_matched([[0], [0]])  # two left items, one right item they both need
    assert every_left_matched([[0, 1], [0]])  # needs the augmenting path: 0 -> 1, 1 -> 0
    assert not every_left_matched([[]])


def test_agrees_with_brute_force_on_random_graphs():
    rng = random.Random(0)
    for _ in range(400):
        n_left, n_right = rng.randint(1, 5), rng.randint(1, 5)
        edges = [[j for j in range(n_right) if rng.random() < 0.4] for _ in range(n_left)]
        expected = n_left <= n_right and _brute_force(edges, n_right)
        assert every_left_matched(edges) == expected, edges
