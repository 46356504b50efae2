"""The `Paper` record every loader produces, and the normalisation rules behind its identity."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import unicodedata
from typing import Any

__all__ = [
    "Paper",
    "normalize_text",
    "content_hash",
    "find_code_links",
    "derive_label",
    "make_label",
    "merge",
]

_CODE_LINK = re.compile(
    r"https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co|"
    r"anonymous\.4open\.science|codeberg\.org)/[^\s<>()\[\]{}\"',;]+",
    re.IGNORECASE,
)
_WS = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")
_STATUS_RANK = {"oral": 4, "spotlight": 3, "poster": 2}


def normalize_text(text: str) -> str:
    """Unicode-normalised, whitespace-collapsed text: what two copies of one abstract share."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return _WS.sub(" ", _CONTROL.sub(" ", text)).strip()


def content_hash(text: str) -> str:
    """A hash of the abstract that ignores case, spacing and punctuation differences."""
    key = re.sub(r"[^\w]+", " ", normalize_text(text).lower()).strip()
    return hashlib.sha1(key.encode("utf-8")).hexdigest()


def find_code_links(text: str) -> list[str]:
    """Code repository links mentioned in a text, in order, without trailing punctuation."""
    links: list[str] = []
    for match in _CODE_LINK.finditer(text):
        link = match.group(0).rstrip(".:;")
        if link not in links:
            links.append(link)
    return links


_INTRO = re.compile(
    r"\b(?:we|this (?:paper|work))\s+(?:first\s+|further\s+|then\s+|also\s+)?"
    r"(?:propose|introduce|present|develop|design)s?\b(?P<rest>[^.]*)",
    re.IGNORECASE,
)
_NAME = r"[A-Za-z][A-Za-z0-9]*(?:[A-Z0-9][A-Za-z0-9]*|-[A-Za-z0-9]+)+"
_NAME_AFTER = [
    re.compile(r"\b(?:termed|called|named|dubbed)\s+\*{0,2}(?P<name>" + _NAME + r")"),
    re.compile(r"^\s*(?:a |an |the )?\*{1,2}(?P<name>[^*]{2,40}?)\*{1,2}"),
    re.compile(r"^.{0,80}?\((?P<name>[A-Z][A-Za-z0-9-]*[A-Z0-9][A-Za-z0-9-]*)\)(?!-)"),
    re.compile(r"^\s*(?P<name>" + _NAME + r")\b"),
    re.compile(r"^\s*(?P<name>[A-Z][a-z0-9]{1,15}),\s+an?\s"),  # "we introduce Coh, a differentiable ..."
    re.compile(r"\b(?:propose|introduce)s?\s+(?P<name>" + _NAME + r")\b"),
    re.compile(r",\s+(?P<name>[A-Z][A-Za-z0-9-]*[A-Z0-9][A-Za-z0-9-]*)\s*(?:\(|,)"),
]
_NOT_NAMES = {"AI", "LLM", "LLMs", "ML", "RL", "NLP", "GPU", "CPU", "SOTA", "API"}


def _is_name(token: str) -> bool:
    return token not in _NOT_NAMES and any(c.isupper() for c in token[1:] + token[:1]) and len(token) >= 2


def derive_label(abstract: str, max_words: int = 8) -> str:
    """A short display name for a paper without a title: its method's name, else its first words."""
    text = normalize_text(abstract)
    for intro in _INTRO.finditer(text):
        rest = intro.group("rest")
        for pattern in _NAME_AFTER:
            match = pattern.search(rest)
            if match and _is_name(match.group("name")):
                return match.group("name").strip()
    words = text.split()
    label = " ".join(words[:max_words])
    return label + ("…" if len(words) > max_words else "")


def make_label(title: str, abstract: str) -> str:
    """The label shown for a paper: the short name before a title's colon, the title, or one derived."""
    title = normalize_text(title)
    if not title:
        return derive_label(abstract)
    head, sep, _ = title.partition(":")
    if sep and 1 <= len(head.split()) <= 4:
        return head.strip()
    return title


@dataclasses.dataclass
class Paper:
    """One paper: identity, text and whatever metadata its source had."""

    paper_id: str
    abstract: str
    title: str = ""
    label: str = ""
    venue: str = ""
    year: int | None = None
    authors: list[str] = dataclasses.field(default_factory=list)
    keywords: list[str] = dataclasses.field(default_factory=list)
    status: str = ""
    urls: list[str] = dataclasses.field(default_factory=list)
    code_links: list[str] = dataclasses.field(default_factory=list)
    source: str = ""
    aliases: list[str] = dataclasses.field(default_factory=list)
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        self.abstract = normalize_text(self.abstract)
        self.title = normalize_text(self.title)
        if not self.label:
            self.label = make_label(self.title, self.abstract)
        found = find_code_links(self.abstract)
        self.code_links = list(dict.fromkeys([*self.code_links, *found]))
        # lists hold no repeats (sources do repeat keywords), as after `merge`: a record read twice is unchanged
        self.authors, self.keywords, self.urls = (
            list(dict.fromkeys(v)) for v in (self.authors, self.keywords, self.urls)
        )

    @functools.cached_property
    def content_hash(self) -> str:
        return content_hash(self.abstract)

    @property
    def display_name(self) -> str:
        return self.title or self.label

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, data: str) -> Paper:
        return cls(**json.loads(data))

    def fingerprint(self) -> str:
        """Changes whenever anything stored about the paper changes (text or metadata)."""
        return hashlib.sha1(self.to_json().encode("utf-8")).hexdigest()


def _status_rank(status: str) -> int:
    lowered = status.lower()
    return max((rank for key, rank in _STATUS_RANK.items() if key in lowered), default=1 if status else 0)


def merge(kept: Paper, other: Paper) -> Paper:
    """Merge `other` (a duplicate) into `kept`: fill gaps, union lists, keep the stronger decision of the same
    venue (a paper listed by two venues keeps the decision of the one it is stored under)."""
    merged = dataclasses.replace(kept)
    for name in ("title", "venue", "source"):
        if not getattr(merged, name) and getattr(other, name):
            setattr(merged, name, getattr(other, name))
    if merged.year is None:
        merged.year = other.year
    same_venue = (
        not merged.venue or not other.venue or (merged.venue, merged.year) == (other.venue, other.year)
    )
    if same_venue and _status_rank(other.status) > _status_rank(merged.status):
        merged.status = other.status  # a decision holds for its own venue only
    for name in ("authors", "keywords", "urls", "code_links"):
        setattr(merged, name, list(dict.fromkeys([*getattr(merged, name), *getattr(other, name)])))
    ids = [*merged.aliases, other.paper_id, *other.aliases]
    merged.aliases = [i for i in dict.fromkeys(ids) if i != merged.paper_id]
    if merged.title and not kept.title:
        merged.label = make_label(merged.title, merged.abstract)
    merged.extra = {**other.extra, **merged.extra}
    return merged
