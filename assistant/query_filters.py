"""Metadata filters stated in the question itself: "ICML papers on …", "orals about …", "from 2026".

The parsed filters are returned with the question they were taken from, so the caller can show them;
they are never applied silently.
"""

from __future__ import annotations

import re

from assistant.types import Filters

__all__ = ["parse_filters"]

_STATUS = re.compile(
    r"\b(orals?|spotlights?|posters?)\b(?:\s+(?:papers?|presentations?|talks?))?", re.IGNORECASE
)
_YEAR = re.compile(r"\b(?:in|from|of|at)?\s*((?:19|20)\d\d)\b")


def _venue_pattern(venues: list[str]) -> re.Pattern[str] | None:
    names = sorted({v for v in venues if v and len(v) >= 3}, key=len, reverse=True)
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(
        rf"\b(?:(?:at|in|from)\s+)?({alternatives})(?:[\s'’-]*((?:19|20)\d\d))?(?:\s+(?:papers?|work))?\b",
        re.IGNORECASE,
    )


_LEADING_PREPOSITION = re.compile(r"^(?:on|about|in|of|for|regarding|concerning)\s+(?=\S)", re.IGNORECASE)


def parse_filters(question: str, venues: list[str]) -> tuple[Filters, str]:
    """(filters stated in `question`, the question without the words that stated them).

    `venues` are the venue names present in the store: only those are recognised, so a method named
    like a venue in another corpus is not mistaken for one.
    """
    filters = Filters()
    text = question
    pattern = _venue_pattern(venues)
    if pattern:
        match = pattern.search(text)
        if match:
            canonical = {v.lower(): v for v in venues}
            filters.venue = canonical.get(match.group(1).lower(), match.group(1))
            if match.group(2):
                filters.year = int(match.group(2))
            text = text[: match.start()] + " " + text[match.end() :]
    match = _STATUS.search(text)
    if match:
        word = match.group(1).lower().rstrip("s")
        filters.status = word.capitalize()
        text = text[: match.start()] + " papers " + text[match.end() :]
    if filters.year is None:
        year = _YEAR.search(text)
        if year:
            filters.year = int(year.group(1))
            text = text[: year.start()] + " " + text[year.end() :]
    cleaned = re.sub(r"\s+", " ", text).strip(" ,")
    if not filters.is_empty():  # "ICML papers on X" leaves "on X": the topic is X
        cleaned = _LEADING_PREPOSITION.sub("", cleaned)
    return filters, cleaned or question
