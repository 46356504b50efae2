"""Retrieval evaluation on BEIR-format datasets: nDCG@10, Recall@100 and MRR@10.

The dataset is indexed into a store under `.cache/eval/` keyed by corpus, embedder and chunking, and
chunk embeddings are cached by model and text, so re-running after a retrieval change embeds nothing.
Definitions follow trec_eval/BEIR: graded gains (linear), log2 discount, ranking ties broken by doc id.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from pathlib import Path
from typing import Any

from assistant.retrieval import HybridRetriever
from assistant.settings import PROJECT_ROOT, RetrievalSettings, Settings
from assistant.types import Filters
from vectorstore.embedders import get_embedder
from vectorstore.embedders.cached import CachedEmbedder
from vectorstore.ingest import ingest
from vectorstore.store import PaperStore

__all__ = [
    "evaluate_beir",
    "load_qrels",
    "load_queries",
    "ndcg_at",
    "recall_at",
    "mrr_at",
    "open_benchmark_store",
    "cached_store",
    "run_queries",
    "score_run",
]

log = logging.getLogger(__name__)
CACHE = PROJECT_ROOT / ".cache"


# ---------------------------------------------------------------------------------------------- data


def _corpus_file(folder: Path) -> Path:
    for name in ("corpus.jsonl.gz", "corpus.jsonl"):
        if (folder / name).exists():
            return folder / name
    raise FileNotFoundError(f"no corpus.jsonl[.gz] in {folder}")


def load_queries(folder: Path) -> dict[str, str]:
    queries = {}
    with (folder / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                queries[str(row["_id"])] = row["text"]
    return queries


def load_qrels(folder: Path, split: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with (folder / "qrels" / f"{split}.tsv").open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.strip().split("\t")
            if len(parts) < 3 or not parts[2].lstrip("-").isdigit():
                continue
            qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


# ---------------------------------------------------------------------------------------------- metrics


def _ranking(run: dict[str, float]) -> list[str]:
    return [doc for doc, _ in sorted(run.items(), key=lambda item: (-item[1], item[0]))]


def ndcg_at(run: dict[str, float], rels: dict[str, int], k: int = 10) -> float:
    ranking = _ranking(run)[:k]
    dcg = sum(rels.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranking))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(run: dict[str, float], rels: dict[str, int], k: int = 100) -> float:
    relevant = {d for d, r in rels.items() if r > 0}
    return len(relevant & set(_ranking(run)[:k])) / len(relevant) if relevant else 0.0


def mrr_at(run: dict[str, float], rels: dict[str, int], k: int = 10) -> float:
    for i, doc in enumerate(_ranking(run)[:k]):
        if rels.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def score_run(runs: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]) -> dict[str, float]:
    n = len(qrels)
    return {
        "ndcg@10": round(sum(ndcg_at(runs.get(q, {}), r) for q, r in qrels.items()) / n, 4),
        "recall@100": round(sum(recall_at(runs.get(q, {}), r) for q, r in qrels.items()) / n, 4),
        "mrr@10": round(sum(mrr_at(runs.get(q, {}), r) for q, r in qrels.items()) / n, 4),
    }


# ---------------------------------------------------------------------------------------------- running


def open_benchmark_store(folder: Path, settings: Settings, fresh: bool = False) -> PaperStore:
    """The BEIR dataset's corpus indexed in a cached store (built on first use)."""
    return cached_store(folder.name, [_corpus_file(folder)], settings, fresh)


def cached_store(name: str, files: list[Path], settings: Settings, fresh: bool = False) -> PaperStore:
    """A store of `files` under .cache/eval/, keyed by the files, the embedder and the chunking."""
    s = settings.store
    embedder = CachedEmbedder(get_embedder(s.embedder), CACHE / "embeddings")
    signature = ":".join(f"{f.resolve()}:{f.stat().st_size}" for f in files)
    key = hashlib.sha1(
        f"{signature}:{embedder.fingerprint}:{s.chunk_size}/{s.chunk_overlap}".encode()
    ).hexdigest()
    path = CACHE / "eval" / f"{name}-{key[:16]}"
    if fresh:
        PaperStore.destroy(path)
    store = PaperStore(
        path,
        embedder,
        chunk_size=s.chunk_size,
        chunk_overlap=s.chunk_overlap,
        bm25_k1=settings.retrieval.bm25_k1,
        bm25_b=settings.retrieval.bm25_b,
    )
    if (path / "complete").exists():
        return store
    report = ingest(store, files, batch_papers=512, progress=True)
    embedder.save()
    log.info("indexed %s: %s", name, report.render().splitlines()[0])
    (path / "complete").write_text(json.dumps(report.to_dict()))
    return store


def run_queries(
    retriever: HybridRetriever, queries: dict[str, str], k: int = 100
) -> dict[str, dict[str, float]]:
    """Doc id -> score for each query; merged duplicates count under each of their ids."""
    runs: dict[str, dict[str, float]] = {}
    for qid, text in queries.items():
        found = retriever.retrieve(text, k=k, filters=Filters(), parse_filters=False)
        run: dict[str, float] = {}
        for result in found.results:
            for doc in (result.paper.paper_id, *result.paper.aliases):
                run.setdefault(doc, result.score)
        runs[qid] = run
    return runs


def evaluate_beir(
    folder: Path,
    split: str = "test",
    settings: Settings | None = None,
    retrieval: RetrievalSettings | None = None,
) -> dict[str, Any]:
    """Index `folder`'s corpus (cached), run its `split` queries, and score them."""
    settings = settings or Settings()
    store = open_benchmark_store(folder, settings)
    qrels = load_qrels(folder, split)
    queries = {q: t for q, t in load_queries(folder).items() if q in qrels}
    retriever = HybridRetriever(store, retrieval or settings.retrieval)
    retriever.settings = retriever.settings.model_copy(update={"mmr_lambda": 1.0})
    figures: dict[str, Any] = score_run(run_queries(retriever, queries), qrels)
    figures.update({"queries": len(queries), "split": split, "dataset": folder.name})
    return figures
