"""`minilm`: the bundled all-MiniLM-L6-v2 through sentence-transformers (PyTorch, fp32), fully offline."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vectorstore.embedders.base import Embedder
from vectorstore.embedders.bundled import bundled_minilm_path, files_digest
from vectorstore.embedders.registry import register_embedder

__all__ = ["MiniLMEmbedder"]


@register_embedder("minilm")
class MiniLMEmbedder(Embedder):
    """The bundled all-MiniLM-L6-v2 through sentence-transformers (PyTorch, fp32), fully offline."""

    name = "minilm"
    dimension = 384

    def __init__(self, path: Path | None = None, threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        import torch
        from sentence_transformers import SentenceTransformer

        if threads:
            torch.set_num_threads(threads)
        self.path = path or bundled_minilm_path()
        self.model = SentenceTransformer(str(self.path), device="cpu")
        self._digest = files_digest(self.path)

    @property
    def fingerprint(self) -> str:
        return f"all-MiniLM-L6-v2:torch-fp32:{self._digest}:{self.dimension}"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model.encode(
            list(texts),
            batch_size=len(texts),
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)
