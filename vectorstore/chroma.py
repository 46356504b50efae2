"""The Chroma side of the store: chunk vectors, embedded (a local folder) or on a Chroma server.

The collection records the fingerprint of the embedder that built it; opening it with another embedder
raises `EmbedderMismatchError`, so a query can never be answered with vectors from another model.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlparse

import numpy as np

from vectorstore.embedders import Embedder
from vectorstore.errors import EmbedderMismatchError, StoreError

__all__ = ["ChunkStore", "ChunkHit", "PaperchatEmbeddingFunction", "delete_collection"]

log = logging.getLogger(__name__)

SCHEMA = 1
_WRITE_BATCH = 2000

# Chroma cannot rebuild our embedding function from the collection's config (it is not in its registry) and
# warns on every read; we always pass the function in, so the warning is noise on the user's terminal.
warnings.filterwarnings("ignore", message="Could not reconstruct embedding function paperchat")


class PaperchatEmbeddingFunction:
    """Chroma's embedding-function protocol over our `Embedder`, so Chroma never loads a default model."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def __call__(self, input: Sequence[str]) -> list[np.ndarray]:  # noqa: A002 - Chroma's signature
        return list(self.embedder.embed(list(input)))

    def embed_query(self, input: Sequence[str]) -> list[np.ndarray]:  # noqa: A002
        return self(input)

    @staticmethod
    def name() -> str:
        return "paperchat"

    def get_config(self) -> dict[str, Any]:
        return {"embedder": self.embedder.name}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> PaperchatEmbeddingFunction:
        from vectorstore.embedders import get_embedder

        return PaperchatEmbeddingFunction(get_embedder(config["embedder"]))

    def is_legacy(self) -> bool:
        return False

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]


@dataclasses.dataclass(frozen=True)
class ChunkHit:
    chunk_id: str
    paper_id: str
    similarity: float
    start: int
    end: int


def _client(path: Path, server: str) -> Any:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    try:
        if server:
            url = urlparse(server if "://" in server else f"http://{server}")
            client = chromadb.HttpClient(
                host=url.hostname or "127.0.0.1",
                port=url.port or 8000,
                ssl=url.scheme == "https",
                settings=chroma_settings,
            )
            client.heartbeat()
            return client
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=chroma_settings)
    except Exception as exc:  # chromadb raises many kinds
        where = f"the Chroma server at {server}" if server else f"the store at {path}"
        raise StoreError(f"cannot open {where}: {exc}") from exc


def delete_collection(path: Path, server: str, name: str) -> None:
    """Delete the collection `name` of the store at `path` (embedded) or on `server`."""
    _client(path, server).delete_collection(name)


_F = TypeVar("_F", bound=Callable[..., Any])


