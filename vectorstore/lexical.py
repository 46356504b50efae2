"""An incremental BM25 index over papers, saved beside the store.

Each paper is stored as its term frequencies; the collection statistics (document frequencies, average
length) are kept up to date as papers are added or removed, so an update touches only the changed papers
and a start only loads the saved arrays. Scores follow Lucene's BM25 (the variant bm25s and Anserini use).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from scipy import sparse

__all__ = ["LexicalIndex", "tokenize"]

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with you your yours
    yourself yourselves would also via using use used""".split()
)
_STEMMER = None


def _stem(words: list[str]) -> list[str]:
    global _STEMMER
    if _STEMMER is None:
        import Stemmer

        _STEMMER = Stemmer.Stemmer("english")
    return list(_STEMMER.stemWords(words))


def tokenize(text: str) -> list[str]:
    """Lower-cased, stop-worded, Snowball-stemmed word tokens."""
    return list(_tokenize(text))


@functools.lru_cache(maxsize=8192)
def _tokenize(text: str) -> tuple[str, ...]:
    words = [w for w in _TOKEN.findall(text.lower()) if w not in _STOPWORDS]
    return tuple(_stem(words))


class LexicalIndex:
    """BM25 over documents identified by string ids. Not thread-safe for writes."""

    VERSION = 1

    def __init__(self, k1: float = 0.9, b: float = 0.4) -> None:
        self.k1, self.b = k1, b
        self.vocab: dict[str, int] = {}
        self.doc_ids: list[str | None] = []
        self.rows: dict[str, int] = {}
        self.terms: list[np.ndarray] = []
        self.freqs: list[np.ndarray] = []
        self.lengths: list[int] = []
        self.df = np.zeros(0, dtype=np.int64)
        self._matrix: sparse.csc_matrix | None = None
        self._postings: dict[int, list[int]] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def doc_freq(self, term: str) -> int:
        """How many documents use `term` (a token as `tokenize` gives it)."""
        col = self.vocab.get(term)
        return int(self.df[col]) if col is not None and col < len(self.df) else 0

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.rows

    # ------------------------------------------------------------------ updates

    def add(self, doc_id: str, text: str) -> None:
        """Index `text` under `doc_id`, replacing what was indexed under it before."""
        if doc_id in self.rows:
            self.remove(doc_id)
        counts = Counter(self.vocab.setdefault(t, len(self.vocab)) for t in tokenize(text))
        terms = np.fromiter(counts.keys(), dtype=np.int32, count=len(counts))
        self.rows[doc_id] = len(self.doc_ids)
        self.doc_ids.append(doc_id)
        self.terms.append(terms)
        self.freqs.append(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))
        self.lengths.append(sum(counts.values()))
        if len(self.vocab) > len(self.df):
            self.df = np.concatenate([self.df, np.zeros(len(self.vocab) - len(self.df) + 1024, np.int64)])
        self.df[terms] += 1
        self._matrix = None
        if self._postings is not None:
            row = len(self.doc_ids) - 1
            for term in terms.tolist():
                self._postings.setdefault(term, []).append(row)

    def add_many(self, docs: Iterable[tuple[str, str]]) -> None:
        for doc_id, text in docs:
            self.add(doc_id, text)

    def remove(self, doc_id: str) -> None:
        row = self.rows.pop(doc_id, None)
        if row is None:
            return
        self.df[self.terms[row]] -= 1
        self.doc_ids[row] = None
        self.terms[row] = np.zeros(0, dtype=np.int32)
        self.freqs[row] = np.zeros(0, dtype=np.float32)
        self.lengths[row] = 0
        self._matrix = None

    # ------------------------------------------------------------------ search

    def _csc(self) -> sparse.csc_matrix:
        if self._matrix is None:
            indptr = np.zeros(len(self.terms) + 1, dtype=np.int64)
            indptr[1:] = np.cumsum([len(t) for t in self.terms])
            indices = np.concatenate(self.terms) if self.terms else np.zeros(0, dtype=np.int32)
            data = np.concatenate(self.freqs) if self.freqs else np.zeros(0, dtype=np.float32)
            shape = (len(self.terms), max(len(self.vocab), 1))
            self._matrix = sparse.csr_matrix((data, indices, indptr), shape=shape).tocsc()
        return self._matrix

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every row (0 for removed rows) for `query`."""
        return self.term_scores(set(tokenize(query)))

    def term_scores(self, terms: Iterable[str]) -> np.ndarray:
        """BM25 score of every row for a set of (already tokenized) terms."""
        n_rows = len(self.doc_ids)
        out = np.zeros(n_rows, dtype=np.float32)
        live = len(self.rows)
        if not live:
            return out
        matrix = self._csc()
        lengths = np.asarray(self.lengths, dtype=np.float32)
        avg = lengths.sum() / live
        norm = self.k1 * (1 - self.b + self.b * lengths / max(avg, 1e-9))
        for term in terms:
            col = self.vocab.get(term)
            if col is None or self.df[col] <= 0:
                continue
            df = self.df[col]
            idf = np.log(1 + (live - df + 0.5) / (df + 0.5))
            start, end = matrix.indptr[col], matrix.indptr[col + 1]
            rows, tf = matrix.indices[start:end], matrix.data[start:end]
            out[rows] += idf * tf * (self.k1 + 1) / (tf + norm[rows])
        return out

    def search(self, query: str, k: int = 100, allowed: set[str] | None = None) -> list[tuple[str, float]]:
        """The best `k` (doc_id, score) pairs with a positive score, optionally only among `allowed` ids."""
        scores = self.scores(query)
        if allowed is not None:
            mask = np.zeros(len(scores), dtype=bool)
            mask[[self.rows[d] for d in allowed if d in self.rows]] = True
            scores = np.where(mask, scores, 0)
        positive = int((scores > 0).sum())
        k = min(k, positive)
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]
        return [(str(self.doc_ids[i]), float(scores[i])) for i in top]

    def similar(self, text: str, k: int = 3, n_terms: int = 24) -> list[str]:
        """Ids of the `k` documents sharing most of the rarest terms of `text` (near-duplicate candidates).

        Uses postings lists that grow with every `add`, so it stays cheap while an ingest adds papers.
        """
        postings = self._postings_lists()
        terms = {self.vocab[t] for t in tokenize(text) if t in self.vocab and self.df[self.vocab[t]] > 0}
        if not terms:
            return []
        rarest = sorted(terms, key=lambda t: (self.df[t], t))[:n_terms]
        shared: Counter[int] = Counter()
        for term in rarest:
            shared.update(postings.get(term, ()))
        best = [row for row, _ in shared.most_common(k * 2) if self.doc_ids[row] is not None][:k]
        return [str(self.doc_ids[row]) for row in best]

    def _postings_lists(self) -> dict[int, list[int]]:
        if self._postings is None:
            self._postings = {}
            for row, terms in enumerate(self.terms):
                for term in terms.tolist():
                    self._postings.setdefault(term, []).append(row)
        return self._postings

    # ------------------------------------------------------------------ persistence

    def save(self, folder: Path) -> None:
        """Write the index to `folder` atomically (compacting removed rows)."""
        folder.mkdir(parents=True, exist_ok=True)
        live = [i for i, d in enumerate(self.doc_ids) if d is not None]
        ids = [self.doc_ids[i] for i in live]
        indptr = np.zeros(len(live) + 1, dtype=np.int64)
        indptr[1:] = np.cumsum([len(self.terms[i]) for i in live])
        tmp = folder / "bm25.tmp.npz"
        np.savez(
            tmp,
            indptr=indptr,
            terms=np.concatenate([self.terms[i] for i in live]) if live else np.zeros(0, np.int32),
            freqs=np.concatenate([self.freqs[i] for i in live]) if live else np.zeros(0, np.float32),
        )
        meta_tmp = folder / "bm25.tmp.json"
        meta = {"version": self.VERSION, "k1": self.k1, "b": self.b, "ids": ids, "vocab": self.vocab}
        meta_tmp.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, folder / "bm25.npz")
        os.replace(meta_tmp, folder / "bm25.json")

    @classmethod
    def load(cls, folder: Path, k1: float = 0.9, b: float = 0.4) -> LexicalIndex:
        """The index saved in `folder`, or an empty one if there is none or it is unreadable."""
        index = cls(k1, b)
        try:
            meta = json.loads((folder / "bm25.json").read_text(encoding="utf-8"))
            arrays = np.load(folder / "bm25.npz")
        except (OSError, ValueError) as exc:
            if (folder / "bm25.json").exists():
                log.warning("lexical index in %s unreadable (%s); it will be rebuilt", folder, exc)
            return index
        if meta.get("version") != cls.VERSION:
            return index
        index.vocab = meta["vocab"]
        indptr, terms, freqs = arrays["indptr"], arrays["terms"], arrays["freqs"]
        for row, doc_id in enumerate(meta["ids"]):
            t = terms[indptr[row] : indptr[row + 1]]
            f = freqs[indptr[row] : indptr[row + 1]]
            index.rows[doc_id] = row
            index.doc_ids.append(doc_id)
            index.terms.append(t)
            index.freqs.append(f)
            index.lengths.append(int(f.sum()))
        index.df = np.bincount(terms, minlength=len(index.vocab) + 1024).astype(np.int64)
        return index
