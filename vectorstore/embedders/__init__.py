"""Embedding backends behind one small interface, chosen by name through a registry.

A backend implements `Embedder.embed_batch`; batching, length-sorting and normalisation live in the base
class (`base.py`). Backends register under a name (`registry.py`) and are imported only when first asked
for, so the hash embedder never pays for loading torch:

    minilm        the bundled all-MiniLM-L6-v2 on PyTorch (`minilm.py`)
    minilm-onnx   the same model exported to ONNX and int8-quantized, on onnxruntime (`onnx_minilm.py`)
    hash          a bag-of-words hashing embedder with no model, for tests (`hashing.py`)

Every backend has a `fingerprint` that changes whenever its vectors would; the store records it so that a
store is never queried with vectors from another model.
"""

from __future__ import annotations

from vectorstore.embedders.base import Embedder
from vectorstore.embedders.bundled import bundled_minilm_path, files_digest
from vectorstore.embedders.registry import EmbedderFactory, embedder_names, get_embedder, register_embedder

__all__ = [
    "Embedder",
    "EmbedderFactory",
    "register_embedder",
    "get_embedder",
    "embedder_names",
    "bundled_minilm_path",
    "files_digest",
]
