"""Grid search of the score-fusion parameters, on cached per-query candidate features.

    .venv/bin/python bench/fusion_sweep.py [--known-items 2000] [--prf-betas 0,0.5,1]

For every question of SciFact train and test, the known-item check (paper titles over the ICLR+ICML 2026
set) and our own question set (bench/questions_papers.jsonl), the candidates of both retrievers are
collected once through the store's searches, as `HybridRetriever._rank` collects them (BM25 top-N papers, the
best chunk cosine of the dense top-2N chunks, with --fill-dense the dense fill), and cached under
.cache/sweep/. Then every setting of the grid is scored offline in a few milliseconds, by the retriever's own
fusion (`assistant.fusion.fused_scores`):

    fused = w_q * dense + (1 - w_q) * bm25 / (bm25 + c),
    w_q   = w * max(floor, 1 - gain * (bm25_1 - bm25_2) / (bm25_1 + c))

and, with --prf-betas, the dense signal from a pseudo-relevance-feedback query (the question vector moved
towards the mean of its top dense chunks) instead of the plain one.

The rule that picks the default: among the settings at least as good as BM25 alone on the known-item MRR@10
and on our own questions (hit@1 and MRR@10), the best SciFact **train** nDCG@10. Test is printed for the
chosen rows only, never used to choose.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import pickle
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.evaluation import CACHE, cached_store, load_qrels, load_queries, open_benchmark_store  # noqa: E402
from assistant.fusion import fused_scores  # noqa: E402
from assistant.settings import Settings  # noqa: E402
from vectorstore.chroma import ChunkHit  # noqa: E402
from vectorstore.store import PaperStore  # noqa: E402

SCIFACT = ROOT.parent / "shared" / "benchmarks" / "scifact"
CONFERENCES = ROOT.parent / "shared" / "corpus" / "conferences"
FILES = [CONFERENCES / "iclr2026_accepted.jsonl.gz", CONFERENCES / "icml2026_main_conference.jsonl.gz"]
QUESTIONS = ROOT / "bench" / "questions_papers.jsonl"
MAX_CANDIDATES = 400


@dataclass
class QuerySet:
    """Padded candidate features of a set of questions: rows are questions, columns candidates."""

    name: str
    dense: dict[float, np.ndarray]  # PRF beta -> (Q, M) best chunk cosine, 0 where the chunk was not fetched
    lexical: np.ndarray  # (Q, M) BM25, 0 where absent
    gain: np.ndarray  # (Q, M) graded relevance of each candidate
    valid: np.ndarray  # (Q, M) bool, a real candidate
    ideal: np.ndarray  # (Q,) ideal DCG@10
    n_relevant: np.ndarray  # (Q,) relevant documents in the qrels
    pids: list[list[str]]  # the paper id of each column, per question (the second-stage benches score them)
    texts: list[str]  # the question of each row


def collect(
    store: PaperStore,
    queries: dict[str, str],
    qrels: dict[str, dict[str, int]],
    n: int,
    betas: list[float],
    name: str,
    fill: bool = False,
) -> QuerySet:
    key = hashlib.sha1(
        json.dumps(
            [
                "v3",
                str(store.path),
                store.embedder.fingerprint,
                sorted(queries.items()),
                n,
                betas,
                store.lexical.k1,
                store.lexical.b,
                fill,
            ]
        ).encode()
    ).hexdigest()[:16]
    cache = CACHE / "sweep" / f"{name}-{key}.pkl"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    rows = []
    for qid, text in queries.items():
        cands: dict[str, dict[float | str, float]] = {}
        for pid, score in store.lexical_search(text, n):
            cands.setdefault(pid, {})["lexical"] = score
        vector = store.embedder.embed_query(text)
        hits = store.dense_search(vector, n * 2)
        for beta in betas:
            for hit in hits if beta == 0 else feedback_hits(store, vector, hits, beta):
                entry = cands.setdefault(hit.paper_id, {})
                entry[beta] = max(entry.get(beta, 0.0), hit.similarity)
        missing = [pid for pid, entry in cands.items() if 0.0 not in entry]
        if fill and missing and 0.0 in betas:  # the dense score of candidates only BM25 found
            for hit in store.dense_scores(vector, missing):
                entry = cands[hit.paper_id]
                entry[0.0] = max(entry.get(0.0, 0.0), hit.similarity)
        rels = qrels.get(qid, {})
        aliases = {}
        for pid in cands:
            paper = store.catalog.get(pid)
            aliases[pid] = max([rels.get(d, 0) for d in (pid, *(paper.aliases if paper else ()))], default=0)
        rows.append((cands, aliases, rels))
    m = max(min(max(len(c) for c, _, _ in rows), MAX_CANDIDATES), 1)
    q = len(rows)
    dense = {beta: np.zeros((q, m), np.float32) for beta in betas}
    lexical = np.zeros((q, m), np.float32)
    gain = np.zeros((q, m), np.float32)
    valid = np.zeros((q, m), bool)
    ideal = np.zeros(q)
    n_rel = np.zeros(q)
    pids: list[list[str]] = []
    for i, (cands, gains, rels) in enumerate(rows):
        columns = sorted(cands.items())[:m]
        pids.append([pid for pid, _ in columns])
        for j, (pid, entry) in enumerate(columns):
            lexical[i, j] = entry.get("lexical", 0.0)
            for beta in betas:
                dense[beta][i, j] = entry.get(beta, 0.0)
            gain[i, j] = gains[pid]
            valid[i, j] = True
        ideal_gains = sorted((r for r in rels.values() if r > 0), reverse=True)[:10]
        ideal[i] = sum(r / np.log2(k + 2) for k, r in enumerate(ideal_gains))
        n_rel[i] = sum(1 for r in rels.values() if r > 0)
    out = QuerySet(name, dense, lexical, gain, valid, ideal, n_rel, pids, list(queries.values()))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(pickle.dumps(out))
    return out


def feedback_hits(store: PaperStore, vector: np.ndarray, hits: list[ChunkHit], beta: float) -> list[ChunkHit]:
    """As many chunks again, for the question vector moved by `beta` towards the mean of its top 3 chunks."""
    moved = vector + beta * store.chunk_vectors([hit.chunk_id for hit in hits[:3]]).mean(axis=0)
    return store.dense_search(moved / np.linalg.norm(moved), len(hits))


def fuse(qs: QuerySet, w: float, c: float, gain: float, floor: float, beta: float = 0.0) -> np.ndarray:
    """The retriever's fused score (`assistant.fusion.fused_scores`) of every candidate; -inf on padding."""
    fused = fused_scores(qs.dense[beta], qs.lexical, weight=w, half=c, gain=gain, floor=floor)
    return np.where(qs.valid, fused, -np.inf)


