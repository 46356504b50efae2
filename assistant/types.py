"""The plain records that flow between retrieval, the chains, the CLI and the UI."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Literal

from vectorstore.paper import Paper

if TYPE_CHECKING:
    from assistant.corpus_stats import CorpusResult

__all__ = ["Filters", "SearchResult", "Retrieval", "Citation", "Answer", "Event", "Turn", "Request"]


@dataclasses.dataclass
class Filters:
    """Metadata constraints. Empty fields constrain nothing. Matching is case-insensitive."""

    venue: str | None = None
    year: int | None = None
    status: str | None = None
    keyword: str | None = None
    author: str | None = None

    def is_empty(self) -> bool:
        return not any(dataclasses.asdict(self).values())

    def merged(self, other: Filters | None) -> Filters:
        """These filters, with the gaps filled from `other`."""
        if other is None:
            return self
        mine, theirs = dataclasses.asdict(self), dataclasses.asdict(other)
        return Filters(**{k: mine[k] if mine[k] not in (None, "") else theirs[k] for k in mine})

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in dataclasses.asdict(self).items() if v not in (None, ""))

    def matches(self, paper: Paper) -> bool:
        if self.venue:
            name, _, year = self.venue.strip().rpartition(" ")
            if not (year.isdigit() and name):  # "ICLR 2026" names a venue and a year
                name, year = self.venue.strip(), ""
            if name.lower() not in paper.venue.lower() or (year and paper.year != int(year)):
                return False
        if self.year and paper.year != self.year:
            return False
        if self.status and self.status.lower() not in paper.status.lower():
            return False
        if self.keyword:
            word = self.keyword.lower()
            haystack = " ".join([*paper.keywords, str(paper.extra.get("primary_area", ""))]).lower()
            if word not in haystack:
                return False
        if self.author and not any(self.author.lower() in a.lower() for a in paper.authors):
            return False
        return True


@dataclasses.dataclass
class SearchResult:
    """One paper found for a query: the whole paper and its best-matching chunk."""

    paper: Paper
    score: float
    chunk: str
    span: tuple[int, int]
    dense_score: float = 0.0
    lexical_score: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        p = self.paper
        return {
            "paper_id": p.paper_id,
            "title": p.title,
            "label": p.label,
            "venue": p.venue,
            "year": p.year,
            "status": p.status,
            "authors": p.authors,
            "keywords": p.keywords,
            "urls": p.urls,
            "code_links": p.code_links,
            "score": round(self.score, 6),
            "abstract": p.abstract,
            "chunk": self.chunk,
            "span": list(self.span),
        }


@dataclasses.dataclass
class Retrieval:
    """What a search returned, and whether any of it clears the relevance cutoff."""

    query: str
    results: list[SearchResult]
    filters: Filters
    parsed_filters: Filters
    relevant: bool
    cutoff: float
    absent: list[str] = dataclasses.field(default_factory=list)  # names asked about that no paper mentions
    unmatched: list[str] = dataclasses.field(default_factory=list)  # rare question words no result uses

    def refusal_reason(self) -> str:
        """Why the corpus does not cover the question, in words a user can check ("" when it does)."""
        if self.relevant:
            return ""
        if self.absent:
            names = ", ".join(f"“{n}”" for n in self.absent)
            return f"no paper in it mentions {names}"
        if self.unmatched:
            words = ", ".join(f"“{w}”" for w in self.unmatched)
            rarest = "word" if len(self.unmatched) == 1 else "words"
            return (
                f"none of the {len(self.results)} papers closest to it mentions {words}, the question's most "
                f"specific {rarest}, and together they match little of what it asks"
            )
        if not self.results:
            return "no paper matches the filters" if not self.filters.is_empty() else "the store is empty"
        return (
            f"no paper is close enough to the question (the best scores {self.results[0].score:.2f}, "
            f"below the relevance cutoff of {self.cutoff:.2f})"
        )


@dataclasses.dataclass
class Citation:
    n: int
    paper_id: str
    title: str
    label: str
    venue: str
    year: int | None
    abstract: str
    span: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["span"] = list(self.span) if self.span else None
        return data


@dataclasses.dataclass
class Turn:
    """One exchange of a conversation, as the chains need it for follow-ups."""

    question: str
    answer: str
    paper_ids: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Request:
    """One question as the chain takes it in; `standalone` is set once a follow-up has been made standalone."""

    question: str
    history: list[Turn] = dataclasses.field(default_factory=list)
    mode: str = "auto"
    filters: Filters | None = None
    k: int | None = None
    standalone: str = ""
    focus: tuple[str, ...] = ()  # the papers under discussion, when the question points back at them


@dataclasses.dataclass
class Answer:
    answer: str
    grounded: bool
    mode: str
    standalone_question: str
    citations: list[Citation]
    sources: list[SearchResult]
    filters: Filters = dataclasses.field(default_factory=Filters)
    unsupported: list[str] = dataclasses.field(default_factory=list)
    removed_citations: int = 0
    notice: str = ""
    corpus: CorpusResult | None = None  # a corpus answer's criterion, count, papers and groups

    def to_dict(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "grounded": self.grounded,
            "mode": self.mode,
            "standalone_question": self.standalone_question,
            "citations": [c.to_dict() for c in self.citations],
            "sources": [s.to_dict() for s in self.sources],
            "filters": dataclasses.asdict(self.filters),
            "unsupported": self.unsupported,
            "removed_citations": self.removed_citations,
            "notice": self.notice,
            "corpus": self.corpus.to_dict() if self.corpus is not None else None,
        }


@dataclasses.dataclass
class Event:
    """A step of a streamed answer: 'status' (what is happening), 'token' (answer text), 'final'."""

    kind: Literal["status", "token", "final", "error"]
    text: str = ""
    answer: Answer | None = None
