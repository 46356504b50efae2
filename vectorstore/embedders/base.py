"""The one interface every embedding backend implements: embed a batch of texts."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

__all__ = ["Embedder"]


class Embedder(ABC):
    """Turns texts into unit-length vectors. Backends implement `embed_batch`; the rest is built on it."""

    name: str = ""
    dimension: int = 0
    batch_size: int = 64

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed one batch: an array of shape (len(texts), dimension), float32."""

    @property
    def fingerprint(self) -> str:
        """Identifies the model and its settings; stored with every collection built with it."""
        return f"{self.name}:{self.dimension}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed any number of texts in length-sorted batches, returned in input order, L2-normalised."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            out[batch] = self.embed_batch([texts[i] for i in batch])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def embed_query(self, text: str) -> np.ndarray:
        """One text's unit vector."""
        return self.embed([text])[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
