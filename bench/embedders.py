"""Embedding backends head to head, in one run on the same texts: torch fp32, ONNX fp32 and ONNX int8.

    .venv/bin/python bench/embedders.py [--abstracts 320] [--repeats 3] [--skip-scifact] [--json FILE]

For each backend: abstracts/s over the first N abstracts of ICLR 2026 (after a warm-up; passes interleaved
across backends, best pass reported, since the machine may be shared), the mean and minimum cosine of its
vectors to torch fp32's on those abstracts, and SciFact test nDCG@10 with dense retrieval only (documents
embedded as title + " " + text). SciFact document vectors are cached per backend fingerprint in
.cache/bench/, so a rerun embeds only the queries.

Decision rule: ONNX int8 becomes the default embedder only if it is >= 2x faster than torch fp32 and loses
<= 0.01 nDCG@10.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import itertools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from assistant.evaluation import load_qrels, load_queries, ndcg_at  # noqa: E402
from vectorstore.embedders import Embedder, get_embedder  # noqa: E402
from vectorstore.embedders.onnx_minilm import OnnxMiniLMEmbedder  # noqa: E402

SHARED = ROOT.parent / "shared"
ICLR = SHARED / "corpus" / "conferences" / "iclr2026_accepted.jsonl.gz"
SCIFACT = SHARED / "benchmarks" / "scifact"
CACHE = ROOT / ".cache" / "bench"
BACKENDS: dict[str, Callable[[], Embedder]] = {
    "torch fp32 (minilm)": lambda: get_embedder("minilm"),
    "ONNX fp32": lambda: OnnxMiniLMEmbedder(quantize=False),
    "ONNX int8 (minilm-onnx)": lambda: get_embedder("minilm-onnx"),
}
REFERENCE = "torch fp32 (minilm)"
INT8 = "ONNX int8 (minilm-onnx)"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def iclr_abstracts(n: int) -> list[str]:
    with gzip.open(ICLR, "rt", encoding="utf-8") as handle:
        rows = (json.loads(line) for line in handle if line.strip())
        return [row["abstract"] for row in itertools.islice((r for r in rows if r.get("abstract")), n)]


def throughput(embedders: dict[str, Embedder], texts: list[str], repeats: int) -> tuple[dict, dict, dict]:
    """Per backend: best abstracts/s (wall clock) and least CPU-seconds per abstract of `repeats`
    interleaved passes, and its vectors. CPU time is the steadier figure on a shared machine."""
    for embedder in embedders.values():
        embedder.embed(texts[:16])  # warm-up: first-run allocations, thread pools
    best: dict[str, float] = {name: 0.0 for name in embedders}
    cpu: dict[str, float] = {name: float("inf") for name in embedders}
    vectors: dict[str, np.ndarray] = {}
    for attempt in range(repeats):
        for name, embedder in embedders.items():
            started, cpu_started = time.perf_counter(), time.process_time()
            vectors[name] = embedder.embed(texts)
            rate = len(texts) / (time.perf_counter() - started)
            best[name] = max(best[name], rate)
            cpu[name] = min(cpu[name], (time.process_time() - cpu_started) / len(texts))
            log(
                f"pass {attempt + 1}/{repeats} {name}: {rate:.1f} abstracts/s, "
                f"{cpu[name] * 1000:.0f} CPU-ms/abstract (best so far)"
            )
    return best, cpu, vectors


def scifact_docs() -> tuple[list[str], list[str]]:
    ids, texts = [], []
    with gzip.open(SCIFACT / "corpus.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                ids.append(str(row["_id"]))
                texts.append(f"{row.get('title') or ''} {row.get('text') or ''}".strip())
    return ids, texts


def cached_doc_vectors(
    embedder: Embedder, ids: list[str], texts: list[str]
) -> tuple[np.ndarray, float | None]:
    """SciFact document vectors for this backend, from .cache/bench/ when its fingerprint matches."""
    key = hashlib.sha1(embedder.fingerprint.encode()).hexdigest()[:16]
    file = CACHE / f"scifact-{key}.npz"
    if file.exists():
        data = np.load(file)
        if str(data["fingerprint"]) == embedder.fingerprint and data["ids"].tolist() == ids:
            return data["vectors"], None
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    rate = len(texts) / (time.perf_counter() - started)
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = file.with_name(f".{file.stem}.{os.getpid()}.tmp.npz")
    np.savez(tmp, ids=np.array(ids), vectors=vectors, fingerprint=np.array(embedder.fingerprint))
    tmp.replace(file)
    return vectors, rate


def scifact_ndcg(
    embedder: Embedder,
    docs: np.ndarray,
    ids: list[str],
    queries: dict[str, str],
    qrels: dict[str, dict[str, int]],
) -> float:
    qids = sorted(qrels)
    scores = embedder.embed([queries[q] for q in qids]) @ docs.T
    total = 0.0
    for row, qid in zip(scores, qids, strict=True):
        top = np.argsort(-row, kind="stable")[:100]
        total += ndcg_at({ids[i]: float(row[i]) for i in top}, qrels[qid], k=10)
    return total / len(qids)


def cosines(vectors: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    similarity = np.sum(vectors * reference, axis=1)
    return float(similarity.mean()), float(similarity.min())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--abstracts", type=int, default=320)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-scifact", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    log(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")
    embedders = {}
    for name, make in BACKENDS.items():
        started = time.perf_counter()
        embedders[name] = make()
        log(f"loaded {name} in {time.perf_counter() - started:.1f} s: {embedders[name].fingerprint}")
    texts = iclr_abstracts(args.abstracts)
    rates, cpu, vectors = throughput(embedders, texts, args.repeats)
    results = {
        name: {
            "fingerprint": e.fingerprint,
            "abstracts_per_s": round(rates[name], 2),
            "speedup": round(rates[name] / rates[REFERENCE], 2),
            "cpu_ms_per_abstract": round(cpu[name] * 1000, 1),
            "cpu_speedup": round(cpu[REFERENCE] / cpu[name], 2),
            "cos_mean": round(cosines(vectors[name], vectors[REFERENCE])[0], 5),
            "cos_min": round(cosines(vectors[name], vectors[REFERENCE])[1], 5),
        }
        for name, e in embedders.items()
    }

    if not args.skip_scifact:
        ids, doc_texts = scifact_docs()
        queries, qrels = load_queries(SCIFACT), load_qrels(SCIFACT, "test")
        doc_vectors = {}
        for name, embedder in embedders.items():
            log(f"SciFact: {name} on {len(doc_texts)} docs (cached if already embedded)")
            doc_vectors[name], rate = cached_doc_vectors(embedder, ids, doc_texts)
            results[name]["scifact_docs_per_s"] = round(rate, 2) if rate else None
            results[name]["ndcg@10"] = round(
                scifact_ndcg(embedder, doc_vectors[name], ids, queries, qrels), 4
            )
            results[name]["scifact_cos_mean"] = round(
                cosines(doc_vectors[name], doc_vectors[REFERENCE])[0], 5
            )
            log(f"SciFact nDCG@10 {name}: {results[name]['ndcg@10']:.4f}")
    log(f"load average at end: {os.getloadavg()[0]:.2f}")
    print_table(results, len(texts))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def print_table(results: dict[str, dict], n_texts: int) -> None:
    reference = results[REFERENCE]
    print(
        f"\n{'backend':<26}{'abstr/s':>9}{'speed-up':>10}{'CPU-ms/abs':>11}{'CPU x':>7}{'cos mean':>10}{'cos min':>9}"
        f"{'nDCG@10':>9}{'ΔnDCG':>8}{'SciFact docs/s':>16}"
    )
    for name, row in results.items():
        ndcg = row.get("ndcg@10")
        delta = f"{ndcg - reference['ndcg@10']:+.4f}" if ndcg is not None else "-"
        docs = row.get("scifact_docs_per_s")
        print(
            f"{name:<26}{row['abstracts_per_s']:>9.1f}{row['speedup']:>9.2f}x{row['cpu_ms_per_abstract']:>11.0f}"
            f"{row['cpu_speedup']:>6.2f}x{row['cos_mean']:>10.4f}"
            f"{row['cos_min']:>9.4f}{ndcg if ndcg is not None else float('nan'):>9.4f}{delta:>8}"
            f"{docs if docs else '(cached)':>16}"
        )
    print(
        f"(speed over {n_texts} ICLR 2026 abstracts, best pass; cosines to torch fp32 on the same abstracts)"
    )
    int8 = results[INT8]
    if "ndcg@10" in int8:
        fast = int8["speedup"] >= 2.0
        close = reference["ndcg@10"] - int8["ndcg@10"] <= 0.01
        verdict = "make minilm-onnx the default" if fast and close else "keep minilm (torch fp32) the default"
        print(
            f"decision: speed-up {int8['speedup']:.2f}x wall clock, {int8['cpu_speedup']:.2f}x CPU time "
            f"(needs >= 2x: {'yes' if fast else 'no'}), "
            f"nDCG@10 loss {reference['ndcg@10'] - int8['ndcg@10']:+.4f} (needs <= 0.01: "
            f"{'yes' if close else 'no'}) -> {verdict}"
        )


if __name__ == "__main__":
    main()