def _chroma_errors(method: _F) -> _F:
    """Turn whatever the Chroma client raises (a server gone away, a corrupt folder) into a `StoreError`."""

    @functools.wraps(method)
    def wrapper(self: ChunkStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except StoreError:
            raise
        except Exception as exc:  # chromadb and its HTTP client raise many kinds
            where = f"the Chroma server at {self.server}" if self.server else f"the store at {self.path}"
            raise StoreError(f"{method.__name__.replace('_', ' ')} failed on {where}: {exc}") from exc

    return wrapper  # type: ignore[return-value]


class ChunkStore:
    """Chunk vectors and their metadata in one Chroma collection."""

    def __init__(self, path: Path, embedder: Embedder, server: str = "", name: str = "paperchat") -> None:
        self.embedder = embedder
        self.server = server
        self.path = path
        self._client = _client(path, server)
        self.collection = self._open(name)

    def _open(self, name: str) -> Any:
        function = PaperchatEmbeddingFunction(self.embedder)
        try:
            existing = {c.name if hasattr(c, "name") else str(c) for c in self._client.list_collections()}
            if name in existing:
                collection = self._client.get_collection(name, embedding_function=function)  # type: ignore[arg-type]
            else:
                collection = self._client.create_collection(
                    name,
                    embedding_function=function,  # type: ignore[arg-type]
                    metadata={
                        "embedder": self.embedder.fingerprint,
                        "schema": SCHEMA,
                        "hnsw:space": "cosine",
                    },
                )
        except Exception as exc:
            raise StoreError(f"cannot open collection {name!r}: {exc}") from exc
        stored = (collection.metadata or {}).get("embedder")
        if stored != self.embedder.fingerprint:
            raise EmbedderMismatchError(
                f"the store was built with embedder {stored!r} but queries would be embedded with "
                f"{self.embedder.fingerprint!r}. Use the same embedder (--embedder / PAPERCHAT_STORE__EMBEDDER) "
                f"or rebuild the store: paperchat ingest --rebuild PATH..."
            )
        return collection

    @_chroma_errors
    def count(self) -> int:
        return int(self.collection.count())

    @_chroma_errors
    def upsert(self, ids: list[str], vectors: np.ndarray, metadatas: list[dict[str, Any]]) -> None:
        """Write chunk vectors. Their text is not stored here (the catalog has it, and the span)."""
        for start in range(0, len(ids), _WRITE_BATCH):
            end = start + _WRITE_BATCH
            self.collection.upsert(
                ids=ids[start:end], embeddings=vectors[start:end], metadatas=metadatas[start:end]
            )

    @_chroma_errors
    def update_metadata(self, ids: list[str], metadatas: list[dict[str, Any]]) -> None:
        for start in range(0, len(ids), _WRITE_BATCH):
            self.collection.update(
                ids=ids[start : start + _WRITE_BATCH], metadatas=metadatas[start : start + _WRITE_BATCH]
            )

    @_chroma_errors
    def delete_papers(self, paper_ids: Sequence[str]) -> None:
        for start in range(0, len(paper_ids), 500):
            batch = list(paper_ids[start : start + 500])
            self.collection.delete(where={"paper_id": {"$in": batch}})

    @_chroma_errors
    def paper_ids(self) -> set[str]:
        """Every paper id that has at least one chunk (for consistency checks)."""
        ids: set[str] = set()
        offset = 0
        while True:
            page = self.collection.get(include=["metadatas"], limit=5000, offset=offset)
            ids.update(str(m["paper_id"]) for m in page["metadatas"] or [])
            if len(page["ids"]) < 5000:
                return ids
            offset += 5000

    @_chroma_errors
    def chunk_ids(self) -> list[str]:
        out: list[str] = []
        offset = 0
        while True:
            page = self.collection.get(include=[], limit=5000, offset=offset)
            out.extend(page["ids"])
            if len(page["ids"]) < 5000:
                return out
            offset += 5000

    @_chroma_errors
    def query(self, vector: np.ndarray, n: int, equals: Mapping[str, Any] | None = None) -> list[ChunkHit]:
        """The `n` chunks nearest to `vector`, best first; with `equals`, only chunks whose metadata has those
        values (e.g. `{"year": 2026, "venue": "ICML"}`)."""
        total = self.count()
        if total == 0:
            return []
        result = self.collection.query(
            query_embeddings=[vector],
            n_results=min(n, total),
            where=_where(equals),
            include=["metadatas", "distances"],
        )
        hits = []
        for cid, meta, dist in zip(
            result["ids"][0], result["metadatas"][0], result["distances"][0], strict=True
        ):
            hits.append(
                ChunkHit(
                    cid,
                    str(meta["paper_id"]),
                    1.0 - float(dist),
                    int(meta.get("start", 0)),
                    int(meta.get("end", 0)),
                )
            )
        return hits

    @_chroma_errors
    def score_papers(self, vector: np.ndarray, paper_ids: Sequence[str]) -> list[ChunkHit]:
        """The cosine of `vector` to every chunk of `paper_ids` (for candidates the nearest-neighbour search
        did not reach), computed from the stored vectors."""
        hits: list[ChunkHit] = []
        for start in range(0, len(paper_ids), 500):
            batch = list(paper_ids[start : start + 500])
            got = self.collection.get(where={"paper_id": {"$in": batch}}, include=["metadatas", "embeddings"])
            if not got["ids"]:
                continue
            vectors = np.asarray(got["embeddings"], dtype=np.float32)
            norms = np.maximum(np.linalg.norm(vectors, axis=1), 1e-12)
            sims = (vectors @ np.asarray(vector, dtype=np.float32)) / norms
            for cid, meta, sim in zip(got["ids"], got["metadatas"], sims.tolist(), strict=True):
                hits.append(
                    ChunkHit(
                        cid,
                        str(meta["paper_id"]),
                        float(sim),
                        int(meta.get("start", 0)),
                        int(meta.get("end", 0)),
                    )
                )
        return hits

    @_chroma_errors
    def vectors(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """The stored vectors of `chunk_ids` (in the collection's order, not necessarily the given one)."""
        got = self.collection.get(ids=list(chunk_ids), include=["embeddings"])
        return np.asarray(got["embeddings"], dtype=np.float32).reshape(
            len(got["ids"]), self.embedder.dimension
        )


def _where(equals: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Chroma's `where` clause for metadata equal to `equals` (None for no condition)."""
    clauses = [{key: value} for key, value in (equals or {}).items()]
    if len(clauses) > 1:
        return {"$and": clauses}
    return clauses[0] if clauses else None
