"""BibTeX for papers, in the form OpenReview gives it: `@inproceedings{key, title, author, booktitle, year, url}`.

The key is built as OpenReview and Google Scholar build theirs: the first author's surname, the year and the
first word of the title, lowercased and folded to ASCII (`Hakkani-Tür` -> `hakkanitur`), skipping a leading
article, preposition or conjunction (`On the Scaling of ...` -> `scaling`; `Towards`, `Do`, `Is` are kept, as
Scholar keeps them). A paper without authors (ICLR's list is anonymous) is `author={Anonymous}` and keyed
`anonymous2026...`. Keys are unique within one export: the second `smith2026deep` becomes `smith2026deepb`,
the third `smith2026deepc`, and so on.

Every field is untrusted corpus text: it is written as literal text, never as LaTeX. The ten characters
LaTeX acts on become their text commands (`\\&`, `\\%`, `\\#`, `\\_`, `\\$`, `\\{`... with braces as
`\\textbraceleft{}` so that BibTeX's brace counting always balances), whitespace and control characters
collapse to one space, HTML entities some lists carry are decoded, and non-ASCII letters stay as UTF-8 (biber and modern BibTeX read it). A title's
`$\\alpha$` therefore prints as written rather than as math: the safe reading of text nobody checked.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from urllib.parse import quote, urlparse

from assistant.types import Answer
from vectorstore.paper import Paper

__all__ = [
    "bibtex_entries",
    "bibtex_entry",
    "bibtex_key",
    "booktitle",
    "cited_papers",
    "latex_text",
    "paper_url",
]

# Leading words a key skips (Scholar's "On the Opportunities ..." is bommasani2021opportunities).
STOP_WORDS = frozenset("a an the on of in at by for to from with and or as into onto upon via".split())
_NAME_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv"})
_FOLD = str.maketrans({"ß": "ss", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "æ": "ae", "Æ": "AE",
                       "œ": "oe", "Œ": "OE", "đ": "d", "Đ": "D", "þ": "th", "Þ": "Th", "ı": "i"})  # fmt: skip
_LATEX = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "{": r"\textbraceleft{}",
        "}": r"\textbraceright{}",
        "&": r"\&",
        "%": r"\%",
        "#": r"\#",
        "_": r"\_",
        "$": r"\$",
        "^": r"\textasciicircum{}",
        "~": r"\textasciitilde{}",
    }
)
_SPACE = re.compile(r"[\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]+")
_WORD = re.compile(r"[a-z0-9]+")
_AND = re.compile(r"\band\b", re.IGNORECASE)

_ORDINALS = ("First Second Third Fourth Fifth Sixth Seventh Eighth Ninth Tenth Eleventh Twelfth Thirteenth "
             "Fourteenth Fifteenth Sixteenth Seventeenth Eighteenth Nineteenth").split()  # fmt: skip
_TENS = "Twent Thirt Fort Fift Sixt Sevent Eight Ninet".split()
# The first year of each series: ICLR 2013 was the first, ICML 2026 is the forty-third.
_SERIES = {
    "iclr": (2012, "The {nth} International Conference on Learning Representations"),
    "icml": (1983, "{nth} International Conference on Machine Learning"),
}
_LINK_ORDER = (
    re.compile(r"^https?://openreview\.net/forum\b"),
    re.compile(r"^https?://(?:icml|iclr)\.cc/virtual/"),
    re.compile(r"^https?://openreview\.net/"),
)


def ordinal(n: int) -> str:
    """`n` (1-99) as a capitalised English ordinal: 14 -> 'Fourteenth', 43 -> 'Forty-third'."""
    if not 1 <= n <= 99:
        raise ValueError(f"ordinal: {n} is outside 1-99")
    if n < 20:
        return _ORDINALS[n - 1]
    tens, unit = divmod(n, 10)
    stem = _TENS[tens - 2]
    return f"{stem}ieth" if unit == 0 else f"{stem}y-{_ORDINALS[unit - 1].lower()}"


def booktitle(venue: str, year: int | None) -> str:
    """The proceedings' name: ICLR's and ICML's as OpenReview and PMLR give them, else the venue and year."""
    series = _SERIES.get(venue.strip().lower())
    if series and year is not None and 1 <= year - series[0] <= 99:
        return series[1].format(nth=ordinal(year - series[0]))
    name = clean_text(venue)
    return f"{name} {year}" if year is not None and str(year) not in name else name


def clean_text(text: str) -> str:
    """`text` on one line: HTML entities decoded (the ICML list has `O&amp;#x27;Neill`), control characters
    and runs of whitespace one space."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", html.unescape(html.unescape(text)))).strip()


def latex_text(text: str) -> str:
    """`text` as literal LaTeX text inside a braced BibTeX field: specials escaped, braces always balanced."""
    return clean_text(text).translate(_LATEX)


def ascii_fold(text: str) -> str:
    """Lowercase ASCII letters and digits of `text` (accents dropped, `ß` -> `ss`), other characters as spaces."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_WORD.findall(plain.lower()))


