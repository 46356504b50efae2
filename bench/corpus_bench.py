"""The corpus mode against the true answers (issue 22): bench/corpus_questions.jsonl (made from the raw lists by
bench/corpus_truth.py) asked in the auto mode over a store of the two full conference lists.

    python bench/corpus_bench.py [--store DIR] [--failures] [--json]

Prints: routed to the corpus mode, exact count (the headline number, or "unknown" where a list lacks the
field), list recall and precision of the list questions, exact groups (every group's count, and its
denominator for a share; the top counts for keywords and authors), exact share (count and denominator), and
the time per question. Without --store the lists are ingested into a temporary store with the hash embedder
(the corpus mode reads metadata; about a minute); with --store DIR a store of exactly the two lists is built
there once and reused (data/store also holds the samples, whose three unlisted papers would change counts).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

from assistant.chain import Assistant  # noqa: E402
from assistant.corpus_names import folded  # noqa: E402
from assistant.corpus_stats import CorpusResult  # noqa: E402
from assistant.llm.extractive import ExtractiveBackend  # noqa: E402
from assistant.retrieval import HybridRetriever  # noqa: E402
from assistant.settings import Settings  # noqa: E402
from bench.corpus_truth import OUT, title_key  # noqa: E402
from vectorstore.embedders import get_embedder  # noqa: E402
from vectorstore.ingest import ingest  # noqa: E402
from vectorstore.store import PaperStore  # noqa: E402

LISTS = sorted((ROOT / "corpus" / "conferences").glob("*.jsonl.gz"))


def open_store(path: str | None) -> PaperStore:
    folder = Path(path) if path else Path(tempfile.mkdtemp(prefix="paperchat-corpus-bench-")) / "store"
    store = PaperStore(folder, get_embedder("hash"))
    if not store.catalog.count():
        print(f"ingesting the two lists into {folder} (hash embedder) …", file=sys.stderr)
        ingest(store, LISTS)
    return store


def score(row: dict[str, Any], found: CorpusResult | None, mode: str) -> dict[str, Any]:
    """The checks of one question: routed, count, and (by kind) list recall/precision, groups, share."""
    got = found.count if found else "not answered"
    out: dict[str, Any] = {"id": row["id"], "routed": mode == "corpus", "count": got == row["count"]}
    out["got"], out["want"] = got, row["count"]
    if found is None:
        return out
    if "titles" in row:
        want, have = set(row["titles"]), {title_key(p.title) for p in found.papers}
        out["recall"] = len(want & have) / len(want) if want else 1.0
        out["precision"] = len(want & have) / len(have) if have else float(not want)
    if row["show"] == "share":
        out["share"] = (found.count, found.total) == (row["count"], row["total"]) if "total" in row else False
    if "groups" in row:
        out["groups"] = _groups_match(row, found)
    return out


def _groups_match(row: dict[str, Any], found: CorpusResult) -> bool:
    want = row["groups"]
    if isinstance(want, list):  # keywords, authors: the top counts (names tie), and the first name
        counts = [g.count for g in found.groups]
        first = _key(row["group"], found.groups[0].name) if found.groups else ""
        return counts == [n for _, n in want] and (
            not want or first in {n for n, c in want if c == want[0][1]}
        )
    if row["show"] == "share":
        return {g.name: [g.count, g.total] for g in found.groups} == want
    return {g.name: g.count for g in found.groups if g.count} == want


def _key(group: str, name: str) -> str:
    if group == "author":
        return folded(name)
    text = " ".join(name.lower().replace("-", " ").split())
    return text[:-1] if len(text) > 3 and text.endswith("s") and not text.endswith("ss") else text


def share_of(results: list[dict[str, Any]], name: str) -> tuple[int, int]:
    relevant = [r[name] for r in results if name in r]
    return sum(bool(v) for v in relevant), len(relevant)


def report(results: list[dict[str, Any]], seconds: list[float]) -> list[str]:
    lines = [f"corpus questions: {len(results)} (bench/corpus_questions.jsonl, truth from the raw lists)"]
    for name, label in (
        ("routed", "routed to the corpus mode"),
        ("count", "exact count"),
        ("groups", "exact groups"),
        ("share", "exact share (count and denominator)"),
    ):
        ok, n = share_of(results, name)
        if n:
            lines.append(f"{label}: {ok}/{n} ({100 * ok / n:.0f}%)")
    recalls = [r["recall"] for r in results if "recall" in r]
    if recalls:
        precision = statistics.mean(r["precision"] for r in results if "precision" in r)
        lines.append(
            f"list recall: {statistics.mean(recalls):.3f}, precision {precision:.3f} ({len(recalls)} lists)"
        )
    lines.append(f"time per question: median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--store", help="a store of exactly the two lists (built there if empty)")
    parser.add_argument("--questions", default=str(OUT))
    parser.add_argument("--failures", action="store_true", help="print each failed check")
    parser.add_argument("--json", action="store_true", help="print the per-question results as JSON")
    args = parser.parse_args(argv)
    settings = Settings()
    store = open_store(args.store)
    assistant = Assistant(HybridRetriever(store, settings.retrieval), ExtractiveBackend(), settings)
    rows = [
        json.loads(line) for line in Path(args.questions).read_text(encoding="utf-8").splitlines() if line
    ]
    results, seconds = [], []
    for row in rows:
        start = time.perf_counter()
        answer = assistant.ask(row["question"])
        seconds.append(time.perf_counter() - start)
        results.append(score(row, answer.corpus, answer.mode))
    if args.json:
        print(json.dumps(results, indent=2, default=str))
    print("\n".join(report(results, seconds)))
    if args.failures:
        for r in results:
            bad = [k for k in ("routed", "count", "groups", "share") if r.get(k) is False]
            bad += [k for k in ("recall", "precision") if r.get(k, 1.0) < 1.0]
            if bad:
                print(f"{r['id']}: {', '.join(bad)} (got {r['got']}, want {r['want']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
