"""Subfield summaries: every matching paper (up to `chain.summarize_cap`), grouped into themes, each cited.

With a language model the papers are read map-then-reduce (notes per batch of papers that fits the
context, then an overview of the notes); without one, `extractive_summary` groups the abstracts' key
sentences. Papers the overview leaves out are listed after it, so that every paper used is cited.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator, Sequence
from typing import Protocol

import prompts
from assistant.citations import SupportScorer, Validated, cite_plain
from assistant.context import Context, build_context, defuse, is_compact
from assistant.extractive import extractive_summary, key_sentence, short_name, token_events
from assistant.llm.base import ChatBackend
from assistant.modes import detect_mode, summarize_topic
from assistant.types import Answer, Citation, Event, Filters, Request, SearchResult, Turn
from assistant.writing import Writer

__all__ = ["run_summarize", "extractive_notes", "wants_full_list", "NOTE_WORDS", "LIST_CAP", "LIST_ALL_HINT"]

NOTE_WORDS = 30  # longest note on one paper when a local model's summary notes are taken from the abstracts
LIST_CAP = 1000  # most papers a full list of a subfield shows
LIST_ALL_HINT = "Ask “list all of them” to see every matching paper."
_LIST_ALL = re.compile(
    r"\b(?:list|show|give|see|display|print)\s+(?:me\s+|us\s+)?(?:them\s+all|all\b|every\s+(?:one|paper)|"
    r"each\s+(?:one|paper)|the\s+(?:full|whole|complete|entire)\s+list|the\s+rest|the\s+others|the\s+remaining)|"
    r"\ball\s+(?:of\s+)?(?:them|the\s+(?:matching\s+)?papers)\b|\bfull\s+list\b",
    re.IGNORECASE,
)


def wants_full_list(question: str, history: Sequence[Turn]) -> bool:
    """Whether `question` asks for every paper of the subfield the last turn summarized ("list all of them")."""
    return (
        bool(history)
        and bool(_LIST_ALL.search(question))
        and detect_mode(history[-1].question) == "summarize"
    )


class Reader(Protocol):
    """What `extractive_notes` reads with: a `Writer` or an `Assistant`."""

    @property
    def llm(self) -> ChatBackend: ...

    @property
    def scorer(self) -> SupportScorer: ...


def run_summarize(writer: Writer, request: Request) -> Iterator[Event]:
    """Summarize the work on the topic of `request.standalone`, yielding the events of `Assistant.stream`."""
    standalone, retriever = request.standalone, writer.retriever
    if wants_full_list(request.question, request.history):
        yield from _full_list(writer, request)
        return
    found = retriever.retrieve_all(
        summarize_topic(standalone), filters=request.filters, cap=writer.settings.chain.summarize_cap
    )
    if not found.parsed_filters.is_empty():
        yield Event("status", f"Filters: {found.parsed_filters.describe()}")
    if not found.results:
        yield from writer.not_covered(standalone, request.filters, mode="summarize", parsed=found)
        return
    matching = max(retriever.count_matching(found.query, found.filters), len(found.results))
    results = found.results
    yield Event("status", f"Summarizing {len(results)} of {matching} matching papers on {found.query!r}")
    text = yield from _write(writer, found.query, results)
    checked = writer.validate(text, results)
    final, citations = _with_left_out(checked, results)
    coverage = f"Coverage: covers {len(citations)} of {matching} matching papers."
    if matching > len(citations):
        coverage += " " + LIST_ALL_HINT
    yield Event("token", final[len(checked.text) :] + "\n\n" + coverage)
    yield Event(
        "final",
        answer=Answer(
            f"{final}\n\n{coverage}",
            True,
            "summarize",
            standalone,
            citations,
            list(results),
            found.filters,
            checked.unsupported,
            checked.removed,
        ),
    )


def _full_list(writer: Writer, request: Request) -> Iterator[Event]:
    """Every paper matching the subfield of the last summary, best match first, each cited: what the
    summary's coverage line counted, so that none of the matching papers stays out of reach."""
    topic = summarize_topic(request.history[-1].question)
    found = writer.retriever.retrieve_all(topic, filters=request.filters, cap=LIST_CAP)
    if not found.results:
        yield from writer.not_covered(topic, request.filters, mode="summarize", parsed=found)
        return
    results = found.results
    yield Event("status", f"Listing the {len(results)} papers matching {found.query!r}")
    lines = [f"All {len(results)} papers matching “{defuse(found.query)}”, best match first:", ""]
    for n, result in enumerate(results, 1):
        paper = result.paper
        where = " ".join(str(x) for x in (paper.venue, paper.year) if x)
        title = defuse(paper.title or paper.label or paper.paper_id)
        lines.append(f"{n}. **{title}**" + (f" ({where})" if where else "") + f" [{n}]")
    text, citations = cite_plain("\n".join(lines), results)
    yield from token_events(text)
    filters = found.filters or Filters()
    yield Event("final", answer=Answer(text, True, "summarize", topic, citations, list(results), filters))


