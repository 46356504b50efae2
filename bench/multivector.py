"""More dense signals from the bundled MiniLM, measured and not shipped: title, whole-abstract and sentence vectors.

    .venv/bin/python bench/multivector.py [--known-items 2000]

About 10 minutes the first time on 2 cores (embedding ~130k sentences, 16k titles and 16k abstracts of the
candidate papers); later runs reuse `.cache/multivector/` and `.cache/sweep/` and take a minute.

The default scores a paper by its best chunk (1,000 characters, title in front). Three more views of a paper,
each scored by its cosine to the question, all with the default embedder:

- title: the title alone;
- whole: "title. abstract" as one text (truncated by the model like any text);
- sent: the best single sentence of the abstract (a SciFact claim is usually backed by one sentence), and
  sentmean: the cosine to the mean of the sentence vectors.

Each candidate of the default retriever (bench/fusion_sweep.py: BM25 top-N plus dense top-2N chunks, dense
fill) is scored

    fused = bm25 / (bm25 + c) + d·dense + t·title + a·whole + s·sent + m·sentmean

over a grid, and the same rule as the default's picks: among the settings at least as good as BM25 alone on
the known items and on our own questions, the best SciFact **train** nDCG@10. Test is printed, never used to
choose.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from fusion_sweep import (  # noqa: E402
    QuerySet,
    Scores,
    fuse,
    metrics,
    no_worse_than_bm25,
    query_sets,
    table_header,
    table_row,
)

from assistant.evaluation import CACHE  # noqa: E402
from assistant.settings import Settings  # noqa: E402
from vectorstore.chunking import split_sentences  # noqa: E402
from vectorstore.embedders import get_embedder  # noqa: E402
from vectorstore.embedders.cached import CachedEmbedder  # noqa: E402
from vectorstore.store import PaperStore  # noqa: E402

VIEWS = ("title", "whole", "sent", "sentmean")


def view_scores(model: CachedEmbedder, qs: QuerySet, store: PaperStore) -> dict[str, np.ndarray]:
    """(Q, M) cosine of each candidate's title, whole text, best sentence and mean sentence to its question."""
    pids = sorted({pid for row in qs.pids for pid in row})
    titles, wholes, sentences, owner = [], [], [], []
    for i, pid in enumerate(pids):
        paper = store.catalog.get(pid)
        abstract = paper.abstract if paper else ""
        title = paper.title if paper and paper.title else ""
        titles.append(title or abstract[:200])
        wholes.append(f"{title}. {abstract}" if title else abstract)
        for start, end in split_sentences(abstract) or [(0, len(abstract))]:
            sentences.append(abstract[start:end])
            owner.append(i)
    started = time.perf_counter()
    t, w, s = model.embed(titles), model.embed(wholes), model.embed(sentences)
    model.save()
    questions = np.stack([model.embed_query(text) for text in qs.texts])
    print(
        f"  {qs.name}: {len(pids)} candidate papers, {len(sentences)} sentences, "
        f"{time.perf_counter() - started:.1f} s (embedding only what the cache lacked)",
        flush=True,
    )
    owners = np.asarray(owner)
    mean = np.zeros((len(pids), s.shape[1]), np.float32)
    np.add.at(mean, owners, s)
    mean /= np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)
    first = np.searchsorted(owners, np.arange(len(pids)))
    last = np.searchsorted(owners, np.arange(len(pids)), side="right")
    row_of = {pid: i for i, pid in enumerate(pids)}
    out = {name: np.zeros(qs.valid.shape, np.float32) for name in VIEWS}
    for i, row in enumerate(qs.pids):
        idx = [row_of[p] for p in row]
        q = questions[i]
        out["title"][i, : len(row)] = t[idx] @ q
        out["whole"][i, : len(row)] = w[idx] @ q
        out["sentmean"][i, : len(row)] = mean[idx] @ q
        out["sent"][i, : len(row)] = [float((s[first[k] : last[k]] @ q).max()) for k in idx]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--known-items", type=int, default=2000)
    args = parser.parse_args()
    settings = Settings()
    model = CachedEmbedder(get_embedder(settings.store.embedder), folder=CACHE / "multivector")
    sets, stores = query_sets(settings, args.known_items, [0.0], fill=True)
    views = {name: view_scores(model, qs, stores[name]) for name, qs in sets.items()}

    def score(c: float, weights: dict[str, float]) -> Scores:
        out = {}
        for name, qs in sets.items():
            fused = (
                weights.get("bm25", 1.0) * qs.lexical / (qs.lexical + c)
                + weights.get("dense", 0.0) * qs.dense[0.0]
            )
            for view in VIEWS:
                fused = fused + weights.get(view, 0.0) * views[name][view]
            out[name] = metrics(qs, np.where(qs.valid, fused, -np.inf))
        return out

    def show(label: str, s: Scores) -> None:
        print(table_row(label, s, 58))

    print(table_header(58))
    bm25 = score(36, {})
    show("BM25 alone", bm25)
    for view in VIEWS:
        show(f"{view} alone (over the same candidates)", score(36, {"bm25": 0.0, view: 1.0}))
    r = settings.retrieval
    default = {
        name: metrics(qs, fuse(qs, r.dense_weight, r.lexical_half_score, r.lexical_peak_gain, r.dense_floor))
        for name, qs in sets.items()
    }
    show(f"default (w={r.dense_weight}, c={r.lexical_half_score:g})", default)
    grid = itertools.product(
        [36, 50, 70],
        [0.0, 0.1, 0.2, 0.3],
        [0.0, 0.05, 0.1, 0.15],
        [0.0, 0.05, 0.1, 0.2],
        [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
        [0.0, 0.05, 0.1],
    )
    admissible = []
    for c, dense, title, whole, sent, sentmean in grid:
        weights = {"dense": dense, "title": title, "whole": whole, "sent": sent, "sentmean": sentmean}
        s = score(c, weights)
        if no_worse_than_bm25(s, bm25):
            admissible.append((s["train"]["ndcg@10"], c, weights, s))
    admissible.sort(key=lambda row: -row[0])
    print(f"\n{len(admissible)} admissible settings; the best by SciFact train:")
    for _, c, weights, s in admissible[:8]:
        show(f"c={c} " + " ".join(f"{k[:5]}={v:g}" for k, v in weights.items()), s)
    for view in VIEWS:  # the best admissible setting that leaves each view out
        rest = [row for row in admissible if row[2][view] == 0.0]
        if rest:
            _, c, weights, s = rest[0]
            show(f"best without {view}: c={c} " + " ".join(f"{k[:5]}={v:g}" for k, v in weights.items()), s)


if __name__ == "__main__":
    main()
