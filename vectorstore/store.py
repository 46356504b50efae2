"""`PaperStore`: the catalog, the chunk vectors and the lexical index of one corpus, opened together.

Layout of a store folder:
    catalog.sqlite   paper records (the source of truth for text and metadata)
    chroma/          chunk vectors, when embedded (a Chroma server holds them otherwise)
    lexical/         the BM25 index, with the catalog sequence number it reflects
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np

from vectorstore.catalog import Catalog
from vectorstore.chroma import ChunkHit, ChunkStore, delete_collection
from vectorstore.chunking import Chunk, chunk_text
from vectorstore.embedders import Embedder
from vectorstore.errors import StoreError
from vectorstore.lexical import LexicalIndex
from vectorstore.paper import Paper

__all__ = ["PaperStore", "chunk_id", "chunk_metadata", "embed_text", "lexical_text"]

log = logging.getLogger(__name__)


def chunk_id(paper_id: str, index: int) -> str:
    return f"{paper_id}#{index}"


def embed_text(paper: Paper, chunk: Chunk) -> str:
    """What the embedder sees for a chunk: the title (when there is one) gives every chunk its topic."""
    return f"{paper.title}. {chunk.text}" if paper.title else chunk.text


def lexical_text(paper: Paper) -> str:
    return f"{paper.title} {paper.title} {paper.abstract}" if paper.title else paper.abstract


def chunk_metadata(paper: Paper, chunk: Chunk) -> dict[str, Any]:
    return {
        "paper_id": paper.paper_id,
        "chunk": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "venue": paper.venue or "",
        "year": paper.year or 0,
        "status": paper.status or "",
        "label": paper.label[:200],
    }


class PaperStore:
    """One corpus: open it, read papers from it, and (through `vectorstore.ingest`) add to it."""

    def __init__(
        self,
        path: Path,
        embedder: Embedder,
        server: str = "",
        collection: str = "paperchat",
        chunk_size: int = 1000,
        chunk_overlap: int = 1,
        bm25_k1: float = 0.9,
        bm25_b: float = 0.4,
    ) -> None:
        self.path = Path(path)
        self.embedder = embedder
        self.server = server
        self.chunk_size, self.chunk_overlap = chunk_size, chunk_overlap
        self.catalog = Catalog(self.path / "catalog.sqlite")
        self._check_chunking()
        self.chunks = ChunkStore(self.path / "chroma", embedder, server=server, name=collection)
        if (
            self.catalog.get_meta("embedder") is None
        ):  # the collection accepted this embedder: record its name
            self.catalog.set_meta("embedder", embedder.name)
        self.lexical = LexicalIndex.load(self.path / "lexical", bm25_k1, bm25_b)
        self._lexical_seq = self._saved_lexical_seq()
        self.sync_lexical()

    def _check_chunking(self) -> None:
        wanted = f"{self.chunk_size}/{self.chunk_overlap}"
        stored = self.catalog.get_meta("chunking")
        if stored is None:
            self.catalog.set_meta("chunking", wanted)
        elif stored != wanted:
            size, overlap = stored.split("/")
            log.info("store chunked as %s; using that instead of %s", stored, wanted)
            self.chunk_size, self.chunk_overlap = int(size), int(overlap)

    @staticmethod
    def recorded_embedder(path: Path) -> str | None:
        """The name of the embedder an existing store was built with, or None for a new store.

        Stores from before the name was recorded were built with the then default, `minilm`.
        """
        db_file = Path(path) / "catalog.sqlite"
        if not db_file.exists():
            return None
        try:
            with closing(sqlite3.connect(f"file:{db_file}?mode=ro", uri=True)) as db:
                row = db.execute("SELECT value FROM meta WHERE key = 'embedder'").fetchone()
                if row:
                    return str(row[0])
                papers = db.execute("SELECT COUNT(*) FROM papers").fetchone()[0]
        except sqlite3.Error:
            return None
        return "minilm" if papers else None

    # ------------------------------------------------------------------ lexical index upkeep

    def _saved_lexical_seq(self) -> int:
        try:
            return int(json.loads((self.path / "lexical" / "seq.json").read_text())["seq"])
        except (OSError, ValueError, KeyError):
            return 0 if not len(self.lexical) else -1

    def sync_lexical(self) -> int:
        """Bring the BM25 index up to the catalog; returns how many papers were (re)indexed."""
        if self._lexical_seq < 0:
            self.lexical = LexicalIndex(self.lexical.k1, self.lexical.b)
            self._lexical_seq = 0
        if self.catalog.seq <= self._lexical_seq:
            return 0
        count = 0
        for paper in self.catalog.papers(since_seq=self._lexical_seq):
            self.lexical.add(paper.paper_id, lexical_text(paper))
            count += 1
        self.save_lexical()
        log.info("lexical index brought up to date (%d papers)", count)
        return count

    def save_lexical(self) -> None:
        folder = self.path / "lexical"
        self.lexical.save(folder)
        self._lexical_seq = self.catalog.seq
        (folder / "seq.json").write_text(json.dumps({"seq": self._lexical_seq}))

    # ------------------------------------------------------------------ chunks

    def chunk(self, paper: Paper) -> list[Chunk]:
        return chunk_text(paper.abstract, self.chunk_size, self.chunk_overlap)

    def write_chunks(self, papers: list[Paper]) -> list[int]:
        """Embed and store the chunks of `papers`; returns each paper's chunk count."""
        ids, texts, metas, counts = [], [], [], []
        for paper in papers:
            chunks = self.chunk(paper)
            counts.append(len(chunks))
            for chunk in chunks:
                ids.append(chunk_id(paper.paper_id, chunk.index))
                texts.append(embed_text(paper, chunk))
                metas.append(chunk_metadata(paper, chunk))
        if ids:
            vectors = self.embedder.embed(texts)
            self.chunks.upsert(ids, vectors, metas)
        return counts

    def rewrite_metadata(self, papers: list[Paper]) -> None:
        ids, metas = [], []
        for paper in papers:
            for chunk in self.chunk(paper):
                ids.append(chunk_id(paper.paper_id, chunk.index))
                metas.append(chunk_metadata(paper, chunk))
        if ids:
            self.chunks.update_metadata(ids, metas)

    # ------------------------------------------------------------------ searches

    def lexical_search(self, query: str, k: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """The best `k` papers for `query` under BM25, as (paper_id, score) with a positive score, best first;
        with `allowed`, only among those paper ids."""
        return self.lexical.search(query, k=k, allowed=allowed)

    def papers_using(self, term: str) -> int:
        """How many papers use `term` (a stemmed token of `vectorstore.lexical.tokenize`), from the BM25 index."""
        return self.lexical.doc_freq(term)

    def dense_search(
        self, vector: np.ndarray, n: int, equals: Mapping[str, Any] | None = None
    ) -> list[ChunkHit]:
        """The `n` chunks nearest to `vector` by cosine similarity, best first; with `equals`, only chunks of
        papers whose metadata has those values (`year`, `venue`, `status`)."""
        return self.chunks.query(vector, n, equals)

    def dense_scores(self, vector: np.ndarray, paper_ids: Sequence[str]) -> list[ChunkHit]:
        """The cosine similarity of `vector` to every chunk of `paper_ids`, from the stored vectors: the dense
        score of candidates that a lexical search found but the nearest-neighbour search did not reach."""
        return self.chunks.score_papers(vector, paper_ids)

    def chunk_vectors(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """The stored vectors of `chunk_ids`, one row each (in no particular order)."""
        return self.chunks.vectors(chunk_ids)

    # ------------------------------------------------------------------ reads

    def get(self, paper_id: str) -> Paper | None:
        resolved = self.catalog.resolve(paper_id)
        return self.catalog.get(resolved) if resolved else None

    def get_many(self, paper_ids: list[str]) -> dict[str, Paper]:
        return self.catalog.get_many(paper_ids)

    def stats(self) -> dict[str, Any]:
        return {
            "papers": self.catalog.count(),
            "chunks": self.chunks.count(),
            "venues": self.catalog.venues(),
            "statuses": self.catalog.statuses(),
            "embedding_model": self.embedder.fingerprint,
            "store": str(self.path),
            "server": self.server or None,
            "chunking": {"size": self.chunk_size, "overlap": self.chunk_overlap},
            "lexical_terms": len(self.lexical.vocab),
        }

    def verify(self) -> list[str]:
        """Consistency problems between catalog and vectors (duplicate, missing or orphan chunks)."""
        expected: set[str] = set()
        for paper in self.catalog.papers():
            expected.update(chunk_id(paper.paper_id, i) for i in range(self.catalog.n_chunks(paper.paper_id)))
        actual = self.chunks.chunk_ids()
        problems = []
        if len(actual) != len(set(actual)):
            problems.append(f"{len(actual) - len(set(actual))} duplicate chunk ids")
        if missing := expected - set(actual):
            problems.append(f"{len(missing)} chunks missing, e.g. {sorted(missing)[:3]}")
        if orphans := set(actual) - expected:
            problems.append(f"{len(orphans)} orphan chunks, e.g. {sorted(orphans)[:3]}")
        if pending := self.catalog.pending():
            problems.append(f"{len(pending)} papers pending")
        return problems

    def close(self) -> None:
        self.catalog.close()

    @staticmethod
    def destroy(path: Path, server: str = "", collection: str = "paperchat") -> None:
        """Delete a store (for --rebuild): its folder, and its collection on a server."""
        if server:
            try:
                delete_collection(path, server, collection)
            except Exception as exc:  # a missing collection is fine
                log.info("no collection to delete on %s (%s)", server, exc)
        if path.exists():
            if not (path / "catalog.sqlite").exists() and any(path.iterdir()):
                raise StoreError(f"{path} does not look like a paperchat store; not deleting it")
            shutil.rmtree(path)
