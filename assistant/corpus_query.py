"""Questions about the conferences as a whole, read into a `Criterion`: which papers (venue, decision,
primary area, keyword, author, topic phrases) and what to say about them (a count, a list, groups, shares).

Reading is done by rules, never by a model, so a question always means the same papers. A criterion has a
text form, `venue: ICML 2026; status: Oral; topic: diffusion; show: count`, which the answer shows and a
user may edit and send back: `parse_question` reads that form exactly (`parse_criterion_text`). The reading
of plain English is in `assistant.corpus_parse`. Follow-ups ("and how many of those are orals?", "show
them") narrow the criterion of the turns before (`corpus_route.criterion_for`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TypeVar

from assistant.errors import QuestionError

__all__ = [
    "Criterion",
    "SHOWS",
    "GROUPS",
    "FIELDS",
    "parse_criterion_text",
    "is_criterion_text",
    "narrow",
]

SHOWS = ("count", "list", "groups", "share")
GROUPS = ("venue", "status", "area", "keyword", "author")
FIELDS = ("title", "abstract", "keywords")
FILTER_KINDS = ("venue", "status", "area", "keyword", "author", "topic")
DEFAULT_TOP = 10
_T = TypeVar("_T")


@dataclasses.dataclass(frozen=True)
class Criterion:
    """Which papers, and what to say about them.

    Filters combine with AND; the values of one filter with OR (`venues`, each topic's phrases), except
    `authors`, which must all be among a paper's authors. `topics` are phrase groups: a paper matches a
    group when its title, abstract or keywords (`fields`) name one of the group's phrases. `related` adds the
    papers the retriever ranks above its topic cutoff. `share_of` names the filters of the denominator of a
    share ("share of ICML orals": venue, status)."""

    venues: tuple[str, ...] = ()
    status: str = ""
    areas: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    topics: tuple[tuple[str, ...], ...] = ()
    fields: tuple[str, ...] = FIELDS
    related: bool = False
    group: str = ""
    show: str = "count"
    top: int = DEFAULT_TOP
    share_of: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check(self.show in SHOWS, f"show must be one of {', '.join(SHOWS)}, not {self.show!r}")
        _check(not self.group or self.group in GROUPS, f"group must be one of {', '.join(GROUPS)}")
        _check(bool(self.fields) and set(self.fields) <= set(FIELDS), f"in: choose from {', '.join(FIELDS)}")
        _check(set(self.share_of) <= set(FILTER_KINDS), f"share of: choose from {', '.join(FILTER_KINDS)}")
        _check(1 <= self.top <= 100, "top must be between 1 and 100")

    def is_everything(self) -> bool:
        """No filter at all: the whole store."""
        return not (self.venues or self.status or self.areas or self.keywords or self.authors or self.topics)

    def base(self) -> Criterion:
        """The criterion of a share's denominator: only the filters named by `share_of`."""
        keep = set(self.share_of)
        return dataclasses.replace(
            self,
            venues=self.venues if "venue" in keep else (),
            status=self.status if "status" in keep else "",
            areas=self.areas if "area" in keep else (),
            keywords=self.keywords if "keyword" in keep else (),
            authors=self.authors if "author" in keep else (),
            topics=self.topics if "topic" in keep else (),
        )

    def to_text(self) -> str:
        """The editable text form; `parse_criterion_text(c.to_text()) == c`."""
        parts = []
        if self.venues:
            parts.append("venue: " + " | ".join(self.venues))
        if self.status:
            parts.append(f"status: {self.status}")
        parts += [f"area: {a}" for a in self.areas]
        parts += [f"keyword: {k}" for k in self.keywords]
        parts += [f"author: {a}" for a in self.authors]
        parts += ["topic: " + " | ".join(group) for group in self.topics]
        if self.topics and self.fields != FIELDS:
            parts.append("in: " + ", ".join(self.fields))
        if self.topics and self.related:
            parts.append("related: yes")
        if self.group:
            parts.append(f"group: {self.group}")
        parts.append(f"show: {self.show}")
        if self.group and self.top != DEFAULT_TOP:
            parts.append(f"top: {self.top}")
        if self.show == "share" and self.share_of:
            parts.append("share of: " + ", ".join(self.share_of))
        return "; ".join(parts)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise QuestionError(f"corpus criterion: {message}")


# ---------------------------------------------------------------------------------------------- text form

_TEXT_KEYS = {
    "venue",
    "status",
    "area",
    "keyword",
    "author",
    "topic",
    "in",
    "related",
    "group",
    "show",
    "top",
    "share of",
}
_TEXT_START = re.compile(
    r"^\s*(?:corpus\s*:\s*)?(?:venue|status|area|keyword|author|topic|group|show)\s*:", re.IGNORECASE
)
_STATUS_NAMES = {"oral": "Oral", "poster": "Poster", "spotlight": "Spotlight"}


def is_criterion_text(text: str) -> bool:
    """Whether `text` is a criterion in its text form (as an answer shows it)."""
    return bool(_TEXT_START.match(text))


def parse_criterion_text(text: str) -> Criterion:
    """Read the text form of a criterion. Raises `QuestionError` naming an unknown key or a bad value."""
    body = re.sub(r"^\s*corpus\s*:\s*", "", text.strip(), flags=re.IGNORECASE)
    values: dict[str, list[str]] = {}
    for part in filter(None, (p.strip() for p in body.split(";"))):
        key, sep, value = part.partition(":")
        key = " ".join(key.lower().split())
        _check(bool(sep) and key in _TEXT_KEYS, f"{part!r} is not 'key: value' with a key of {_keys()}")
        _check(bool(value.strip()), f"{key}: needs a value")
        values.setdefault(key, []).append(value.strip())
    one = {k: v[-1] for k, v in values.items()}
    return Criterion(
        venues=tuple(x for v in values.get("venue", []) for x in _alternatives(v)),
        status=_status(one.get("status", "")),
        areas=tuple(values.get("area", [])),
        keywords=tuple(values.get("keyword", [])),
        authors=tuple(values.get("author", [])),
        topics=tuple(tuple(_alternatives(v)) for v in values.get("topic", [])),
        fields=tuple(_alternatives(one["in"].replace(",", "|").lower())) if "in" in one else FIELDS,
        related=one.get("related", "no").lower() in ("yes", "true", "on", "1"),
        group=one.get("group", "").lower(),
        show=one.get("show", "count").lower(),
        top=_int(one.get("top", str(DEFAULT_TOP))),
        share_of=tuple(_alternatives(one.get("share of", "").replace(",", "|").lower())),
    )


def _keys() -> str:
    return ", ".join(sorted(_TEXT_KEYS))


def _alternatives(value: str) -> list[str]:
    return [v.strip() for v in value.split("|") if v.strip()]


def _status(value: str) -> str:
    if not value:
        return ""
    word = value.strip().lower().rstrip("s")
    _check(word in _STATUS_NAMES, f"status must be one of Oral, Spotlight, Poster, not {value!r}")
    return _STATUS_NAMES[word]


def _int(value: str) -> int:
    _check(value.strip().isdigit(), f"top must be a whole number, not {value!r}")
    return int(value)


# ---------------------------------------------------------------------------------------------- follow-ups


def narrow(previous: Criterion, stated: Criterion, said: frozenset[str], switch: bool) -> Criterion:
    """`previous` narrowed by what a follow-up `stated` (`said` names the parts it stated): a venue, a
    decision, a grouping or an answer form replaces the earlier one; areas, keywords, authors and topics
    are added. With `switch` ("what about ICLR?"), the stated filters replace the earlier ones instead."""
    merged = dataclasses.replace(
        previous,
        venues=stated.venues if "venue" in said else previous.venues,
        status=stated.status if "status" in said else previous.status,
        group=stated.group if "group" in said else previous.group,
        show=stated.show if "show" in said else previous.show,
        top=stated.top if "top" in said else previous.top,
        share_of=stated.share_of if "show" in said else previous.share_of,
        fields=stated.fields if "fields" in said else previous.fields,
    )

    def joined(kind: str, old: tuple[_T, ...], new: tuple[_T, ...]) -> tuple[_T, ...]:
        if kind not in said:
            return old
        return new if switch else tuple(dict.fromkeys((*old, *new)))

    merged = dataclasses.replace(
        merged,
        areas=joined("area", previous.areas, stated.areas),
        keywords=joined("keyword", previous.keywords, stated.keywords),
        authors=joined("author", previous.authors, stated.authors),
        topics=joined("topic", previous.topics, stated.topics),
    )
    if merged.show != "groups" and "show" in said:
        merged = dataclasses.replace(merged, group="" if "group" not in said else merged.group)
    return merged
