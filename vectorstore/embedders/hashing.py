"""`hash`: a deterministic bag-of-words hashing embedder. No model, instant; for tests and tiny machines."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from vectorstore.embedders.base import Embedder
from vectorstore.embedders.registry import register_embedder

__all__ = ["HashEmbedder"]

_TOKEN = re.compile(r"\w+")


@register_embedder("hash")
class HashEmbedder(Embedder):
    """Each word adds +1 or -1 to one of `dimension` buckets, both chosen by a hash of the word."""

    name = "hash"
    dimension = 256
    batch_size = 512

    @property
    def fingerprint(self) -> str:
        return f"hash-bow-v1:{self.dimension}"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                digest = hashlib.blake2b(token.encode(), digest_size=4).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self.dimension] += 1.0 if value & (1 << 31) else -1.0
        return out
