"""`CachedEmbedder`: any embedder with an on-disk cache of its vectors, keyed by model fingerprint and text.

For evaluations and benches that embed the same corpus again after a retrieval change; not registered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vectorstore.embedders.base import Embedder

__all__ = ["CachedEmbedder"]


class CachedEmbedder(Embedder):
    """Wraps an embedder with a cache file in `folder` (one per model fingerprint); `save()` writes it."""

    def __init__(self, inner: Embedder, folder: Path) -> None:
        self.inner = inner
        self.name, self.dimension = inner.name, inner.dimension
        digest = hashlib.sha1(inner.fingerprint.encode()).hexdigest()[:16]
        self.file = folder / f"{digest}.npz"
        self.cache: dict[str, np.ndarray] = {}
        if self.file.exists():
            data = np.load(self.file)
            self.cache = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    @property
    def fingerprint(self) -> str:
        return self.inner.fingerprint

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_batch(texts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
        missing = [i for i, k in enumerate(keys) if k not in self.cache]
        if missing:
            vectors = self.inner.embed([texts[i] for i in missing])
            for i, vector in zip(missing, vectors, strict=True):
                self.cache[keys[i]] = vector
            if len(missing) > 16:
                self.save()
        return np.stack([self.cache[k] for k in keys]) if keys else np.zeros((0, self.dimension), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def save(self) -> None:
        """Write the cache file atomically."""
        self.file.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self.cache))
        tmp = self.file.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vectors=np.stack(list(self.cache.values())))
        tmp.replace(self.file)