def metrics(qs: QuerySet, fused: np.ndarray) -> dict[str, float]:
    order = np.argsort(-fused, axis=1, kind="stable")
    gains = np.take_along_axis(qs.gain, order, axis=1)
    top10 = gains[:, :10]
    dcg = (top10 / np.log2(np.arange(2, 12))).sum(axis=1)
    ndcg = np.where(qs.ideal > 0, dcg / np.maximum(qs.ideal, 1e-9), 0.0)
    first = np.argmax(top10 > 0, axis=1)
    mrr = np.where((top10 > 0).any(axis=1), 1.0 / (first + 1), 0.0)
    hit1 = (gains[:, 0] > 0).astype(float)
    recall = np.where(qs.n_relevant > 0, (gains[:, :100] > 0).sum(axis=1) / np.maximum(qs.n_relevant, 1), 0.0)
    return {
        "ndcg@10": float(ndcg.mean()),
        "mrr@10": float(mrr.mean()),
        "hit@1": float(hit1.mean()),
        "recall@100": float(recall.mean()),
    }


Scores = dict[str, dict[str, float]]  # question set name -> its metrics


def no_worse_than_bm25(s: Scores, bm25: Scores) -> bool:
    """The admissibility rule: at least as good as BM25 alone on the known items and on our own questions."""
    return (
        s["known"]["mrr@10"] >= bm25["known"]["mrr@10"]
        and s["own"]["hit@1"] >= bm25["own"]["hit@1"]
        and s["own"]["mrr@10"] >= bm25["own"]["mrr@10"]
    )


def table_header(width: int) -> str:
    return f"\n{'configuration':{width}s} | train  | test nDCG R@100 MRR@10 | known  | own hit@1 MRR"


def table_row(label: str, s: Scores, width: int) -> str:
    """One line of the comparison tables of the second-stage benches (mpnet_stage.py, multivector.py)."""
    return (
        f"{label:{width}s} | {s['train']['ndcg@10']:.4f} | {s['test']['ndcg@10']:.4f} "
        f"{s['test']['recall@100']:.4f} {s['test']['mrr@10']:.4f} | {s['known']['mrr@10']:.4f} | "
        f"{s['own']['hit@1']:.3f} {s['own']['mrr@10']:.3f}"
    )