def _write(writer: Writer, topic: str, results: Sequence[SearchResult]) -> Generator[Event, None, str]:
    """The overview's text, streamed: written by the model, or drawn from the abstracts."""
    if writer.llm.generates:
        return (yield from _summarize_with_llm(writer, topic, results))
    text = extractive_summary(topic, results, writer.scorer)
    yield from token_events(text)
    return text


def _with_left_out(checked: Validated, results: Sequence[SearchResult]) -> tuple[str, list[Citation]]:
    """The checked overview, and its citations, followed by the papers it left out (numbered after them)."""
    final, citations = checked.text, list(checked.citations)
    cited = {c.paper_id for c in citations}
    left_out = [r for r in results if r.paper.paper_id not in cited]
    if not left_out:
        return final, citations
    also, more = cite_plain(", ".join(f"{_name(r)} [{n}]" for n, r in enumerate(left_out, 1)), left_out)
    for c in more:
        c.n += len(citations)
    also = re.sub(r"\[(\d+)\]", lambda m: f"[{int(m.group(1)) + len(citations)}]", also)
    return f"{final}\n\nAlso on this topic: {also}.", citations + more


def _summarize_with_llm(
    writer: Writer, topic: str, results: Sequence[SearchResult]
) -> Generator[Event, None, str]:
    """Map (notes per batch of papers that fits the context) then reduce (themes); returns the text.

    A local model reads prompts at ~50 tokens/s here, so one map call per batch of papers would keep the
    user waiting minutes for the first token: for local models the notes are each paper's key sentence
    instead (`extractive_notes`), and the model writes only the overview.
    """
    if is_compact(writer.llm):
        reduce = prompts.render("summarize_reduce", topic=topic, notes="", count=len(results))
        budget = writer.source_budget(reduce, local_budget=writer.llm.context_window)
        notes = extractive_notes(writer, topic, results, budget=budget)
        prompt = prompts.render("summarize_reduce", topic=topic, notes=notes, count=len(notes.splitlines()))
        return (yield from writer.generate(prompt, len(results)))
    notes = yield from _map_notes(writer, topic, results)
    prompt = prompts.render("summarize_reduce", topic=topic, notes=notes, count=len(results))
    return (yield from writer.generate(prompt, len(results)))


def _map_notes(writer: Writer, topic: str, results: Sequence[SearchResult]) -> Generator[Event, None, str]:
    """The notes on `results`: the sources themselves when they fit one prompt, else the model's notes
    on each batch of them."""
    batches = _batches(writer, topic, results)
    if len(batches) == 1:
        return batches[0].text
    parts = []
    for i, context in enumerate(batches, 1):
        yield Event("status", f"Reading papers: batch {i} of {len(batches)}")
        parts.append(writer.complete(prompts.render("summarize_map", topic=topic, sources=context.text)))
    return "\n".join(parts)


def _batches(writer: Writer, topic: str, results: Sequence[SearchResult]) -> list[Context]:
    """`results` cut into consecutive contexts that each fit the map prompt, numbered on from each other."""
    budget = writer.source_budget(prompts.render("summarize_map", topic=topic, sources=""))
    batches = []
    first = 1
    while first <= len(results):
        context = build_context(
            results[first - 1 :], writer.llm, budget=budget, question=topic, compact=True, first=first
        )
        batches.append(context)
        first += max(1, len(context.sources))
    return batches


def extractive_notes(reader: Reader, topic: str, results: Sequence[SearchResult], *, budget: int) -> str:
    """One note per paper, "- Name: key sentence [n]", the sentences shortened so the notes fit `budget`
    tokens; notes that still do not fit are left out (the summary then lists those papers as not covered)."""
    query = reader.scorer.embed([topic])[0]
    words = max(8, min(NOTE_WORDS, int(budget / max(1, len(results)) / 1.6) - 6))
    lines: list[str] = []
    used = 0
    for n, result in enumerate(results, 1):
        sentence = defuse(key_sentence(result, reader.scorer, query)).split()
        text = " ".join(sentence[:words]) + (" …" if len(sentence) > words else "")
        line = f"- {defuse(short_name(result) or result.paper.label)}: {text} [{n}]"
        used += reader.llm.count_tokens(line) + 1
        if used > budget:
            break
        lines.append(line)
    return "\n".join(lines)


def _name(result: SearchResult) -> str:
    return short_name(result) or " ".join(result.paper.abstract.split()[:6]) + " …"
