"""`paperchat ask` and `paperchat chat`: questions from the terminal, streamed, with numbered sources.

`add_commands(subparsers)` registers both; each handler is `handler(args, make_assistant) -> int`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TextIO

from assistant.bibtex import bibtex_entries, cited_papers
from assistant.chain import Assistant
from assistant.corpus_answer import table_text
from assistant.errors import PaperchatError
from assistant.modes import MODES
from assistant.types import Answer, Filters, Turn

__all__ = ["add_commands", "cmd_ask", "cmd_chat", "render_sources"]

MakeAssistant = Callable[[argparse.Namespace], Assistant]
HISTORY_TURNS = 6


def add_commands(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser("ask", help="answer one question from the papers, with citations")
    p.add_argument("question")
    _shared_options(p)
    p.add_argument(
        "--mode",
        choices=MODES,
        default="auto",
        help="ask, summarize, compare, corpus (counts, lists, breakdowns; default: from the question)",
    )
    p.add_argument("-k", type=int, default=None, help="papers retrieved (default: settings)")
    p.add_argument("--venue", help="only papers of this venue (e.g. ICML)")
    p.add_argument("--year", type=int, help="only papers of this year")
    p.add_argument("--status", help="only papers with this decision (oral, poster, ...)")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object instead of streaming")
    output.add_argument(
        "--bib", action="store_true", help="print the cited papers as BibTeX (the answer goes to stderr)"
    )
    p.set_defaults(handler=cmd_ask)

    p = subparsers.add_parser("chat", help="a conversation in the terminal (/clear resets, /quit exits)")
    _shared_options(p)
    p.set_defaults(handler=cmd_chat)


def _shared_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", help="language-model backend: local, local-small, openai, ollama, extractive")


def cmd_ask(args: argparse.Namespace, make_assistant: MakeAssistant, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    assistant = make_assistant(args)
    filters = Filters(venue=args.venue, year=args.year, status=args.status)
    kwargs = {"mode": args.mode, "filters": None if filters.is_empty() else filters, "k": args.k}
    if args.json:
        events = list(assistant.stream(args.question, **kwargs))  # type: ignore[arg-type]
        final = events[-1].answer
        assert final is not None
        data = final.to_dict()
        if final.corpus is not None:  # a corpus answer: count, criterion, papers, groups at the top
            data.update(data.pop("corpus"))
        out.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        for event in events:
            if event.kind == "error":
                print(f"error: {event.text}", file=sys.stderr)
        return 1 if any(e.kind == "error" for e in events) else 0
    if args.bib:
        return _ask_bibtex(assistant, args.question, kwargs, out)
    streamed, failed = _stream(assistant, args.question, [], kwargs, out)
    return 1 if streamed is None or failed else 0


def _ask_bibtex(assistant: Assistant, question: str, kwargs: dict[str, object], out: TextIO) -> int:
    """The answer streamed to stderr, the BibTeX of the papers it cites to `out` (for a .bib file)."""
    answer, failed = _stream(assistant, question, [], kwargs, sys.stderr)
    if answer is None:
        return 1
    papers = cited_papers(answer) if answer.grounded else []  # an ungrounded answer names the nearest only
    if not papers:
        note = "the answer cites no supporting papers: no BibTeX; `paperchat search --bib` gives the nearest"
        print(f"({note})", file=sys.stderr)
    out.write(bibtex_entries(papers))
    return 1 if failed else 0


def cmd_chat(
    args: argparse.Namespace,
    make_assistant: MakeAssistant,
    out: TextIO | None = None,
    read: Callable[[str], str] = input,
) -> int:
    out = out or sys.stdout
    assistant = make_assistant(args)
    out.write("paperchat — ask about the papers. /clear starts over, /quit exits.\n")
    history: list[Turn] = []
    while True:
        try:
            line = read("\nyou> ").strip()
        except (EOFError, KeyboardInterrupt):
            out.write("\n")
            return 0
        if not line:
            continue
        if line in ("/quit", "/exit"):
            return 0
        if line == "/clear":
            history = []
            out.write("(conversation cleared)\n")
            continue
        try:
            answer, _ = _stream(assistant, line, history, {}, out)
        except PaperchatError as exc:
            out.write(f"error: {exc}\n")
            continue
        if answer is not None:
            history.append(
                Turn(answer.standalone_question, answer.answer, [c.paper_id for c in answer.citations])
            )
            history = history[-HISTORY_TURNS:]


def _stream(
    assistant: Assistant, question: str, history: list[Turn], kwargs: dict[str, object], out: TextIO
) -> tuple[Answer | None, bool]:
    """Print the answer as it streams, then the checked answer if it differs, then its sources.
    Returns the answer and whether the backend failed."""
    shown: list[str] = []
    answer: Answer | None = None
    failed = False
    for event in assistant.stream(question, history, **kwargs):  # type: ignore[arg-type]
        if event.kind == "status":
            out.write(f"({event.text})\n")
        elif event.kind == "token":
            shown.append(event.text)
            out.write(event.text)
            out.flush()
        elif event.kind == "error":
            failed = True
            out.write(f"\nerror: {event.text}\n")
        elif event.kind == "final":
            answer = event.answer
    out.write("\n")
    if answer is None:
        return None, failed
    if answer.answer.strip() != "".join(shown).strip():
        out.write("\nChecked answer:\n" + answer.answer + "\n")
    if answer.notice:
        out.write(f"\nnote: {answer.notice}\n")
    if answer.unsupported:
        out.write(f"\n({len(answer.unsupported)} statement(s) not supported by any source)\n")
    out.write(render_sources(answer))
    if answer.corpus is not None:
        out.write(table_text(answer.corpus))
    return answer, failed


def render_sources(answer: Answer) -> str:
    if not answer.citations:
        return ""
    lines = ["", "Sources:"]
    for c in answer.citations:
        where = " ".join(str(x) for x in (c.venue, c.year) if x)
        name = c.title or c.label
        lines.append(f"  [{c.n}] {name}" + (f" ({where})" if where else "") + f"  {c.paper_id}")
    return "\n".join(lines) + "\n"
