"""Side-by-side comparisons of the papers a question names ("compare A and B", "A vs B", "the two X papers").

The table of aspects (problem, method, data, results, limitations) is built here, one column per paper,
each cell citing its paper; a model fills in the cells from each abstract alone and writes the verdict,
and without a model the cells are the abstracts' cue sentences (`extractive_compare`).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator, Sequence

import prompts
from assistant.citations import cite_plain
from assistant.context import build_context, defuse
from assistant.extractive import (
    ASPECTS,
    aspect_cells,
    compare_names,
    compare_table,
    extractive_compare,
    short_name,
    token_events,
)
from assistant.modes import compare_targets
from assistant.types import Answer, Event, Filters, Request, SearchResult
from assistant.writing import Writer

__all__ = ["run_compare", "parse_aspects", "COMPARE_PAPER_TOKENS", "CELL_WORDS"]

_NAME_LIKE = re.compile(r"^[\w-]*[A-Z0-9][\w-]*$")
_ASPECT_LINE = re.compile(
    r"^\W*(?P<aspect>problem|method|data|results?|limitations?)\W*\s*:\s*(?P<value>.*)$", re.IGNORECASE
)
_NOT_STATED = re.compile(
    r"^\W*(?:not\s+(?:stated|mentioned|specified|given|discussed)|none|n/?a|unknown|-+)\W*$", re.IGNORECASE
)
COMPARE_PAPER_TOKENS = 220  # five lines of under 25 words
CELL_WORDS = 40  # longest cell a model may fill


def run_compare(writer: Writer, request: Request) -> Iterator[Event]:
    """Compare the papers `request.standalone` names, yielding the events of `Assistant.stream`."""
    standalone = request.standalone
    papers, missing = _resolve(writer, standalone)
    notes = [f"{name} is not in the corpus." for name in missing]
    if missing:
        yield Event("status", "Not in the corpus: " + ", ".join(missing))
    if len(papers) < 2:
        yield from _cannot_compare(standalone, papers, notes)
        return
    names = " and ".join(f"{short_name(r) or 'paper'} [{n}]" for n, r in enumerate(papers, 1))
    yield Event("status", f"Comparing {names}")
    prefix = "\n".join(notes) + ("\n\n" if notes else "")
    if prefix:
        yield Event("token", prefix)
    text = yield from _write(writer, standalone, papers)
    checked = writer.validate(text, papers)
    yield Event(
        "final",
        answer=Answer(
            prefix + checked.text,
            True,
            "compare",
            standalone,
            checked.citations,
            papers,
            request.filters or Filters(),
            checked.unsupported,
            checked.removed,
        ),
    )


def _write(writer: Writer, question: str, papers: Sequence[SearchResult]) -> Generator[Event, None, str]:
    """The comparison's text, streamed: table and verdict by the model, or drawn from the abstracts."""
    if writer.llm.generates:
        return (yield from _compare_with_llm(writer, question, papers))
    text = extractive_compare(papers)
    yield from token_events(text)
    return text


def _compare_with_llm(
    writer: Writer, question: str, papers: Sequence[SearchResult]
) -> Generator[Event, None, str]:
    """The table is built here, not by the model: small models asked for a whole table mix up its rows and
    columns. The model fills in each paper's aspects from that paper's abstract alone (one call per paper,
    "Method: …" lines), an aspect it leaves out is taken from the abstract's cue sentences (`aspect_cells`),
    and the table is rendered with each cell citing its paper. Then the model writes the verdict from the
    table, streamed. Returns the whole text."""
    names = compare_names(papers)
    columns: list[dict[str, str]] = []
    for n, (name, paper) in enumerate(zip(names, papers, strict=True), 1):
        yield Event("status", f"Reading {name} [{n}] ({n} of {len(papers)})")
        columns.append(_column(writer, question, name, paper, n))
    table = compare_table(names, columns)
    yield from token_events(table + "\n\nVerdict: ")
    prompt = prompts.render("compare_verdict", question=question, table=table)
    verdict = yield from _without_prefix(writer.generate(prompt, len(papers)), "verdict:")
    return f"{table}\n\nVerdict: {verdict}"


