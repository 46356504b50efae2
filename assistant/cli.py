"""`paperchat`: ingest, stats, search, eval, ask and chat from the command line.

Errors reach the user here, as one line naming the problem, with exit code 1. The `ui` command is added
by `ui.main`, the program the `paperchat` script runs, through `build_parser(more=...)`.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from assistant.errors import PaperchatError
from assistant.settings import Settings
from assistant.types import Filters, Retrieval

__all__ = ["main", "build_parser", "settings_from_args", "AddCommands"]

log = logging.getLogger("paperchat")
AddCommands = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]", argparse.ArgumentParser], None]


def settings_from_args(args: argparse.Namespace, settings: Settings | None = None) -> Settings:
    """`settings` (default: from the environment) with the common command-line options applied."""
    settings = settings or Settings()
    if getattr(args, "store", None):
        settings.store.path = Path(args.store)
    if getattr(args, "server", None):
        settings.store.server = args.server
    if getattr(args, "embedder", None):
        settings.store.embedder = args.embedder
    if getattr(args, "backend", None):
        settings.llm.backend = args.backend
    return settings


def _filters(args: argparse.Namespace) -> Filters:
    return Filters(
        venue=getattr(args, "venue", None),
        year=getattr(args, "year", None),
        status=getattr(args, "status", None),
    )


def _print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


# ---------------------------------------------------------------------------------------------- commands


def cmd_ingest(args: argparse.Namespace) -> int:
    from assistant.factory import open_store
    from vectorstore.ingest import ingest
    from vectorstore.store import PaperStore

    settings = settings_from_args(args)
    if args.rebuild:
        PaperStore.destroy(settings.store.path, settings.store.server, settings.store.collection)
    store = open_store(settings)
    if args.if_empty and store.catalog.count():
        print(f"store {settings.store.path} already holds {store.catalog.count()} papers; nothing to do")
        return 0
    report = ingest(
        store,
        args.paths,
        batch_papers=settings.store.batch_papers,
        progress=sys.stderr.isatty() and not args.json,
    )
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report.render())
    return 0 if report.read or not report.issues else 1


def cmd_stats(args: argparse.Namespace) -> int:
    from assistant.factory import open_store

    stats = open_store(settings_from_args(args)).stats()
    if args.json:
        _print_json(stats)
        return 0
    print(
        f"papers: {stats['papers']}   chunks: {stats['chunks']}   embedding model: {stats['embedding_model']}"
    )
    for venue, count in stats["venues"].items():
        statuses = stats["statuses"].get(venue, {})
        parts = " · ".join(f"{status} {n:,}" for status, n in sorted(statuses.items(), key=lambda kv: -kv[1]))
        print(f"  {venue}: {count:,} papers ({parts})" if parts else f"  {venue}: {count:,} papers")
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from assistant.factory import build_retriever

    retriever = build_retriever(settings_from_args(args))
    found = retriever.retrieve(args.query, k=args.k, filters=_filters(args))
    if args.json:
        _print_json([r.to_dict() for r in found.results])
        return 0
    if args.bib:
        return _print_bibtex(found)
    if not found.parsed_filters.is_empty():
        print(f"filters from the question: {found.parsed_filters.describe()}")
    if not found.relevant:
        print(f"(nothing clears the relevance cutoff {found.cutoff:.2f}; nearest papers:)")
    for rank, result in enumerate(found.results, 1):
        p = result.paper
        print(
            f"{rank:>2}. [{result.score:.3f}] {p.display_name}  ({p.venue} {p.year or ''} {p.status})".rstrip()
        )
        print(f"    {result.chunk[:240]}")
    return 0


def _print_bibtex(found: Retrieval) -> int:
    """The found papers as BibTeX on stdout (for a .bib file); what else there is to say goes to stderr."""
    from assistant.bibtex import bibtex_entries

    if not found.relevant:
        print(f"(nothing clears the relevance cutoff {found.cutoff:.2f}; nearest papers)", file=sys.stderr)
    if not found.results:
        print("(no papers found: no BibTeX)", file=sys.stderr)
    sys.stdout.write(bibtex_entries([r.paper for r in found.results]))
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from assistant.evaluation import evaluate_beir

    settings = settings_from_args(args)
    figures = evaluate_beir(Path(args.beir), split=args.split, settings=settings)
    if args.json:
        _print_json(figures)
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")
    return 0


# ---------------------------------------------------------------------------------------------- parser


def build_parser(more: AddCommands | None = None) -> argparse.ArgumentParser:
    """The `paperchat` parser; `more(subparsers, common)` adds further commands (the UI's) before ask/chat."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", help="store folder (default: data/store; env PAPERCHAT_STORE__PATH)")
    common.add_argument("--server", help="Chroma server URL, e.g. http://127.0.0.1:8000 (default: embedded)")
    common.add_argument("--embedder", help="embedding backend name (default: minilm)")
    common.add_argument("-v", "--verbose", action="store_true", help="log progress")

    parser = argparse.ArgumentParser(prog="paperchat", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", parents=[common], help="add paper lists to the store")
    p.add_argument("paths", nargs="+", help="files: text lists, JSON Lines, JSON, CSV, BEIR corpus, .gz")
    p.add_argument("--rebuild", action="store_true", help="delete the store first and build it anew")
    p.add_argument("--if-empty", action="store_true", help="only ingest when the store is empty")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("stats", parents=[common], help="papers, chunks, venues, embedding model")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("search", parents=[common], help="find papers (hybrid retrieval)")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=None, help="number of papers (default: settings)")
    _filter_options(p)
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true")
    output.add_argument("--bib", action="store_true", help="print the found papers as BibTeX")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("eval", parents=[common], help="evaluate retrieval")
    eval_sub = p.add_subparsers(dest="what", required=True)
    e = eval_sub.add_parser("retrieval", parents=[common], help="nDCG@10, Recall@100, MRR@10 on a BEIR set")
    e.add_argument(
        "--beir", required=True, help="BEIR dataset folder (corpus.jsonl[.gz], queries.jsonl, qrels/)"
    )
    e.add_argument("--split", default="test")
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_eval)

    if more is not None:
        more(sub, common)

    try:
        from assistant.cli_chat import add_commands
    except ImportError:  # pragma: no cover - during development only
        return parser
    add_commands(sub)
    for name in ("ask", "chat"):
        if name in sub.choices:
            _common_options(sub.choices[name])
    return parser


def _common_options(p: argparse.ArgumentParser) -> None:
    known = {a for action in p._actions for a in action.option_strings}
    for flag, text in (
        ("--store", "store folder"),
        ("--server", "Chroma server URL"),
        ("--embedder", "embedding backend name"),
    ):
        if flag not in known:
            p.add_argument(flag, help=text)
    if "--verbose" not in known:
        p.add_argument("-v", "--verbose", action="store_true", help="log progress")


def _make_assistant(args: argparse.Namespace) -> Any:
    from assistant.factory import build_assistant

    return build_assistant(settings_from_args(args), backend=getattr(args, "backend", None))


def _filter_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--venue", help="only papers of this venue (e.g. ICML)")
    p.add_argument("--year", type=int, help="only papers of this year")
    p.add_argument("--status", help="only papers with this decision (oral, poster, ...)")


def main(argv: Sequence[str] | None = None, parser: argparse.ArgumentParser | None = None) -> int:
    """Run one command of `parser` (default: `build_parser()`); errors become one line and exit code 1."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    args = (parser or build_parser()).parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        if hasattr(args, "handler"):
            return int(args.handler(args, _make_assistant))
        return int(args.func(args))
    except PaperchatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
