"""Papers and answers as the faces for other tools give them: plain records and readable text.

The MCP server and the OpenAI-compatible endpoint describe a paper the same way (id, title, venue, year,
status, authors, link) and an answer the same way (its text with the `[n]` markers, and for each number
the paper it cites); `marker_spans` finds where each marker sits in the text. Corpus text is data here:
it is returned as values, never interpreted.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from assistant.citations import MARKER, parse_numbers
from assistant.types import Answer, Citation, Paper
from ui.render import safe_url

__all__ = [
    "MarkerSpan",
    "paper_link",
    "paper_record",
    "citation_records",
    "answer_record",
    "paper_line",
    "answer_text",
    "marker_spans",
]


@dataclasses.dataclass(frozen=True)
class MarkerSpan:
    """One citation marker in an answer: where it is (`text[start:end]` is the marker) and its numbers."""

    start: int
    end: int
    numbers: tuple[int, ...]


def paper_link(paper: Paper) -> str | None:
    """The paper's page (OpenReview forum or ICML page, as the list gives it first), or None."""
    return next((url for url in map(safe_url, paper.urls) if url), None)


def paper_record(paper: Paper) -> dict[str, Any]:
    """What a client needs to show and cite `paper`."""
    return {
        "paper_id": paper.paper_id,
        "title": paper.display_name,
        "venue": paper.venue,
        "year": paper.year,
        "status": paper.status,
        "authors": list(paper.authors),
        "link": paper_link(paper),
        "links": [url for url in map(safe_url, paper.urls) if url],
        "code_links": [url for url in map(safe_url, paper.code_links) if url],
    }


def _cited_paper(citation: Citation, answer: Answer) -> Paper:
    found = next((s.paper for s in answer.sources if s.paper.paper_id == citation.paper_id), None)
    if found is not None:
        return found
    return Paper(
        citation.paper_id,
        citation.abstract,
        title=citation.title,
        label=citation.label,
        venue=citation.venue,
        year=citation.year,
    )


def citation_records(answer: Answer) -> list[dict[str, Any]]:
    """The papers `answer` cites, by their number `n` in its text, each with the passage that supports it."""
    records = []
    for citation in sorted(answer.citations, key=lambda c: c.n):
        paper = _cited_paper(citation, answer)
        span = citation.span
        passage = paper.abstract[span[0] : span[1]] if span else ""
        records.append({"n": citation.n, **paper_record(paper), "passage": passage})
    return records


def answer_record(answer: Answer) -> dict[str, Any]:
    """An answer with its citations: the text keeps its `[n]` markers, `citations` says what each cites."""
    return {
        "answer": answer.answer,
        "mode": answer.mode,
        "grounded": answer.grounded,
        "standalone_question": answer.standalone_question,
        "notice": answer.notice,
        "citations": citation_records(answer),
    }


def paper_line(record: dict[str, Any]) -> str:
    """'Title (ICLR 2026, Oral) — link' for a paper record."""
    where = " ".join(str(part) for part in (record["venue"], record["year"]) if part)
    facts = ", ".join(part for part in (where, record["status"]) if part)
    line = record["title"] + (f" ({facts})" if facts else "")
    return f"{line} — {record['link']}" if record.get("link") else line


def answer_text(record: dict[str, Any]) -> str:
    """An answer record as readable text: the answer, its notice, then its sources by number."""
    parts = [record["answer"] or "(no answer)"]
    if record["notice"]:
        parts.append(f"Note: {record['notice']}")
    if record["citations"]:
        lines = [f"[{c['n']}] {paper_line(c)}  (id {c['paper_id']})" for c in record["citations"]]
        parts.append("Sources:\n" + "\n".join(lines))
    return "\n\n".join(parts)


def marker_spans(text: str) -> list[MarkerSpan]:
    """Every citation marker of `text` ('[2]', '[1, 3]'), without the space before it."""
    spans = []
    for match in MARKER.finditer(text):
        start = text.index("[", match.start())
        spans.append(MarkerSpan(start, match.end(), tuple(parse_numbers(match.group(1)))))
    return spans
