"""Answer quality and speed: the development questions over the 38 samples, or the full question set over the
samples and both conference lists (issue 24).

    python bench/answers.py --backend extractive [--store DIR] [--limit N] [--types ask,unanswerable] [--json]
    python bench/answers.py --corpus full --backend local [--split train|test|all] [--failures FILE]

Both print: gold paper cited (share of answerable questions), key fact present, correct refusals (of the
questions the corpus cannot answer), false refusals, invalid citations (removed, or a number in the text that no
citation carries), summary/compare gold recall, mode routed as expected, time to first token and tokens/s.
`--corpus full` (bench/questions_full.jsonl over data/store, built by `make ingest`) adds retrieval hit@1 and
hit@5 of the default search and of BM25 alone (all single-paper questions and the hard ones), and the follow-up
second turn: the paper found (cited) and the asked fact stated. Dev gold papers are resolved from each
question's `gold_phrase` (a phrase of exactly one abstract); full gold ids through the store's aliases, so a
sample merged into its conference record counts. Without --store, the dev set builds a temporary store from
corpus/*.txt with the default embedder.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
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
from assistant.types import Answer, Turn  # noqa: E402
from vectorstore.embedders import get_embedder  # noqa: E402
from vectorstore.ingest import ingest  # noqa: E402
from vectorstore.store import PaperStore  # noqa: E402

log = logging.getLogger("bench.answers")

QUESTION_FILES = {
    "dev": ROOT / "bench" / "questions_dev.jsonl",
    "full": ROOT / "bench" / "questions_full.jsonl",
}
EXPECTED_MODE = {
    "ask": "ask",
    "unanswerable": "ask",
    "summarize": "summarize",
    "compare": "compare",
    "follow_up": "ask",
}
CITATION_NUMBER = re.compile(r"\[(\d+)\]")


def load_questions(path: Path, types: set[str] | None, split: str = "all") -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if (not types or r["type"] in types) and split in ("all", r.get("split", split))]


def limit_per_type(rows: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    if not limit:
        return rows
    kinds = dict.fromkeys(r["type"] for r in rows)
    return [r for t in kinds for r in [x for x in rows if x["type"] == t][:limit]]


def open_store(path: str | None) -> PaperStore:
    folder = Path(path) if path else Path(tempfile.mkdtemp(prefix="paperchat-bench-")) / "store"
    store = PaperStore(folder, get_embedder(Settings().store.embedder))
    if not store.catalog.count():
        ingest(store, sorted((ROOT / "corpus").glob("*.txt")))
    return store


def open_full_store(path: str | None) -> PaperStore:
    """The store of the full lists; an error naming `make ingest` if it is missing or empty."""
    folder = Path(path) if path else Settings().store.path
    if not folder.exists():
        raise SystemExit(f"no store at {folder}: build it with `make ingest` (or pass --store DIR)")
    store = PaperStore(folder, get_embedder(Settings().store.embedder))
    if store.catalog.count() < 10_000:
        raise SystemExit(
            f"the store at {folder} holds {store.catalog.count()} papers, not the full lists: run `make ingest`"
        )
    return store


def run_one(assistant: Assistant, question: str, history: Sequence[Turn] = ()) -> dict[str, Any]:
    started = time.perf_counter()
    first = last = None
    answer = None
    streamed: list[str] = []
    for event in assistant.stream(question, history):
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


def fact_present(text: str, facts: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(f.lower() in lowered for f in facts)


def invalid_numbers(answer: Answer) -> int:
    """Citation numbers the answer text uses that no citation carries, plus those the chain removed."""
    known = {c.n for c in answer.citations}
    used = {int(n) for n in CITATION_NUMBER.findall(answer.answer)}
    return len(used - known) + answer.removed_citations


def gold_recall(gold: Sequence[str], cited: set[str]) -> float:
    return sum(g in cited for g in gold) / len(gold) if gold else 0.0


def score(row: dict[str, Any], out: dict[str, Any], resolve: Callable[[str], str]) -> dict[str, Any]:
    """The figures of one answer; `resolve` maps a gold id (or, for the dev set, a gold phrase) to the stored
    paper id."""
    answer: Answer = out["answer"]
    text = answer.answer.lower()
    cited = {c.paper_id for c in answer.citations}
    labels = {c.label for c in answer.citations}
    result: dict[str, Any] = {
        "id": row["id"],
        "type": row["type"],
        "hard": bool(row.get("hard")),
        "grounded": answer.grounded,
        "mode": answer.mode,
        "mode_ok": answer.mode == EXPECTED_MODE[row["type"]],
        "removed": answer.removed_citations,
        "invalid": invalid_numbers(answer),
        "ttft": out["ttft"],
        "tokens_per_s": out["tokens_per_s"],
        "unsupported": len(answer.unsupported),
        "cited": sorted(cited),
        "standalone": answer.standalone_question,
        "answer_head": " ".join(answer.answer.split())[:240],
    }
    if row["type"] in ("ask", "follow_up"):
        gold = resolve(row["gold_id"] if "gold_id" in row else row["gold_phrase"])
        result["gold_cited"] = gold in cited
        result["key_fact"] = fact_present(text, row["key_facts"])
    elif row["type"] in ("summarize", "compare"):
        if "gold_ids" in row:
            recall = gold_recall([resolve(g) for g in row["gold_ids"]], cited)
            result["gold_recall"] = recall
            result["gold_cited"] = recall == 1.0
        else:
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


def share(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(sum(bool(r[key]) for r in rows) / len(rows), 3) if rows else None


def mean(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(statistics.mean(r[key] for r in rows), 3) if rows else None


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
        "mode_as_expected": f"{sum(r['mode_ok'] for r in results)}/{len(results)}",
        "invalid_citations_removed": sum(r["removed"] for r in results),
        "invalid_citation_numbers": sum(r["invalid"] for r in results),
        "unsupported_statements": sum(r["unsupported"] for r in results),
        "ttft_median_s": round(statistics.median(ttft), 2) if ttft else None,
        "ttft_p90_s": round(ttft[int(0.9 * (len(ttft) - 1))], 2) if ttft else None,
        "ttft_median_answered_ask_s": round(statistics.median(answered), 2) if answered else None,
        "tokens_per_s_median": round(statistics.median(speeds), 1) if speeds else None,
    }


def summarize_full(
    results: list[dict[str, Any]], retrieval: list[dict[str, Any]], backend: str
) -> dict[str, Any]:
    """The dev figures plus retrieval, the answerable split of refusals, gold-set recall and follow-ups."""
    figures = summarize(results, backend)
    ask = [r for r in results if r["type"] == "ask"]
    follow = [r for r in results if r["type"] == "follow_up"]
    summ = [r for r in results if r["type"] == "summarize"]
    comp = [r for r in results if r["type"] == "compare"]
    hard = [r for r in retrieval if r["hard"]]
    for name, rows in (("all", retrieval), ("hard", hard)):
        for key in ("default_hit1", "default_hit5", "bm25_hit1", "bm25_hit5"):
            figures[f"retrieval_{key}_{name}"] = share(rows, key)
    figures["retrieval_questions"] = f"{len(retrieval)} ({len(hard)} hard)"
    figures["gold_paper_cited_hard"] = share([r for r in ask if r["hard"]], "gold_cited")
    figures["key_fact_present_hard"] = share([r for r in ask if r["hard"]], "key_fact")
    answerable = ask + follow
    figures["false_refusals"] = f"{sum(not r['grounded'] for r in answerable)}/{len(answerable)}"
    figures["follow_up_paper_found"] = f"{sum(r['gold_cited'] for r in follow)}/{len(follow)}"
    figures["follow_up_fact_stated"] = f"{sum(r['key_fact'] for r in follow)}/{len(follow)}"
    figures["follow_up_found_and_stated"] = (
        f"{sum(r['gold_cited'] and r['key_fact'] for r in follow)}/{len(follow)}"
    )
    figures["summary_gold_recall"] = mean(summ, "gold_recall")
    figures["compare_gold_recall"] = mean(comp, "gold_recall")
    figures["summary_compare_gold_recall"] = mean(summ + comp, "gold_recall")
    return figures


def retrieval_row(
    row: dict[str, Any], retriever: HybridRetriever, store: PaperStore, gold: str
) -> dict[str, Any]:
    """Where the gold paper ranks in the default search and in BM25 alone (the store's lexical index)."""
    default = [r.paper.paper_id for r in retriever.retrieve(row["question"], k=10).results]
    bm25 = [pid for pid, _ in store.lexical_search(row["question"], k=10)]
    return {
        "id": row["id"],
        "hard": bool(row.get("hard")),
        "default_rank": default.index(gold) + 1 if gold in default else None,
        "bm25_rank": bm25.index(gold) + 1 if gold in bm25 else None,
        "default_hit1": default[:1] == [gold],
        "default_hit5": gold in default[:5],
        "bm25_hit1": bm25[:1] == [gold],
        "bm25_hit5": gold in bm25[:5],
        "default_top": default[:3],
    }


def failure_lines(results: list[dict[str, Any]], retrieval: list[dict[str, Any]]) -> list[str]:
    """One line per failed check: the question id and what went wrong."""
    lines = []
    for r in retrieval:
        if not r["default_hit5"]:
            lines.append(
                f"{r['id']}: retrieval: gold not in the default top 5 (rank {r['default_rank']}, "
                f"BM25 rank {r['bm25_rank']}, top {r['default_top']})"
            )
    for r in results:
        problems = []
        if r["type"] == "unanswerable" and r["grounded"]:
            problems.append(f"answered instead of refusing (cited {r['cited'][:3]})")
        if r["type"] in ("ask", "follow_up") and not r["grounded"]:
            problems.append("refused although answerable")
        if r.get("gold_cited") is False and r["type"] in ("ask", "follow_up"):
            problems.append("gold paper not cited")
        if r.get("key_fact") is False:
            problems.append("key fact missing from the answer")
        if "gold_recall" in r and r["gold_recall"] < 1.0:
            problems.append(f"gold recall {r['gold_recall']:.2f}")
        if not r["mode_ok"]:
            problems.append(f"routed to {r['mode']}, expected {EXPECTED_MODE[r['type']]}")
        if r["invalid"]:
            problems.append(f"{r['invalid']} invalid citation number(s)")
        if problems:
            lines.append(f"{r['id']}: " + "; ".join(problems))
            lines.append(f"    searched: {r['standalone']!r}  answer: {r['answer_head']!r}")
    return lines


def run_dev(
    args: argparse.Namespace, settings: Settings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    store = open_store(args.store)
    retriever = HybridRetriever(store, settings.retrieval)
    assistant = Assistant(retriever, build_llm(settings, args.backend), settings)
    rows = limit_per_type(load_questions(Path(args.questions), args.type_set), args.limit)
    ids_by_phrase: dict[str, str] = {}
    for row in rows:
        if "gold_phrase" in row:
            hits = [p.paper_id for p in retriever.papers.values() if row["gold_phrase"] in p.abstract]
            ids_by_phrase[row["gold_phrase"]] = hits[0] if len(hits) == 1 else ""
    results = []
    for row in rows:
        out = run_one(assistant, row["question"])
        results.append(score(row, out, lambda phrase: ids_by_phrase[phrase]))
        if args.verbose:
            print(
                f"--- {row['id']} {row['question']}\n{out['answer'].answer}\n{results[-1]}\n", file=sys.stderr
            )
    return results, []


def run_full(
    args: argparse.Namespace, settings: Settings
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    store = open_full_store(args.store)
    retriever = HybridRetriever(store, settings.retrieval)
    assistant = Assistant(retriever, build_llm(settings, args.backend), settings)
    rows = limit_per_type(load_questions(Path(args.questions), args.type_set, args.split), args.limit)

    def resolve(paper_id: str) -> str:
        return store.catalog.resolve(paper_id) or paper_id

    retrieval = [
        retrieval_row(r, retriever, store, resolve(r["gold_id"])) for r in rows if r["type"] == "ask"
    ]
    results = []
    for row in rows:
        if row["type"] == "follow_up":
            first = assistant.ask(row["turns"][0])
            turn = Turn(row["turns"][0], first.answer, [c.paper_id for c in first.citations])
            out = run_one(assistant, row["turns"][1], [turn])
        else:
            out = run_one(assistant, row["question"])
        results.append(score(row, out, resolve))
        if args.verbose:
            asked = " / ".join(row["turns"]) if "turns" in row else row["question"]
            print(f"--- {row['id']} {asked}\n{out['answer'].answer}\n{results[-1]}\n", file=sys.stderr)
    return results, retrieval


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--backend", default="extractive", help="extractive, local-small, local, openai, ...")
    parser.add_argument(
        "--corpus", choices=["dev", "full"], default="dev", help="dev: 38 samples; full: data/store"
    )
    parser.add_argument(
        "--store", help="dev: an existing store of corpus/ (default: a temporary one); full: data/store"
    )
    parser.add_argument(
        "--questions", help="default: bench/questions_dev.jsonl or bench/questions_full.jsonl"
    )
    parser.add_argument("--types", help="comma-separated: ask,unanswerable,summarize,compare,follow_up")
    parser.add_argument("--split", choices=["train", "test", "all"], default="all", help="full set only")
    parser.add_argument("--limit", type=int, default=0, help="at most N questions of each type")
    parser.add_argument("--failures", help="also write the per-question failures to this file")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every answer")
    args = parser.parse_args(argv)
    args.questions = args.questions or str(QUESTION_FILES[args.corpus])
    args.type_set = set(args.types.split(",")) if args.types else None
    logging.basicConfig(level=logging.WARNING)

    settings = Settings()
    if args.corpus == "full":
        results, retrieval = run_full(args, settings)
        figures = summarize_full(results, retrieval, args.backend)
    else:
        results, retrieval = run_dev(args, settings)
        figures = summarize(results, args.backend)
    failures = failure_lines(results, retrieval)
    if args.failures:
        header = f"# bench/answers.py --corpus {args.corpus} --backend {args.backend} --split {args.split}\n"
        Path(args.failures).write_text(header + "\n".join(failures) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps({"figures": figures, "results": results, "retrieval": retrieval}, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
        print("failures:" if failures else "failures: none")
        for line in failures:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
