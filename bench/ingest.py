"""Ingest throughput on the full ICLR 2026 + ICML 2026 lists (11.3k papers) into a fresh store.

Reports papers/s, chunks/s and peak RSS of the pipeline; in the same run, the raw embedder throughput on
the very same chunk texts (the ratio pipeline/raw shows our overhead); and the time of a no-op re-ingest.

    .venv/bin/python bench/ingest.py [--embedder minilm-onnx] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from assistant.settings import Settings  # noqa: E402
from vectorstore.embedders import get_embedder  # noqa: E402
from vectorstore.ingest import ingest  # noqa: E402
from vectorstore.loaders import read_papers  # noqa: E402
from vectorstore.store import PaperStore, embed_text  # noqa: E402

CONFERENCES = ROOT.parent / "shared" / "corpus" / "conferences"
FILES = [CONFERENCES / "iclr2026_accepted.jsonl.gz", CONFERENCES / "icml2026_main_conference.jsonl.gz"]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default=Settings().store.embedder)
    parser.add_argument("--limit", type=int, default=0, help="only the first N papers (0 = all)")
    args = parser.parse_args()
    settings = Settings()
    embedder = get_embedder(args.embedder)
    files = FILES
    folder = Path(tempfile.mkdtemp(prefix="paperchat-bench-"))
    if args.limit:
        subset = folder / "subset.jsonl"
        with subset.open("w", encoding="utf-8") as out:
            count = 0
            for path in FILES:
                for paper in read_papers(path, []):
                    out.write(
                        json.dumps(
                            {
                                "id": paper.paper_id,
                                "title": paper.title,
                                "abstract": paper.abstract,
                                "venue": f"{paper.venue} {paper.year}",
                            }
                        )
                        + "\n"
                    )
                    count += 1
                    if count >= args.limit:
                        break
                if count >= args.limit:
                    break
        files = [subset]
    store = PaperStore(
        folder / "store",
        embedder,
        chunk_size=settings.store.chunk_size,
        chunk_overlap=settings.store.chunk_overlap,
    )
    started = time.perf_counter()
    report = ingest(store, files, batch_papers=settings.store.batch_papers)
    first = time.perf_counter() - started
    rss = peak_rss_mb()

    started = time.perf_counter()
    again = ingest(store, files, batch_papers=settings.store.batch_papers)
    noop = time.perf_counter() - started

    texts = [embed_text(p, c) for p in store.catalog.papers() for c in store.chunk(p)]
    started = time.perf_counter()
    embedder.embed(texts)
    raw = time.perf_counter() - started
    size_mb = sum(f.stat().st_size for f in (folder / "store").rglob("*") if f.is_file()) / 2**20

    print(f"embedder: {embedder.fingerprint}")
    print(
        f"papers read: {report.read}, stored: {store.catalog.count()}, chunks: {report.chunks_embedded}, "
        f"duplicates merged: {report.merged}"
    )
    print(
        f"ingest: {first:.1f} s, {report.read / first:.1f} papers/s, {report.chunks_embedded / first:.1f} chunks/s"
    )
    print(f"raw embedder on the same {len(texts)} chunks: {raw:.1f} s, {len(texts) / raw:.1f} chunks/s")
    print(f"pipeline/raw throughput ratio: {raw / first:.2f}")
    print(
        f"no-op re-ingest: {noop:.1f} s ({100 * noop / first:.1f}% of the first), embedded {again.chunks_embedded}"
    )
    print(f"peak RSS: {rss:.0f} MB   store on disk: {size_mb:.0f} MB")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
