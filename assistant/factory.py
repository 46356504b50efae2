"""Build the product's parts from settings: the store, the retriever, the language model, the assistant.

The CLI and the UI call these; everything else receives ready objects.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.llm.base import ChatBackend
from assistant.llm.registry import get_backend
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from vectorstore.embedders import embedder_names, get_embedder
from vectorstore.store import PaperStore

if TYPE_CHECKING:
    from assistant.chain import Assistant

__all__ = [
    "open_store",
    "build_retriever",
    "build_llm",
    "build_assistant",
    "paper_labels",
]

log = logging.getLogger(__name__)


def open_store(settings: Settings, path: Path | None = None) -> PaperStore:
    """The configured store. Unless an embedder was chosen explicitly (environment or --embedder), an
    existing store is opened with the embedder it was built with, so a change of the default never locks
    a user out of a store built before it."""
    s = settings.store
    path = path or s.path
    name = s.embedder
    recorded = PaperStore.recorded_embedder(path)
    if (
        "embedder" not in s.model_fields_set
        and recorded
        and recorded != name
        and recorded in embedder_names()
    ):
        log.info("the store at %s was built with embedder %r; using it", path, recorded)
        name = recorded
    return PaperStore(
        path,
        get_embedder(name),
        server=s.server,
        collection=s.collection,
        chunk_size=s.chunk_size,
        chunk_overlap=s.chunk_overlap,
        bm25_k1=settings.retrieval.bm25_k1,
        bm25_b=settings.retrieval.bm25_b,
    )


def build_retriever(settings: Settings, store: PaperStore | None = None) -> HybridRetriever:
    return HybridRetriever(store or open_store(settings), settings.retrieval)


def build_llm(settings: Settings, backend: str | None = None) -> ChatBackend:
    return get_backend(backend or settings.llm.backend, settings.llm)


def build_assistant(settings: Settings | None = None, backend: str | None = None) -> Assistant:
    from assistant.chain import Assistant

    settings = settings or Settings()
    return Assistant(build_retriever(settings), build_llm(settings, backend), settings)


def paper_labels(store: Path) -> list[str]:
    """The labels of the papers in the catalog of the store folder `store` (raises SystemExit if none)."""
    from vectorstore.catalog import Catalog

    path = store / "catalog.sqlite"
    if not path.exists():
        raise SystemExit(f"no catalog at {path}; pass --store with the UI's store")
    return [p.label for p in Catalog(path).papers()]
