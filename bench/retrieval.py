"""Retrieval ablation: SciFact, the known-item check and our own question set over ICLR+ICML 2026.

    .venv/bin/python bench/retrieval.py [--split test] [--known-items 2000] [--skip-conferences]

Each configuration is a `RetrievalSettings`; rows print nDCG@10 / Recall@100 / MRR@10 on SciFact, MRR@10 of
titles as queries over the 11.3k set (known-item), hit@1 and MRR@10 of bench/questions_papers.jsonl, and
the search latency p50/p95 of the default over the 11.3k set (warm process).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.evaluation import (  # noqa: E402
    cached_store,
    load_qrels,
    load_queries,
    open_benchmark_store,
    run_queries,
    score_run,
)
from assistant.retrieval import HybridRetriever  # noqa: E402
from assistant.settings import RetrievalSettings, Settings  # noqa: E402
from assistant.types import Filters  # noqa: E402

SCIFACT = ROOT.parent / "shared" / "benchmarks" / "scifact"
CONFERENCES = ROOT.parent / "shared" / "corpus" / "conferences"
FILES = [CONFERENCES / "iclr2026_accepted.jsonl.gz", CONFERENCES / "icml2026_main_conference.jsonl.gz"]
QUESTIONS = ROOT / "bench" / "questions_papers.jsonl"


def configurations() -> dict[str, RetrievalSettings]:
    default = Settings().retrieval
    previous = default.model_copy(
        update={"lexical_half_score": 20.0, "lexical_peak_gain": 4.0, "dense_floor": 0.4, "fill_dense": False}
    )
    return {
        "dense (MiniLM chunks)": default.model_copy(update={"dense_weight": 1.0, "fill_dense": False}),
        "BM25": default.model_copy(update={"dense_weight": 0.0, "fill_dense": False}),
        "hybrid RRF k=60": default.model_copy(update={"fusion": "rrf", "rrf_k": 60, "fill_dense": False}),
        "w=.4 c=20 adaptive (previous)": previous,
        "  + dense for BM25-only cands": previous.model_copy(update={"fill_dense": True}),
        "w=.4 c=36 fixed + dense fill (default)": default,
    }


def known_item(retriever: HybridRetriever, n: int) -> float:
    papers = [p for p in retriever.papers.values() if p.title]
    random.Random(13).shuffle(papers)
    total = 0.0
    for paper in papers[:n]:
        found = retriever.retrieve(paper.title, k=10, filters=Filters(), parse_filters=False)
        for rank, result in enumerate(found.results, 1):
            if result.paper.paper_id == paper.paper_id or paper.paper_id in result.paper.aliases:
                total += 1 / rank
                break
    return total / max(min(n, len(papers)), 1)


def own_questions(retriever: HybridRetriever) -> tuple[float, float, int]:
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    hits = mrr = 0.0
    for row in rows:
        found = retriever.retrieve(row["question"], k=10, filters=Filters(), parse_filters=False)
        ids = [r.paper.paper_id for r in found.results]
        target = retriever.store.catalog.resolve(row["gold_id"]) or row["gold_id"]
        if ids[:1] == [target]:
            hits += 1
        if target in ids:
            mrr += 1 / (ids.index(target) + 1)
    return hits / len(rows), mrr / len(rows), len(rows)


def latency(retriever: HybridRetriever, queries: list[str]) -> tuple[float, float]:
    times = []
    for query in queries:
        started = time.perf_counter()
        retriever.retrieve(query, k=10)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test")
    parser.add_argument("--known-items", type=int, default=2000)
    parser.add_argument("--skip-conferences", action="store_true")
    parser.add_argument("--only", help="substring of the configurations to run")
    args = parser.parse_args()
    settings = Settings()
    scifact = open_benchmark_store(SCIFACT, settings)
    qrels = load_qrels(SCIFACT, args.split)
    queries = {q: t for q, t in load_queries(SCIFACT).items() if q in qrels}
    conferences = None if args.skip_conferences else cached_store("conferences", FILES, settings)
    print(f"SciFact {args.split}: {len(queries)} queries; embedder {settings.store.embedder}")
    header = f"{'configuration':40} {'nDCG@10':>8} {'R@100':>7} {'MRR@10':>7} | {'known-item MRR':>14} | {'own hit@1':>9} {'own MRR':>8}"
    print(header)
    print("-" * len(header))
    for name, config in configurations().items():
        if args.only and args.only not in name:
            continue
        figures = score_run(run_queries(HybridRetriever(scifact, config), queries), qrels)
        row = (
            f"{name:40} {figures['ndcg@10']:>8.4f} {figures['recall@100']:>7.4f} {figures['mrr@10']:>7.4f} |"
        )
        if conferences is not None:
            retriever = HybridRetriever(conferences, config)
            ki = known_item(retriever, args.known_items)
            hit1, mrr, _ = own_questions(retriever) if QUESTIONS.exists() else (0.0, 0.0, 0)
            row += f" {ki:>14.4f} | {hit1:>9.3f} {mrr:>8.3f}"
        print(row, flush=True)
    if conferences is not None:
        retriever = HybridRetriever(conferences, settings.retrieval)
        sample = (
            [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines() if line.strip()]
            if QUESTIONS.exists()
            else []
        )
        sample += [p.title for p in list(retriever.papers.values())[:150]]
        retriever.retrieve("warm up", k=10)
        p50, p95 = latency(retriever, sample)
        print(
            f"\nsearch latency over {len(retriever.papers)} papers ({len(sample)} queries, warm): "
            f"p50 {p50:.0f} ms, p95 {p95:.0f} ms"
        )


if __name__ == "__main__":
    main()