def _surname(authors: Sequence[str]) -> str:
    """The first author's surname as a key part; 'anonymous' without authors."""
    if not authors:
        return "anonymous"
    name = clean_text(authors[0])
    family, _, given = name.partition(",")  # "Surname, Given" as some lists write it
    parts = (family if given else name).split()
    while len(parts) > 1 and ascii_fold(parts[-1]).replace(" ", "") in _NAME_SUFFIXES:
        parts.pop()
    for part in reversed(parts):  # a surname in a script that folds to nothing: the part before it
        folded = ascii_fold(part).replace(" ", "")
        if folded:
            return folded
    return "unknown"


def _first_word(title: str) -> str:
    words = ascii_fold(title).split()
    return next((w for w in words if w not in STOP_WORDS), words[0] if words else "")


def bibtex_key(paper: Paper) -> str:
    """The citation key: surname + year + first title word, e.g. `mukherjee2026do` (not made unique)."""
    year = str(paper.year) if paper.year is not None else ""
    return f"{_surname(paper.authors)}{year}{_first_word(paper.title or paper.label)}"


def unique_keys(papers: Iterable[Paper]) -> list[str]:
    """One key per paper, repeats suffixed b, c, ... z, then ba, bb, ... so that no two are equal."""
    used: set[str] = set()
    keys: list[str] = []
    for paper in papers:
        base = bibtex_key(paper)
        key, n = base, 0
        while key in used:
            n += 1
            key = base + _suffix(n)
        used.add(key)
        keys.append(key)
    return keys


def _suffix(n: int) -> str:
    """n (>= 1) in base 26 written with a-z: 1 -> 'b', 25 -> 'z', 26 -> 'ba' (the first entry is the 'a')."""
    letters = ""
    while n:
        n, digit = divmod(n, 26)
        letters = chr(ord("a") + digit) + letters
    return letters


def paper_url(paper: Paper) -> str:
    """The paper's page (OpenReview forum, else the conference page, else its first web link), or ''."""
    links = [u.strip() for u in paper.urls if _is_web(u.strip())]
    for pattern in _LINK_ORDER:
        found = next((u for u in links if pattern.search(u)), "")
        if found:
            return _url_text(found)
    return _url_text(links[0]) if links else ""


def _is_web(url: str) -> bool:
    parsed = urlparse(url)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


def _url_text(url: str) -> str:
    """`url` safe inside `url={...}`: braces, backslashes, spaces and `%`-less specials percent-encoded."""
    return quote(url, safe=":/?&=#+@!$'()*,;-._~%[]")


def _author_field(authors: Sequence[str]) -> str:
    names = [clean_text(a) for a in authors if clean_text(a)]
    if not names:
        return "Anonymous"
    # a name holding "and" or a comma would be split or reordered by BibTeX: braced, it is one name
    return " and ".join(
        "{" + latex_text(n) + "}" if "," in n or _AND.search(n) else latex_text(n) for n in names
    )


def bibtex_entry(paper: Paper, key: str) -> str:
    """One `@inproceedings` entry (`@misc` for a paper without a venue) under `key`."""
    fields: list[tuple[str, str]] = [
        ("title", latex_text(paper.title or paper.label or paper.paper_id)),
        ("author", _author_field(paper.authors)),
    ]
    venue = clean_text(paper.venue)
    if venue:
        fields.append(("booktitle", latex_text(booktitle(venue, paper.year))))
    if paper.year is not None:
        fields.append(("year", str(paper.year)))
    url = paper_url(paper)
    if url:
        fields.append(("url", url))
    if not paper.title:
        fields.append(("note", "No title in the source; the title shown is derived from the abstract"))
    kind = "inproceedings" if venue else "misc"
    body = ",\n".join(f"  {name}={{{value}}}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def bibtex_entries(papers: Sequence[Paper]) -> str:
    """BibTeX for `papers`, in order, keys unique within this export; '' for no papers."""
    keys = unique_keys(papers)
    return "\n".join(bibtex_entry(p, k) for p, k in zip(papers, keys, strict=True))


def cited_papers(answer: Answer) -> list[Paper]:
    """The papers `answer` cites, in the order of their numbers: each the whole paper of its source (authors,
    links), or, for a citation without one, a paper made of what the citation carries."""
    by_id = {s.paper.paper_id: s.paper for s in answer.sources}
    papers: dict[str, Paper] = {}
    for c in sorted(answer.citations, key=lambda c: c.n):
        if c.paper_id not in papers:
            papers[c.paper_id] = by_id.get(c.paper_id) or Paper(
                paper_id=c.paper_id,
                abstract=c.abstract,
                title=c.title,
                label=c.label,
                venue=c.venue,
                year=c.year,
            )
    return list(papers.values())