def _column(writer: Writer, question: str, name: str, paper: SearchResult, n: int) -> dict[str, str]:
    """Paper `n`'s cells: the aspects the model states from its abstract, the rest from the abstract."""
    budget = writer.source_budget(prompts.render("compare_paper", sources="", paper=name))
    context = build_context([paper], writer.llm, budget=budget, question=question, compact=False, first=n)
    reply = writer.complete(
        prompts.render("compare_paper", sources=context.text, paper=defuse(name)),
        max_tokens=COMPARE_PAPER_TOKENS,
    )
    parsed, fallback = parse_aspects(reply), aspect_cells(paper)
    return {aspect: parsed[aspect] if aspect in parsed else fallback[aspect] for aspect in ASPECTS}


def parse_aspects(reply: str) -> dict[str, str]:
    """The aspects a model's "Problem: …" lines state ("not stated" kept as ""), markers and markup removed."""
    found: dict[str, str] = {}
    for line in reply.splitlines():
        match = _ASPECT_LINE.match(line)
        if not match:
            continue
        aspect = next(a for a in ASPECTS if a.lower().startswith(match.group("aspect").lower()[:4]))
        value = re.sub(r"\s*\[\d+(?:\s*,\s*\d+)*\]", "", match.group("value")).strip(" *_`\"'")
        if aspect not in found:
            found[aspect] = "" if _NOT_STATED.match(value) else _clip_words(value, CELL_WORDS)
    return found


def _without_prefix(events: Generator[Event, None, str], prefix: str) -> Generator[Event, None, str]:
    """Pass `events` on, dropping a leading `prefix` (any case, with markup) from the streamed text; returns
    the generator's text without it."""
    pending, started = "", False
    while True:
        try:
            event = next(events)
        except StopIteration as stop:
            raw = str(stop.value or "")
            break
        if started or event.kind != "token":
            yield event
            continue
        pending += event.text
        if len(pending) >= len(prefix) + 8:
            started = True
            if shown := _strip_prefix(pending, prefix):
                yield Event("token", shown)
    if not started and (shown := _strip_prefix(pending, prefix)):
        yield Event("token", shown)
    return _strip_prefix(raw, prefix)


def _strip_prefix(text: str, prefix: str) -> str:
    return re.sub(
        rf"^\s*[*_#]*\s*{re.escape(prefix.rstrip(':'))}\s*[*_]*\s*:?\s*[*_]*\s*",
        "",
        text,
        flags=re.IGNORECASE,
    )


def _clip_words(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _resolve(writer: Writer, question: str) -> tuple[list[SearchResult], list[str]]:
    """The papers the question names (in order, without repeats) and the names found in no paper."""
    targets, count = compare_targets(question)
    retriever = writer.retriever
    if count:
        found = retriever.retrieve(targets[0], k=count)
        return [r for r in found.results if r.score >= found.cutoff], [] if found.relevant else targets
    papers: dict[str, SearchResult] = {}
    missing: list[str] = []
    for name in targets:
        hits = retriever.find(name, k=1)
        exact = bool(hits) and hits[0].score >= 1.0
        described = bool(hits) and not _NAME_LIKE.match(name) and hits[0].score >= retriever.cutoff
        if exact or described:
            papers.setdefault(hits[0].paper.paper_id, hits[0])
        else:
            missing.append(name)
    return list(papers.values()), missing


def _cannot_compare(question: str, papers: list[SearchResult], notes: list[str]) -> Iterator[Event]:
    if papers:
        notes.append(
            f"Only one of the papers is in the corpus: {short_name(papers[0]) or 'a paper'} [1]; "
            "there is nothing to compare it with."
        )
    else:
        notes.append("None of the papers named is in the corpus, so there is nothing to compare.")
    text, citations = cite_plain("\n".join(notes), papers)
    yield from token_events(text)
    yield Event(
        "final",
        answer=Answer(
            text,
            False,
            "compare",
            question,
            citations,
            papers,
            notice="Comparison needs at least two papers from the corpus.",
        ),
    )
