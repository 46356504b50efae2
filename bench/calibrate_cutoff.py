"""Calibrate the relevance cutoff: fused top scores of answerable vs unanswerable questions.

Scores every dev question (bench/questions_dev.jsonl) against the bundled sample corpus with the cutoff
disabled, then prints where the gold papers of answerable questions score, where the top papers of
unanswerable questions score, and where off-domain SciFact claims land on the ML corpus.

    .venv/bin/python bench/calibrate_cutoff.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.retrieval import HybridRetriever  # noqa: E402
from assistant.settings import RetrievalSettings, Settings  # noqa: E402
from assistant.types import Filters  # noqa: E402
from vectorstore.embedders import get_embedder  # noqa: E402
from vectorstore.ingest import ingest  # noqa: E402
from vectorstore.store import PaperStore  # noqa: E402

SCIFACT_QUERIES = ROOT.parent / "shared" / "benchmarks" / "scifact" / "queries.jsonl"


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main() -> None:
    store = PaperStore(Path(tempfile.mkdtemp()) / "store", get_embedder(Settings().store.embedder))
    ingest(store, sorted((ROOT / "corpus").glob("*.txt")))
    retriever = HybridRetriever(store, RetrievalSettings(cutoff=0.0))
    answerable: list[tuple[float, str]] = []
    unanswerable: list[tuple[float, str]] = []
    for row in read_jsonl(ROOT / "bench" / "questions_dev.jsonl"):
        found = retriever.retrieve(row["question"], k=5, filters=Filters(), parse_filters=False)
        if row["type"] == "ask":
            phrase = row["gold_phrase"].replace("\\\\", "\\")
            gold = [r for r in found.results if phrase in r.paper.abstract]
            answerable.append((gold[0].score if gold else 0.0, row["question"][:60]))
        elif row["type"] == "unanswerable":
            unanswerable.append((found.results[0].score, row["question"][:60]))
    off_domain = []
    if SCIFACT_QUERIES.exists():
        for row in read_jsonl(SCIFACT_QUERIES)[:300]:
            found = retriever.retrieve(row["text"], k=1, filters=Filters(), parse_filters=False)
            if found.results:
                off_domain.append(found.results[0].score)
    answerable.sort()
    unanswerable.sort(reverse=True)
    print("lowest gold scores of answerable questions:")
    for score, question in answerable[:8]:
        print(f"  {score:.3f}  {question}")
    print("highest top scores of unanswerable questions:")
    for score, question in unanswerable[:8]:
        print(f"  {score:.3f}  {question}")
    gold_scores = np.array([s for s, _ in answerable])
    print("answerable gold fused score pct 5/10/50:", np.percentile(gold_scores, [5, 10, 50]).round(3))
    if off_domain:
        print(
            "SciFact claims on the ML corpus, top score pct 50/90/95/99/max:",
            np.percentile(off_domain, [50, 90, 95, 99, 100]).round(3),
        )


if __name__ == "__main__":
    main()
