"""Build the product's parts from settings: the store, the retriever, the language model, the assistant.

The CLI and the UI call these; everything else receives ready objects.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from assistant.llm.base import ChatBackend
from assistant.llm.registry import get_backend
from assistant.retrieval import HybridRetriever
from assistant.settings import LLMSettings, Settings
from vectorstore.embedders import embedder_names, get_embedder
from vectorstore.store import PaperStore

if TYPE_CHECKING:
    from assistant.chain import Assistant

__all__ = [
    "open_store",
    "build_retriever",
    "build_llm",
    "build_assistant",
    "BackendCache",
    "key_note",
    "paper_labels",
]

log = logging.getLogger(__name__)
KEEP = 3  # backends kept built; a local model holds its weights in memory
T = TypeVar("T")


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


def key_note(settings: LLMSettings) -> str:
    """Whether an API key is configured, without ever showing it."""
    from assistant.llm.openai_backend import NO_KEY, resolve_api_key

    if resolve_api_key(settings) != NO_KEY:
        return "API key: key set from environment"
    return "API key: no key (set PAPERCHAT_LLM__API_KEY or OPENAI_API_KEY before starting)"


def paper_labels(store: Path) -> list[str]:
    """The labels of the papers in the catalog of the store folder `store` (raises SystemExit if none)."""
    from vectorstore.catalog import Catalog

    path = store / "catalog.sqlite"
    if not path.exists():
        raise SystemExit(f"no catalog at {path}; pass --store with the UI's store")
    return [p.label for p in Catalog(path).papers()]


class BackendCache(Generic[T]):
    """The `default` assistant, or a copy answering with another (backend, model, base URL): each backend
    built once, the last `KEEP` kept. `rebuild` makes the copy from a built backend."""

    def __init__(
        self, default: T, default_name: str, settings: LLMSettings, rebuild: Callable[[ChatBackend], T]
    ) -> None:
        self.default, self.default_name, self.settings, self.rebuild = (
            default,
            default_name,
            settings,
            rebuild,
        )
        self._built: OrderedDict[tuple[str, str, str], T] = OrderedDict()
        self._lock = threading.Lock()

    def is_default(self, name: str, model: str, base_url: str) -> bool:
        llm = self.settings
        return (
            (name or self.default_name) == self.default_name
            and (model or llm.model) == llm.model
            and (base_url or llm.base_url) == llm.base_url
        )

    def get(self, name: str, model: str = "", base_url: str = "") -> T:
        """The assistant answering with backend `name` (raises `ConfigError` for an unknown name)."""
        if self.is_default(name, model, base_url):
            return self.default
        key = (name, model.strip(), base_url.strip())
        with self._lock:
            if key not in self._built:
                update = {"backend": name}
                if key[1]:
                    update["model"] = key[1]
                if key[2]:
                    update["base_url"] = key[2]
                self._built[key] = self.rebuild(get_backend(name, self.settings.model_copy(update=update)))
                while len(self._built) > KEEP:
                    self._built.popitem(last=False)
            self._built.move_to_end(key)
            return self._built[key]