def query_sets(
    settings: Settings, known_items: int, betas: list[float], fill: bool
) -> tuple[dict[str, QuerySet], dict[str, PaperStore]]:
    """The four question sets (SciFact train and test, known items, our own questions) and the store each
    was asked of."""
    n = settings.retrieval.candidates
    scifact = open_benchmark_store(SCIFACT, settings)
    queries = load_queries(SCIFACT)
    sets = {}
    for split in ("train", "test"):
        qrels = load_qrels(SCIFACT, split)
        sets[split] = collect(
            scifact,
            {q: t for q, t in queries.items() if q in qrels},
            qrels,
            n,
            betas,
            f"scifact-{split}",
            fill,
        )
    conferences = cached_store("conferences", FILES, settings)
    papers = [p for p in conferences.catalog.papers() if p.title]
    random.Random(13).shuffle(papers)
    known = {p.paper_id: p.title for p in papers[:known_items]}
    sets["known"] = collect(conferences, known, {pid: {pid: 1} for pid in known}, n, betas, "known", fill)
    own_rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    own_q = {r["qid"]: r["question"] for r in own_rows}
    own_rel = {r["qid"]: {conferences.catalog.resolve(r["gold_id"]) or r["gold_id"]: 1} for r in own_rows}
    sets["own"] = collect(conferences, own_q, own_rel, n, betas, "own", fill)
    stores = {"train": scifact, "test": scifact, "known": conferences, "own": conferences}
    return sets, stores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--known-items", type=int, default=2000)
    parser.add_argument("--prf-betas", default="0", help="comma-separated PRF weights to try (0 = none)")
    parser.add_argument(
        "--fill-dense",
        action="store_true",
        help="also score the candidates only BM25 found with their best chunk's cosine",
    )
    parser.add_argument("--top", type=int, default=12, help="rows of the best admissible settings to print")
    args = parser.parse_args()
    betas = [float(b) for b in args.prf_betas.split(",")]
    sets, _ = query_sets(Settings(), args.known_items, betas, args.fill_dense)

    def score(config: tuple[float, float, float, float, float]) -> dict[str, float]:
        out = {}
        for name in ("train", "known", "own"):
            m = metrics(sets[name], fuse(sets[name], *config))
            if name == "train":
                out["train"] = m["ndcg@10"]
            elif name == "known":
                out["known"] = m["mrr@10"]
            else:
                out["own_hit1"], out["own_mrr"] = m["hit@1"], m["mrr@10"]
        return out

    bm25 = score((0.0, 20.0, 0.0, 1.0, 0.0))
    dense = score((1.0, 20.0, 0.0, 1.0, 0.0))
    print(
        f"BM25 alone:  train nDCG {bm25['train']:.4f}  known MRR {bm25['known']:.4f}  "
        f"own hit@1 {bm25['own_hit1']:.3f} MRR {bm25['own_mrr']:.3f}"
    )
    print(
        f"dense alone: train nDCG {dense['train']:.4f}  known MRR {dense['known']:.4f}  "
        f"own hit@1 {dense['own_hit1']:.3f} MRR {dense['own_mrr']:.3f}"
    )
    grid = itertools.product(
        [0.25, 0.3, 0.35, 0.4, 0.45, 0.5], [10, 14, 20, 28, 36, 45], [0, 2, 3, 4, 6], [0.1, 0.3, 0.5], betas
    )
    admissible = []
    for config in grid:
        if config[2] == 0 and config[3] != 0.1:
            continue  # the floor does nothing without a gain
        s = score(config)
        ok = (
            s["known"] >= bm25["known"]
            and s["own_hit1"] >= bm25["own_hit1"]
            and s["own_mrr"] >= bm25["own_mrr"]
        )
        if ok:
            admissible.append((s["train"], config, s))
    admissible.sort(key=lambda row: -row[0])
    print(
        f"\n{len(admissible)} admissible settings; the best by SciFact train nDCG@10 (test shown, not used):"
    )
    print(
        f"{'w':>5} {'c':>4} {'gain':>4} {'floor':>5} {'beta':>4} | {'train':>6} {'test':>6} {'R@100':>6} | "
        f"{'known':>6} {'own@1':>5} {'ownMRR':>6}"
    )
    for train, config, s in admissible[: args.top]:
        test = metrics(sets["test"], fuse(sets["test"], *config))
        print(
            f"{config[0]:>5} {config[1]:>4} {config[2]:>4} {config[3]:>5} {config[4]:>4} | {train:.4f} "
            f"{test['ndcg@10']:.4f} {test['recall@100']:.4f} | {s['known']:.4f} {s['own_hit1']:.3f} "
            f"{s['own_mrr']:.3f}"
        )


if __name__ == "__main__":
    main()
