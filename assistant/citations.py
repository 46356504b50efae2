"""Check and attach an answer's citations instead of trusting the model's [n] markers.

The answer is split into units (sentences; table cells). Each unit is scored against every source:
    support = SUPPORT_WEIGHT * cos(unit, the source's best sentence) + (1 - SUPPORT_WEIGHT) * lexical recall
where lexical recall is the share of the unit's (stemmed, stop-worded) words found in the abstract.
Calibrated on the 38 sample abstracts with 35 paraphrased claims (bench/questions_dev.jsonl, `claim`):
at the default threshold 0.5 every claim was supported by its own paper, the most similar other paper
supported 6% of them, and 8 fabricated claims were supported by none.

Then: numbers matching no source are removed (counted); a citation the cited source does not support is
replaced by a source that clearly does, and so is one that an uncited source supports far better
(`MISCITE_MARGIN`); a unit without citation gets its best-supporting source when one
clears the threshold; units no source supports are reported as unsupported. Finally the numbers used are
renumbered 1..n in order of first use.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from assistant.types import Citation, SearchResult
from vectorstore.chunking import split_sentences
from vectorstore.lexical import tokenize

__all__ = [
    "Validated",
    "validate_citations",
    "cite_plain",
    "SupportScorer",
    "cited_numbers",
    "parse_numbers",
    "strip_markers",
    "LiveRenumber",
    "SUPPORT_WEIGHT",
    "REPLACE_MARGIN",
    "MARKER",
]

SUPPORT_WEIGHT = 0.5
REPLACE_MARGIN = 0.1  # the closest wrong paper scored >= 0.11 below the right one for every calibration claim
# A cited source that supports a unit, but 0.2 less than an uncited one, is replaced all the same: for every
# calibration claim its own paper scored highest, so the cited one is the wrong paper on the same topic.
MISCITE_MARGIN = 0.2
MIN_WORDS = 4  # shorter units ("Method", "not stated") are not checked
MARKER = re.compile(
    r"\s?\[(?:sources?\s*)?(\d+(?:\s*(?:,|;|-|–|and)\s*(?:sources?\s*)?\d+)*)\]", re.IGNORECASE
)
_PUNCT_END = re.compile(r"[\s.!?:;,)*]*$")

Embed = Callable[[list[str]], np.ndarray]


@dataclasses.dataclass
class Validated:
    """An answer's text after its citations were checked, and what the check found."""

    text: str
    citations: list[Citation]
    unsupported: list[str]
    removed: int
    supported: int  # units some source supports
    checked: int  # units checked


@dataclasses.dataclass
class _Unit:
    start: int
    end: int
    clean: str
    markers: list[tuple[int, int, list[int], str]]  # (start, end, numbers, leading space), answer coordinates


def parse_numbers(body: str) -> list[int]:
    """The numbers of a marker body: '1, 3-5' -> [1, 3, 4, 5]."""
    body = re.sub(r"(?i)sources?", "", body)
    numbers: list[int] = []
    for part in re.split(r"\s*(?:,|;|and)\s*", body):
        bounds = [int(x) for x in re.split(r"\s*[-–]\s*", part.strip()) if x.strip().isdigit()]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= 20:
            numbers.extend(range(bounds[0], bounds[1] + 1))
        else:
            numbers.extend(bounds)
    return list(dict.fromkeys(numbers))


def strip_markers(text: str) -> str:
    return MARKER.sub("", text)


def _units(text: str) -> list[_Unit]:
    units: list[_Unit] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith("|"):
            if not re.fullmatch(r"[|:\-\s]+", stripped):
                pos = offset + line.index("|") + 1
                for cell in stripped.strip("|").split("|"):
                    start = text.index(cell, pos) if cell else pos
                    units.append(_make_unit(text, start, start + len(cell)))
                    pos = start + len(cell) + 1
        elif stripped.startswith("#"):
            units.append(dataclasses.replace(_make_unit(text, offset, offset + len(line.rstrip())), clean=""))
        elif stripped:
            for s, e in split_sentences(line):
                unit = _make_unit(text, offset + s, offset + e)
                if not unit.clean and units and units[-1].end <= unit.start and unit.markers:
                    previous = units[-1]  # "… sentence. [2]": the marker belongs to the sentence before
                    units[-1] = dataclasses.replace(
                        previous, end=unit.end, markers=previous.markers + unit.markers
                    )
                else:
                    units.append(unit)
        offset += len(line)
    return units


