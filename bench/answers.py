"""Answer quality and speed on the development questions (bench/questions_dev.jsonl) over corpus/.

    python bench/answers.py --backend extractive [--store DIR] [--limit N] [--types ask,unanswerable] [--json]

Prints: gold paper cited (share of answerable questions), key fact present, correct refusals (of the
questions the corpus cannot answer), false refusals, invalid citations removed, time to first token and
tokens/s. Gold papers are resolved from each question's `gold_phrase` (a phrase of exactly one abstract).
Without --store, a temporary store is built from corpus/*.txt with the default embedder.
"""

from __future__ import annotations

import argparse
import json
import logging
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
from assistant.factory import build_llm  # noqa: E402
from assistant.retrieval import HybridRetriever  # noqa: E402
from assistant.settings import Settings  # noqa: E402
from vectorstore.embedders import get_embedder  # noqa: E402
from vectorstore.ingest import ingest  # noqa: E402
from vectorstore.store import PaperStore  # noqa: E402

log = logging.getLogger("bench.answers")


def load_questions(path: Path, types: set[str] | None) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if not types or r["type"] in types]


def open_store(path: str | None) -> PaperStore:
    folder = Path(path) if path else Path(tempfile.mkdtemp(prefix="paperchat-bench-")) / "store"
    store = PaperStore(folder, get_embedder(Settings().store.embedder))
    if not store.catalog.count():
        ingest(store, sorted((ROOT / "corpus").glob("*.txt")))
    return store


