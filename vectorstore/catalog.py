"""The paper catalog: every stored paper's full record, in SQLite beside the vectors.

A paper row is marked `pending` (with the version to be stored beside the committed one) before its
chunks go to Chroma, and `done` after, in one transaction each. A run killed in between leaves `pending`
rows, which the next ingest completes; readers meanwhile keep seeing the committed version.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from vectorstore.errors import StoreError, StoreVersionError
from vectorstore.paper import Paper

__all__ = ["Catalog", "CATALOG_SCHEMA"]

CATALOG_SCHEMA = 1

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS papers (
    paper_id TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL,
    record TEXT NOT NULL,
    pending_record TEXT,
    n_chunks INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    seq INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS papers_hash ON papers (content_hash);
CREATE INDEX IF NOT EXISTS papers_state ON papers (state);
CREATE TABLE IF NOT EXISTS aliases (alias TEXT PRIMARY KEY, paper_id TEXT NOT NULL);
"""


class Catalog:
    """Paper records keyed by paper id, with aliases (other ids of merged duplicates) and content hashes."""

    def __init__(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the store folder {path.parent}: {exc}") from exc
        self.path = path
        self._lock = threading.Lock()
        try:
            self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_DDL)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a paperchat catalog ({exc}); move it away or rebuild") from exc
        version = self.get_meta("schema")
        if version is None:
            self.set_meta("schema", str(CATALOG_SCHEMA))
        elif version != str(CATALOG_SCHEMA):
            raise StoreVersionError(
                f"the store at {path.parent} was written by another version of paperchat (catalog schema "
                f"{version}, this version reads {CATALOG_SCHEMA}). Rebuild it: paperchat ingest --rebuild PATH..."
            )

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    @property
    def seq(self) -> int:
        row = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM papers").fetchone()
        return int(row[0])

    # ------------------------------------------------------------------ reads

    def get(self, paper_id: str) -> Paper | None:
        row = self.db.execute(
            "SELECT record FROM papers WHERE paper_id = ? AND record != ''", (paper_id,)
        ).fetchone()
        return Paper.from_json(row[0]) if row else None

    def get_many(self, paper_ids: list[str]) -> dict[str, Paper]:
        out: dict[str, Paper] = {}
        for start in range(0, len(paper_ids), 900):
            batch = paper_ids[start : start + 900]
            marks = ",".join("?" * len(batch))
            for pid, record in self.db.execute(
                f"SELECT paper_id, record FROM papers WHERE record != '' AND paper_id IN ({marks})", batch
            ):
                out[pid] = Paper.from_json(record)
        return out

    def n_chunks(self, paper_id: str) -> int:
        row = self.db.execute("SELECT n_chunks FROM papers WHERE paper_id = ?", (paper_id,)).fetchone()
        return int(row[0]) if row else 0

    def resolve(self, paper_id: str) -> str | None:
        """The stored paper id for `paper_id` or one of its aliases."""
        row = self.db.execute("SELECT paper_id FROM papers WHERE paper_id = ?", (paper_id,)).fetchone()
        if row:
            return str(row[0])
        row = self.db.execute("SELECT paper_id FROM aliases WHERE alias = ?", (paper_id,)).fetchone()
        return str(row[0]) if row else None

    def by_hash(self, content_hash: str) -> str | None:
        row = self.db.execute(
            "SELECT paper_id FROM papers WHERE content_hash = ? LIMIT 1", (content_hash,)
        ).fetchone()
        return str(row[0]) if row else None

    def papers(self, since_seq: int = 0) -> Iterator[Paper]:
        cursor = self.db.execute(
            "SELECT record FROM papers WHERE record != '' AND seq > ? ORDER BY seq", (since_seq,)
        )
        for (record,) in cursor:
            yield Paper.from_json(record)

    def pending(self) -> list[tuple[Paper, int]]:
        """Papers whose write was interrupted, with the chunk count of their previous version."""
        rows = self.db.execute(
            "SELECT pending_record, n_chunks FROM papers WHERE state = 'pending'"
        ).fetchall()
        return [(Paper.from_json(r), int(n)) for r, n in rows]

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM papers WHERE record != ''").fetchone()[0])

    def chunk_total(self) -> int:
        return int(
            self.db.execute("SELECT COALESCE(SUM(n_chunks), 0) FROM papers WHERE record != ''").fetchone()[0]
        )

    def venues(self) -> dict[str, int]:
        """Papers per venue and year, e.g. {"ICLR 2026": 5358}."""
        return {venue: sum(counts.values()) for venue, counts in self.statuses().items()}

    def statuses(self) -> dict[str, dict[str, int]]:
        """Papers per venue and year, then per status: {"ICLR 2026": {"Oral": 224, "Poster": 5134}}."""
        out: dict[str, dict[str, int]] = {}
        for (record,) in self.db.execute("SELECT record FROM papers WHERE record != ''"):
            data = json.loads(record)
            venue = f"{data.get('venue') or 'unknown'} {data.get('year') or ''}".strip()
            status = data.get("status") or "unknown"
            counts = out.setdefault(venue, {})
            counts[status] = counts.get(status, 0) + 1
        return {venue: dict(sorted(out[venue].items())) for venue in sorted(out)}

    # ------------------------------------------------------------------ writes

    def mark_pending(self, papers: list[Paper]) -> None:
        """Record the versions about to be written. Keeps each paper's previous chunk count."""
        with self._lock:
            self.db.execute("BEGIN")
            seq = self.seq
            for paper in papers:
                self.db.execute(
                    "INSERT INTO papers (paper_id, content_hash, record, pending_record, n_chunks, state, seq) "
                    "VALUES (?, ?, '', ?, 0, 'pending', ?) ON CONFLICT(paper_id) DO UPDATE SET "
                    "pending_record = excluded.pending_record, state = 'pending'",
                    (paper.paper_id, paper.content_hash, paper.to_json(), seq),
                )
            self.db.execute("COMMIT")

    def mark_done(self, papers: list[tuple[Paper, int]]) -> None:
        """Commit papers (with their new chunk counts) whose chunks are now in the vector store."""
        with self._lock:
            self.db.execute("BEGIN")
            seq = self.seq
            for paper, n_chunks in papers:
                seq += 1
                self.db.execute(
                    "UPDATE papers SET record = ?, content_hash = ?, n_chunks = ?, state = 'done', seq = ?, "
                    "pending_record = NULL WHERE paper_id = ?",
                    (paper.to_json(), paper.content_hash, n_chunks, seq, paper.paper_id),
                )
                for alias in paper.aliases:
                    self.db.execute(
                        "INSERT OR REPLACE INTO aliases (alias, paper_id) VALUES (?, ?)",
                        (alias, paper.paper_id),
                    )
            self.db.execute("COMMIT")
