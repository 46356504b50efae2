"""Split abstracts into overlapping chunks along sentence boundaries, keeping each chunk's span."""

from __future__ import annotations

import dataclasses
import re

__all__ = ["Chunk", "CLOSING_MARKS", "split_sentences", "chunk_text"]

# A sentence ends at . ! ? (and the quotes or brackets that close around it, a LaTeX "}" included) followed by
# space and an upper-case letter, digit or opening bracket, unless the period belongs to a common abbreviation
# or a decimal number.
CLOSING_MARKS = "\"'’”)\\]}"  # a regex character class body: the marks that may close around a sentence's end
_BOUNDARY = re.compile(rf"(?<=[.!?])[{CLOSING_MARKS}]{{0,2}}\s+(?=[A-Z0-9(\[\"'“])")
_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "etc.", "vs.", "cf.", "Fig.", "Eq.", "Sec.", "approx.", "resp.")


@dataclasses.dataclass(frozen=True)
class Chunk:
    """A piece of an abstract: its text and where it lies in the abstract (start inclusive, end exclusive)."""

    index: int
    text: str
    start: int
    end: int


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences of `text`, covering it without gaps except whitespace."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        before = text[start : match.start()]
        if before.endswith(_ABBREVIATIONS) or len(before.strip()) < 2:
            continue
        end = match.start() + len(match.group(0).rstrip())
        spans.append((start, end if text[start:end].strip() else match.start()))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text.rstrip())))
    return [(s, e) for s, e in spans if e > s]


def chunk_text(text: str, size: int = 1000, overlap: int = 1) -> list[Chunk]:
    """Group consecutive sentences into chunks of about `size` characters.

    `overlap` is the number of sentences a chunk shares with the one before it. A single sentence longer
    than `size` becomes a chunk on its own; one longer than `size * 2` is cut into pieces of at most that
    many characters, so that no chunk is unbounded and no text is left out.
    """
    sentences = [piece for span in split_sentences(text) for piece in _pieces(text, span, size * 2)]
    if not sentences:
        return []
    chunks: list[Chunk] = []
    first = 0
    while first < len(sentences):
        last = first
        while last + 1 < len(sentences) and sentences[last + 1][1] - sentences[first][0] <= size:
            last += 1
        start, end = sentences[first][0], sentences[last][1]
        chunks.append(Chunk(len(chunks), text[start:end], start, end))
        if last + 1 >= len(sentences):
            break
        first = max(last + 1 - overlap, first + 1)
        # shrink the overlap until the next chunk has room for a sentence the previous one lacked
        while first <= last and sentences[last + 1][1] - sentences[first][0] > size:
            first += 1
    return chunks


def _pieces(text: str, span: tuple[int, int], limit: int) -> list[tuple[int, int]]:
    """A sentence span cut into consecutive pieces of at most `limit` characters, at spaces if possible."""
    start, end = span
    pieces = []
    while end - start > limit:
        cut = text.rfind(" ", start + limit // 2, start + limit)
        cut = cut if cut > start else start + limit
        pieces.append((start, cut))
        start = cut + (text[cut] == " ")
    pieces.append((start, end))
    return pieces
