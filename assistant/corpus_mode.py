"""Questions about the conferences as a whole, answered by code: read the question into a `Criterion`
(`assistant.corpus_parse`), select the papers in SQL (`assistant.corpus_stats`), write the numbers, the
criterion and a few cited examples (`assistant.corpus_answer`). A language model, when there is one, may add
one short cited paragraph about the example papers; sentences of it that state a number are dropped, so
every number in the answer comes from a query.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import weakref
from collections.abc import Generator, Iterator, Sequence

import prompts
from assistant.citations import MARKER, cite_plain, parse_numbers
from assistant.context import build_context
from assistant.corpus_answer import corpus_text, example_count
from assistant.corpus_parse import parse_question
from assistant.corpus_query import Criterion
from assistant.corpus_route import criterion_for, looks_like_corpus_question
from assistant.corpus_stats import CorpusIndex, CorpusResult
from assistant.extractive import token_events
from assistant.retrieval import HybridRetriever
from assistant.types import Answer, Event, Filters, Paper, Request, SearchResult
from assistant.writing import Writer
from vectorstore.chunking import split_sentences

__all__ = ["run_corpus", "corpus_index", "read_criterion", "RELATED_CAP"]

RELATED_CAP = 100  # papers the retriever is asked for when looking for related papers above its cutoff
_NUMBER = re.compile(r"\d")
_INDEXES: weakref.WeakKeyDictionary[HybridRetriever, tuple[int, CorpusIndex]] = weakref.WeakKeyDictionary()
_BUILDING = threading.Lock()


def corpus_index(retriever: HybridRetriever) -> CorpusIndex:
    """The corpus index of the retriever's papers, built once and again after an ingest."""
    with _BUILDING:
        key = id(retriever.papers)
        cached = _INDEXES.get(retriever)
        if cached is None or cached[0] != key or len(cached[1]) != len(retriever.papers):
            cached = (key, CorpusIndex(retriever.papers.values()))
            _INDEXES[retriever] = cached
        return cached[1]


def read_criterion(request: Request, venues: Sequence[str]) -> Criterion:
    """The criterion of `request`: a follow-up narrows the conversation's last corpus criterion; otherwise
    the question is read on its own (the question as typed when it reads as a corpus question, else the
    standalone rewrite). Filters chosen beside the question (venue, year, decision) fill the gaps."""
    criterion = criterion_for(request.question, request.history, venues)
    if criterion is None:
        own = looks_like_corpus_question(request.question) or not request.standalone
        criterion = parse_question(request.question if own else request.standalone, venues)
    return _with_filters(criterion, request.filters)


def _with_filters(criterion: Criterion, filters: Filters | None) -> Criterion:
    if filters is None or filters.is_empty():
        return criterion
    venue = " ".join(str(x) for x in (filters.venue, filters.year) if x)
    return dataclasses.replace(
        criterion,
        venues=criterion.venues or ((venue,) if venue else ()),
        status=criterion.status or (filters.status or "").capitalize(),
        authors=criterion.authors or ((filters.author,) if filters.author else ()),
        keywords=criterion.keywords or ((filters.keyword,) if filters.keyword else ()),
    )


def run_corpus(writer: Writer, request: Request) -> Iterator[Event]:
    """Answer a question about the conferences as a whole, yielding the events of `Assistant.stream`."""
    index = corpus_index(writer.retriever)
    criterion = read_criterion(request, list(index.venues))
    yield Event("status", f"Criterion: {criterion.to_text()}")
    result = index.select(criterion, _related(writer.retriever, criterion))
    text = corpus_text(result, request.question)
    sources = [_source(p) for p in result.papers[: example_count(result)]]
    yield from token_events(text)
    paragraph = ""
    unsupported: list[str] = []
    if writer.llm.generates and sources:
        paragraph, unsupported = yield from _paragraph(writer, request.question, result, text, sources)
    full, citations = cite_plain(f"{text}\n\n{paragraph}".strip(), sources)
    yield Event(
        "final",
        answer=Answer(
            full,
            result.count is not None,
            "corpus",
            criterion.to_text(),
            citations,
            sources,
            _filters(criterion),
            unsupported,
            corpus=result,
        ),
    )


def _related(retriever: HybridRetriever, criterion: Criterion) -> list[str]:
    """The papers the retriever ranks above its topic cutoff for a one-topic criterion."""
    if len(criterion.topics) != 1:
        return []
    venue = criterion.venues[0] if len(criterion.venues) == 1 else None
    filters = Filters(venue=venue, status=criterion.status or None)
    found = retriever.retrieve_all(
        criterion.topics[0][0], filters=filters, cap=RELATED_CAP, parse_filters=False
    )
    return [r.paper.paper_id for r in found.results if r.score >= retriever.topic_cutoff]


def _paragraph(
    writer: Writer, question: str, result: CorpusResult, facts: str, sources: list[SearchResult]
) -> Generator[Event, None, tuple[str, list[str]]]:
    """The model's paragraph on the example papers, its citations checked and numbered as `sources`,
    without any sentence that states a number; with the unsupported sentences."""
    prompt = prompts.render("corpus", question=question, facts=facts.split("\n\nCriterion:")[0], sources="")
    budget = writer.source_budget(prompt)
    context = build_context(sources, writer.llm, budget=budget, compact=True)
    prompt = prompts.render(
        "corpus", question=question, facts=facts.split("\n\nCriterion:")[0], sources=context.text
    )
    yield Event("token", "\n\n")
    raw = yield from writer.generate(prompt, len(context.sources))
    checked = writer.validate(raw, context.sources)
    if not checked.supported:
        return "", checked.unsupported
    position = {s.paper.paper_id: i for i, s in enumerate(sources, 1)}
    mapping = {c.n: position[c.paper_id] for c in checked.citations if c.paper_id in position}

    def renumber(match: re.Match[str]) -> str:
        kept = [mapping[n] for n in parse_numbers(match.group(1)) if n in mapping]
        return f" [{', '.join(str(n) for n in dict.fromkeys(kept))}]" if kept else ""

    text = MARKER.sub(renumber, checked.text)
    kept = [text[s:e] for s, e in split_sentences(text) if not _NUMBER.search(MARKER.sub("", text[s:e]))]
    return " ".join(k.strip() for k in kept), checked.unsupported


def _source(paper: Paper) -> SearchResult:
    end = min(len(paper.abstract), 400)
    return SearchResult(paper, 1.0, paper.abstract[:end], (0, end))


def _filters(criterion: Criterion) -> Filters:
    venue = criterion.venues[0] if len(criterion.venues) == 1 else None
    return Filters(venue=venue, status=criterion.status or None)
