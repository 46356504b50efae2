"""Text and HTML for the chat and the sources panel. Everything from users or the corpus is escaped here.

Chat messages are Markdown: the text is HTML-escaped (so `<script>` shows as text) and the Markdown that
could fetch or link anything (`[`, `]`, `!`, backticks, `$`) is backslash-escaped, while emphasis, lists and
tables (the chains' compare table) still render. Citation markers `[n]` become links to `#src-n`, the
source's card in the panel.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Iterable, Sequence
from urllib.parse import urlparse

from assistant.types import Answer, Citation, Paper, SearchResult

__all__ = [
    "esc",
    "chat_markdown",
    "status_markdown",
    "sources_html",
    "EMPTY_SOURCES",
    "safe_url",
    "header_html",
    "stats_html",
]

CITATION = re.compile(r"\[(\d{1,3})\]")
_BOLD = re.compile(r"\*\*([^*<>]{1,80}?)\*\*")
_MARKDOWN_ACTIVE = re.compile(r"([\\`\[\]!$~])")
# Characters that template engines (the HTML component's JS/Handlebars template) could act on.
_TEMPLATE_CHARS = str.maketrans({"$": "&#36;", "{": "&#123;", "}": "&#125;", "`": "&#96;"})


def _empty(turn: int, text: str) -> str:
    return f'<div class="pc-sources pc-empty" data-answer="{turn}">{text}</div>'


EMPTY_SOURCES = _empty(
    0, "The papers behind an answer appear here, with the passage that supports it highlighted."
)


def esc(text: object) -> str:
    """`text` as inert HTML: markup escaped, and nothing a template engine would expand."""
    return html.escape(str(text), quote=True).translate(_TEMPLATE_CHARS)


def _plain_markdown(text: str) -> str:
    return _MARKDOWN_ACTIVE.sub(r"\\\1", html.escape(text, quote=False))


def chat_markdown(text: str, known: Iterable[int] | None = None) -> str:
    """Chat Markdown for `text`, with each citation marker `[n]` linked to its source card.

    With `known`, only those numbers become links (the rest stay as escaped text).
    """
    numbers = set(known) if known is not None else None
    parts: list[str] = []
    last = 0
    for match in CITATION.finditer(text):
        parts.append(_plain_markdown(text[last : match.start()]))
        n = int(match.group(1))
        if numbers is None or n in numbers:
            parts.append(f"[\\[{n}\\]](#src-{n})")
        else:
            parts.append(_plain_markdown(match.group(0)))
        last = match.end()
    parts.append(_plain_markdown(text[last:]))
    return "".join(parts)


def status_markdown(lines: Sequence[str]) -> str:
    """The status lines of the current answer (standalone question, filters), as escaped Markdown."""
    return "\n".join(f"- {_plain_markdown(line)}" for line in lines if line)


def safe_url(url: str) -> str | None:
    """`url` if it is a plain http(s) link, else None (no javascript:, data: or relative links)."""
    parsed = urlparse(url.strip())
    return url.strip() if parsed.scheme in ("http", "https") and parsed.netloc else None


def _abstract_html(text: str) -> str:
    """Escaped abstract text; the `**bold**` some abstracts use becomes bold (on the escaped text)."""
    return _BOLD.sub(r"<b>\1</b>", esc(text))


def _highlight(abstract: str, span: tuple[int, int] | None) -> str:
    if not span or not 0 <= span[0] < span[1] <= len(abstract):
        return _abstract_html(abstract)
    start, end = span
    return (
        f"{_abstract_html(abstract[:start])}<mark>{_abstract_html(abstract[start:end])}</mark>"
        f"{_abstract_html(abstract[end:])}"
    )


_LINK_KINDS = (  # (label, URL pattern): what a conference site calls each link
    ("OpenReview", re.compile(r"^https?://openreview\.net/forum\b")),
    ("PDF", re.compile(r"^https?://openreview\.net/pdf\b|\.pdf$")),
    ("ICML page", re.compile(r"^https?://icml\.cc/virtual/")),
    ("ICLR page", re.compile(r"^https?://iclr\.cc/virtual/")),
)


def link_label(url: str) -> str:
    """'OpenReview', 'PDF', 'ICML page' … for a paper link; else its host."""
    for label, pattern in _LINK_KINDS:
        if pattern.search(url):
            return label
    return urlparse(url).netloc.removeprefix("www.")


def _links(urls: Sequence[str], code_links: Sequence[str]) -> str:
    items = []
    seen: set[str] = set()
    for kind, url in [("paper", u) for u in urls] + [("code", u) for u in code_links]:
        good = safe_url(url)
        if good and good not in seen:
            seen.add(good)
            label = (
                link_label(good) if kind == "paper" else f"code: {urlparse(good).netloc.removeprefix('www.')}"
            )
            items.append(
                f'<a class="pc-link pc-{kind}" href="{esc(good)}" target="_blank" '
                f'rel="noopener noreferrer nofollow">{esc(label)}</a>'
            )
    return f'<div class="pc-links">{" ".join(items)}</div>' if items else ""


def _authors(authors: Sequence[str], shown: int = 6) -> str:
    if not authors:
        return ""
    names = ", ".join(authors[:shown]) + (f" and {len(authors) - shown} more" if len(authors) > shown else "")
    return f'<div class="pc-authors">{esc(names)}</div>'


def _topics(paper: Paper | None) -> str:
    """The primary area and keywords a list gives (ICLR's), as a line of small text."""
    if paper is None:
        return ""
    area = str(paper.extra.get("primary_area") or "")
    parts = [
        f"<b>{esc(area)}</b>" if area else "",
        esc(", ".join(k for k in paper.keywords[:8] if k != area)),
    ]
    shown = " · ".join(p for p in parts if p)
    return f'<div class="pc-topics">{shown}</div>' if shown else ""


def _status_badge(paper: Paper | None) -> str:
    if paper is None or not paper.status:
        return ""
    decision = str(paper.extra.get("decision") or "")
    note = " (conditional)" if decision.lower().startswith("conditional") else ""
    return f'<span class="pc-status pc-status-{esc(paper.status.lower())}">{esc(paper.status)}{note}</span>'


def _star(paper_id: str, starred: bool) -> str:
    """The card's star: adds the paper to the session's reading list (ui.reading_list)."""
    label = "★ Starred" if starred else "☆ Star"
    return (
        f'<button type="button" class="pc-star" data-paper="{esc(paper_id)}" '
        f'aria-pressed="{"true" if starred else "false"}" title="Add to the reading list">{label}</button>'
    )


def _card(
    n: int | None, result: SearchResult | None, citation: Citation | None, starred: Collection[str] = ()
) -> str:
    """A source as a conference site shows a paper: title, venue and year, status, authors, area and
    keywords, links (OpenReview, PDF, the ICML page, code), then the abstract with the cited passage marked."""
    paper = result.paper if result else None
    title = (paper.display_name if paper else "") or (citation.title or citation.label if citation else "")
    venue = paper.venue if paper else (citation.venue if citation else "")
    year = paper.year if paper else (citation.year if citation else None)
    abstract = paper.abstract if paper else (citation.abstract if citation else "")
    span = (citation.span if citation and citation.span else None) or (result.span if result else None)
    where = " ".join(m for m in (venue, str(year) if year and str(year) not in venue else "") if m)
    badge = f'<span class="pc-n">[{n}]</span> ' if n is not None else ""
    anchor = f' id="src-{n}"' if n is not None else ""
    links = _links(paper.urls, paper.code_links) if paper else ""
    paper_id = paper.paper_id if paper else (citation.paper_id if citation else "")
    star = _star(paper_id, paper_id in starred) if paper_id else ""
    return (
        f'<div class="pc-card"{anchor}>'
        f'<div class="pc-title">{badge}{esc(title)}</div>'
        f'<div class="pc-meta">{esc(where)} {_status_badge(paper)}{star}</div>'
        f"{_authors(paper.authors) if paper else ''}{_topics(paper)}{links}"
        f"<details{' open' if n is not None else ''}><summary>Abstract</summary>"
        f'<div class="pc-abstract">{_highlight(abstract, span)}</div>'
        "</details></div>"
    )


def sources_html(answer: Answer | None, turn: int = 0, starred: Collection[str] = ()) -> str:
    """The sources panel for `answer` (the `turn`-th): a card per citation, then the other papers retrieved,
    each with a star (pressed for the papers in `starred`, the session's reading list).

    `data-answer` tells which answer the panel shows (tests wait on it).
    """
    if answer is None or (not answer.citations and not answer.sources):
        return _empty(turn, "No sources for this answer.") if turn else EMPTY_SOURCES
    by_id = {s.paper.paper_id: s for s in answer.sources}
    numbered = sorted(answer.citations, key=lambda c: c.n)
    cards = [_card(c.n, by_id.get(c.paper_id), c, starred) for c in numbered]
    cited = {c.paper_id for c in answer.citations}
    others = [_card(None, s, None, starred) for s in answer.sources if s.paper.paper_id not in cited]
    parts = [f'<div class="pc-sources" data-answer="{turn}">']
    if cards:
        parts += ['<div class="pc-head">Cited papers</div>', *cards]
    if others:
        parts += ['<div class="pc-head">Also retrieved</div>', *others]
    parts.append("</div>")
    return "".join(parts)


def loaded_summary(stats: dict[str, object]) -> str:
    """'ICLR 2026: 5,358 papers (224 orals, 5,134 posters); ICML 2026: …' from the store's statistics."""
    venues = stats.get("venues") or {}
    statuses = stats.get("statuses") or {}
    parts = []
    for venue, count in dict(venues).items():  # type: ignore[call-overload]
        by_status = dict(statuses).get(venue) or {}  # type: ignore[call-overload]
        known = [
            f"{n:,} {s.lower()}s"
            for s, n in sorted(by_status.items(), key=lambda kv: -kv[1])
            if s != "unknown"
        ]
        parts.append(f"{venue}: {count:,} papers" + (f" ({', '.join(known)})" if known else ""))
    return "; ".join(parts)


def header_html(stats: dict[str, object], backend: str) -> str:
    papers = stats.get("papers", 0)
    loaded = loaded_summary(stats)
    return (
        "<h1>paperchat</h1>"
        f'<div class="pc-sub">Ask questions about {esc(f"{papers:,}" if isinstance(papers, int) else papers)} '
        "research-paper abstracts. Every claim cites its paper. "
        f"Language model: <b>{esc(backend)}</b>.</div>"
        f'<div class="pc-loaded" id="pc-loaded">{esc(loaded)}</div>'
    )


def stats_html(stats: dict[str, object]) -> str:
    """Store statistics for the corpus tab: papers, chunks, papers by venue and status, embedding model."""
    venues = dict(stats.get("venues") or {})  # type: ignore[call-overload]
    statuses = dict(stats.get("statuses") or {})  # type: ignore[call-overload]
    kinds = sorted({s for counts in statuses.values() for s in counts}, key=lambda s: (s == "unknown", s))
    head = "".join(f"<th>{esc(k)}</th>" for k in kinds)
    rows = "".join(
        f"<tr><td>{esc(v)}</td><td>{esc(f'{n:,}')}</td>"
        + "".join(f"<td>{esc(f'{statuses.get(v, {}).get(k, 0):,}')}</td>" for k in kinds)
        + "</tr>"
        for v, n in venues.items()
    )
    return (
        '<div class="pc-stats">'
        f'<div><span class="pc-big" id="pc-paper-count">{esc(stats.get("papers", 0))}</span> papers · '
        f'<span class="pc-big">{esc(stats.get("chunks", 0))}</span> chunks</div>'
        f"<div>Embedding model: <code>{esc(stats.get('embedding_model', '?'))}</code></div>"
        f"<table><tr><th>Venue</th><th>Papers</th>{head}</tr>{rows}</table></div>"
    )
