"""Build the product's parts from settings: the store, the retriever, the language model, the assistant.

The CLI and the UI call these; everything else receives ready objects.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assistant.llm.base import ChatBackend
from assistant.llm.registry import get_backend
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from vectorstore.embedders import get_embedder
from vectorstore.store import PaperStore

if TYPE_CHECKING:
    from assistant.chain import Assistant

__all__ = ["open_store", "build_retriever", "build_llm", "build_assistant"]


def open_store(settings: Settings, path: Path | None = None) -> PaperStore:
    s = settings.store
    return PaperStore(path or s.path, get_embedder(s.embedder), server=s.server, collection=s.collection,
                      chunk_size=s.chunk_size, chunk_overlap=s.chunk_overlap,
                      bm25_k1=settings.retrieval.bm25_k1, bm25_b=settings.retrieval.bm25_b)


def build_retriever(settings: Settings, store: PaperStore | None = None) -> HybridRetriever:
    return HybridRetriever(store or open_store(settings), settings.retrieval)


def build_llm(settings: Settings, backend: str | None = None) -> ChatBackend:
    return get_backend(backend or settings.llm.backend, settings.llm)


def build_assistant(settings: Settings | None = None, backend: str | None = None) -> Assistant:
    from assistant.chain import Assistant

    settings = settings or Settings()
    return Assistant(build_retriever(settings), build_llm(settings, backend), settings)