def run_one(assistant: Assistant, row: dict[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    first = last = None
    answer = None
    streamed: list[str] = []
    for event in assistant.stream(row["question"]):
        if event.kind == "token" and event.text.strip():
            last = time.perf_counter()
            first = first or last
            streamed.append(event.text)
        if event.kind == "final":
            answer = event.answer
    ended = time.perf_counter()
    assert answer is not None
    tokens = assistant.llm.count_tokens("".join(streamed)) if assistant.llm.generates else 0
    speed = tokens / (last - first) if first and last and tokens and last > first else None
    return {
        "answer": answer,
        "ttft": (first or ended) - started,
        "seconds": ended - started,
        "tokens_per_s": speed,
    }


def score(row: dict[str, Any], out: dict[str, Any], ids_by_phrase: dict[str, str]) -> dict[str, Any]:
    answer = out["answer"]
    text = answer.answer.lower()
    cited = {c.paper_id for c in answer.citations}
    labels = {c.label for c in answer.citations}
    result: dict[str, Any] = {
        "id": row["id"],
        "type": row["type"],
        "grounded": answer.grounded,
        "removed": answer.removed_citations,
        "ttft": out["ttft"],
        "tokens_per_s": out["tokens_per_s"],
        "unsupported": len(answer.unsupported),
    }
    if row["type"] == "ask":
        result["gold_cited"] = ids_by_phrase[row["gold_phrase"]] in cited
        result["key_fact"] = any(f.lower() in text for f in row["key_facts"])
    elif row["type"] in ("summarize", "compare"):
        gold = row.get("gold_labels", [])
        result["gold_cited"] = all(g in labels for g in gold)
        result["missing_named"] = all(
            f"{m.lower()} is not in the corpus" in text for m in row.get("missing", [])
        )
        result["coverage_line"] = "coverage: covers" in text if row["type"] == "summarize" else None
        if row["type"] == "compare":
            result["well_formed"] = (
                well_formed_table(answer.answer, len(answer.citations)) if answer.grounded else None
            )
    return result


ASPECT_ROWS = ["Problem", "Method", "Data", "Results", "Limitations"]


def well_formed_table(text: str, papers: int) -> bool:
    """A side-by-side comparison: a header row and one row per aspect, each with one cell per paper, then a
    verdict."""
    rows = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    return (
        len(rows) == 2 + len(ASPECT_ROWS)
        and all(len(c) == papers + 1 for c in cells)
        and [c[0] for c in cells[2:]] == ASPECT_ROWS
        and "verdict:" in text.lower()
    )


def summarize(results: list[dict[str, Any]], backend: str) -> dict[str, Any]:
    ask = [r for r in results if r["type"] == "ask"]
    none = [r for r in results if r["type"] == "unanswerable"]
    summ = [r for r in results if r["type"] == "summarize"]
    comp = [r for r in results if r["type"] == "compare"]
    ttft = sorted(r["ttft"] for r in results)
    answered = [r["ttft"] for r in ask if r["grounded"]]  # the typical question: the model reads sources
    speeds = [
        r["tokens_per_s"] for r in ask if r["grounded"] and r["tokens_per_s"]
    ]  # all streamed by the model

    def share(rows: list[dict[str, Any]], key: str) -> float | None:
        return round(sum(bool(r[key]) for r in rows) / len(rows), 3) if rows else None

    return {
        "backend": backend,
        "questions": len(results),
        "gold_paper_cited": share(ask, "gold_cited"),
        "key_fact_present": share(ask, "key_fact"),
        "correct_refusals": f"{sum(not r['grounded'] for r in none)}/{len(none)}",
        "false_refusals": f"{sum(not r['grounded'] for r in ask)}/{len(ask)}",
        "summaries_citing_gold": share(summ, "gold_cited"),
        "summaries_with_coverage": share(summ, "coverage_line"),
        "comparisons_citing_gold": share(comp, "gold_cited"),
        "comparisons_naming_missing": share(comp, "missing_named"),
        "comparisons_well_formed": share(
            [r for r in comp if r.get("well_formed") is not None], "well_formed"
        ),
        "invalid_citations_removed": sum(r["removed"] for r in results),
        "unsupported_statements": sum(r["unsupported"] for r in results),
        "ttft_median_s": round(statistics.median(ttft), 2) if ttft else None,
        "ttft_p90_s": round(ttft[int(0.9 * (len(ttft) - 1))], 2) if ttft else None,
        "ttft_median_answered_ask_s": round(statistics.median(answered), 2) if answered else None,
        "tokens_per_s_median": round(statistics.median(speeds), 1) if speeds else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="extractive", help="extractive, local-small, local, openai, ...")
    parser.add_argument("--store", help="an existing store of corpus/ (default: build a temporary one)")
    parser.add_argument("--questions", default=str(ROOT / "bench" / "questions_dev.jsonl"))
    parser.add_argument("--types", help="comma-separated: ask,unanswerable,summarize,compare")
    parser.add_argument("--limit", type=int, default=0, help="at most N questions of each type")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every answer")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    settings = Settings()
    store = open_store(args.store)
    retriever = HybridRetriever(store, settings.retrieval)
    assistant = Assistant(retriever, build_llm(settings, args.backend), settings)
    ids_by_phrase = {}
    rows = load_questions(Path(args.questions), set(args.types.split(",")) if args.types else None)
    if args.limit:
        rows = [
            r
            for t in dict.fromkeys(r["type"] for r in rows)
            for r in [x for x in rows if x["type"] == t][: args.limit]
        ]
    for row in rows:
        if "gold_phrase" in row:
            hits = [p.paper_id for p in retriever.papers.values() if row["gold_phrase"] in p.abstract]
            ids_by_phrase[row["gold_phrase"]] = hits[0] if len(hits) == 1 else ""
    results = []
    for row in rows:
        out = run_one(assistant, row)
        results.append(score(row, out, ids_by_phrase))
        if args.verbose:
            print(
                f"--- {row['id']} {row['question']}\n{out['answer'].answer}\n{results[-1]}\n", file=sys.stderr
            )
    figures = summarize(results, args.backend)
    if args.json:
        print(json.dumps({"figures": figures, "results": results}, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
        failed = [
            r["id"]
            for r in results
            if r.get("gold_cited") is False
            or r.get("key_fact") is False
            or (r["type"] == "unanswerable" and r["grounded"])
        ]
        print(f"failed: {', '.join(failed) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