def _make_unit(text: str, start: int, end: int) -> _Unit:
    piece = text[start:end]
    markers = [
        (start + m.start(), start + m.end(), parse_numbers(m.group(1)), _lead(m.group(0)))
        for m in MARKER.finditer(piece)
    ]
    return _Unit(start, end, strip_markers(piece).strip(" *-•|"), markers)


class SupportScorer:
    """Scores units of an answer against sources; sentence vectors of papers are cached by paper id."""

    def __init__(
        self, embed: Embed, cache: dict[str, tuple[list[tuple[int, int]], np.ndarray]] | None = None
    ):
        self.embed = embed
        self.cache = cache if cache is not None else {}

    def sentences(self, result: SearchResult) -> tuple[list[tuple[int, int]], np.ndarray]:
        paper = result.paper
        key = f"{paper.paper_id}:{paper.content_hash}"
        if key not in self.cache:
            spans = split_sentences(paper.abstract) or [(0, len(paper.abstract))]
            self.cache[key] = (spans, self.embed([paper.abstract[s:e] for s, e in spans]))
        return self.cache[key]

    def score(
        self, texts: list[str], sources: Sequence[SearchResult]
    ) -> tuple[np.ndarray, list[list[tuple[int, int]]]]:
        """(support[unit, source], best span in each source's abstract for each unit)."""
        support = np.zeros((len(texts), len(sources)))
        spans: list[list[tuple[int, int]]] = [[(0, 0)] * len(sources) for _ in texts]
        if not texts or not sources:
            return support, spans
        vectors = self.embed(texts)
        words = [set(tokenize(t)) for t in texts]
        for j, result in enumerate(sources):
            sent_spans, sent_vectors = self.sentences(result)
            cos = vectors @ sent_vectors.T
            vocab = set(tokenize(result.paper.display_name + " " + result.paper.abstract))
            for i in range(len(texts)):
                best = int(np.argmax(cos[i]))
                recall = len(words[i] & vocab) / max(1, len(words[i]))
                support[i, j] = SUPPORT_WEIGHT * float(cos[i, best]) + (1 - SUPPORT_WEIGHT) * recall
                spans[i][j] = sent_spans[best]
        return support, spans


def validate_citations(
    text: str,
    sources: Sequence[SearchResult],
    scorer: SupportScorer,
    *,
    threshold: float,
    attach: bool = True,
) -> Validated:
    """Check every unit of `text` against `sources` (numbered 1..n); see the module docstring."""
    units = _units(text)
    checked = [u for u in units if len(u.clean.split()) >= MIN_WORDS]
    support, spans = scorer.score([u.clean for u in checked], sources)
    row = {id(u): i for i, u in enumerate(checked)}
    edits: list[tuple[int, int, str]] = []
    removed, unsupported, supported = 0, [], 0
    first_span: dict[int, tuple[int, int]] = {}
    for unit in units:
        valid = [n for _, _, nums, _ in unit.markers for n in nums if 1 <= n <= len(sources)]
        removed += sum(1 for _, _, nums, _ in unit.markers for n in nums if not 1 <= n <= len(sources))
        i = row.get(id(unit))
        mapping = {n: n for n in valid}
        added: list[int] = []
        if i is not None and len(sources):
            best = int(np.argmax(support[i]))
            best_score = float(support[i, best])
            # A cited source that another one beats by far is the wrong paper even when it shares the topic:
            # "CLIP-FMoE uses a Fusion Gate mechanism to mitigate catastrophic forgetting … [HypCL]".
            miscited = best + 1 not in valid and all(
                best_score - support[i, n - 1] >= MISCITE_MARGIN for n in valid
            )
            for n in valid:
                weak = support[i, n - 1] < threshold
                clearly_worse = best_score - support[i, n - 1] >= REPLACE_MARGIN
                if best_score >= threshold and ((weak and clearly_worse) or miscited):
                    mapping[n] = best + 1
            if not valid and attach and best_score >= threshold:
                added = [best + 1]
            final = list(dict.fromkeys([*mapping.values(), *added]))
            if final and max(float(support[i, n - 1]) for n in final) >= threshold:
                supported += 1
            else:
                unsupported.append(unit.clean)
            for n in final:
                first_span.setdefault(n, spans[i][n - 1])
        edits.extend(_marker_edits(unit, mapping, len(sources)))
        if added:
            edits.append(_attach_edit(text, unit, added))
    rewritten = _apply(text, edits)
    renumbered, order = _renumber(rewritten, len(sources))
    renumbered = re.sub(r"[ \t]+([.,;:!?])", r"\1", renumbered).strip()
    citations = [_citation(k, sources[n - 1], first_span.get(n)) for k, n in enumerate(order, 1)]
    return Validated(renumbered, citations, unsupported, removed, supported, len(checked))


def cite_plain(text: str, sources: Sequence[SearchResult]) -> tuple[str, list[Citation]]:
    """Renumber `text`'s markers by first use and list their citations, without checking support
    (for text the chain wrote itself, such as the list of nearest papers)."""
    renumbered, order = _renumber(text, len(sources))
    return renumbered, [_citation(k, sources[n - 1], None) for k, n in enumerate(order, 1)]


def cited_numbers(text: str) -> set[int]:
    """Every number cited in `text`."""
    return {n for m in MARKER.finditer(text) for n in parse_numbers(m.group(1))}


def _marker_edits(unit: _Unit, mapping: dict[int, int], n_sources: int) -> Iterator[tuple[int, int, str]]:
    for start, end, numbers, lead in unit.markers:
        kept = list(dict.fromkeys(mapping[n] for n in numbers if 1 <= n <= n_sources))
        yield start, end, (lead + _marker(kept)) if kept else ""


def _attach_edit(text: str, unit: _Unit, numbers: list[int]) -> tuple[int, int, str]:
    piece = text[unit.start : unit.end]
    tail = _PUNCT_END.search(piece)
    at = unit.start + (tail.start() if tail else len(piece))
    return at, at, " " + _marker(numbers)


def _lead(matched: str) -> str:
    return matched[: len(matched) - len(matched.lstrip())]


def _marker(numbers: list[int]) -> str:
    return "[" + ", ".join(str(n) for n in numbers) + "]"


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + replacement + text[end:]
    return text


def _renumber(text: str, n_sources: int) -> tuple[str, list[int]]:
    """`text` with its marker numbers renumbered by first use, and the old numbers in new order."""
    order: dict[int, int] = {}

    def sub(match: re.Match[str]) -> str:
        numbers = [n for n in parse_numbers(match.group(1)) if 1 <= n <= n_sources]
        for n in numbers:
            order.setdefault(n, len(order) + 1)
        lead = " " if match.group(0)[:1].isspace() else ""
        return lead + _marker(sorted({order[n] for n in numbers})) if numbers else ""

    return MARKER.sub(sub, text), list(order)


def _citation(k: int, result: SearchResult, span: tuple[int, int] | None) -> Citation:
    p = result.paper
    return Citation(k, p.paper_id, p.title, p.label, p.venue, p.year, p.abstract, span or result.span)


class LiveRenumber:
    """Rewrites [n] markers while an answer streams: numbers matching no source vanish, the others are
    numbered by first use, as `validate_citations` will number them. Text after an unclosed '[' is held
    back until the marker completes (or clearly is not one)."""

    def __init__(self, n_sources: int) -> None:
        self.n_sources = n_sources
        self.order: dict[int, int] = {}
        self.buffer = ""

    def feed(self, piece: str) -> str:
        self.buffer += piece
        cut = self.buffer.rfind("[")
        if cut >= 0 and "]" not in self.buffer[cut:] and len(self.buffer) - cut < 24:
            cut = len(self.buffer[:cut].rstrip())  # hold the space before it too: the marker may vanish
            ready, self.buffer = self.buffer[:cut], self.buffer[cut:]
        else:  # trailing spaces wait too: a marker that follows may vanish with the space before it
            cut = len(self.buffer.rstrip())
            ready, self.buffer = self.buffer[:cut], self.buffer[cut:]
        return self._rewrite(ready)

    def flush(self) -> str:
        ready, self.buffer = self.buffer, ""
        return self._rewrite(ready)

    def _rewrite(self, text: str) -> str:
        def sub(match: re.Match[str]) -> str:
            kept = [n for n in parse_numbers(match.group(1)) if 1 <= n <= self.n_sources]
            for n in kept:
                self.order.setdefault(n, len(self.order) + 1)
            lead = " " if match.group(0)[:1].isspace() else ""
            return lead + _marker(sorted({self.order[n] for n in kept})) if kept else ""

        return MARKER.sub(sub, text)
