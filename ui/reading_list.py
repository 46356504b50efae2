"""The session's reading list: papers starred in the sources panel, shown beside it and exported as BibTeX,
Markdown or CSV.

The list keeps whole `Paper` records (taken from the answers that showed them), so it outlives "New
conversation" and needs no store lookup; it also remembers the papers of the session's recent answers, so a
click made just before "New conversation" and handled after it still counts. Everything in it is corpus
text: the HTML is escaped (`ui.render.esc`), the Markdown backslash-escaped with only web links kept, the CSV
guarded against spreadsheet formulas (a cell starting with `=`, `+`, `-`, `@` gets a leading `'`), the BibTeX
written by `assistant.bibtex`. `star_clicked`, `reading_outputs` and `reading_shown` are the handlers `ui.app`
wires to the panels; the files go to a folder of the session's own, under the app's export folder.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import logging
import re
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import gradio as gr

from assistant.bibtex import bibtex_entries, paper_url, unique_keys
from assistant.types import Answer, Paper
from ui.conversation import Conversation
from ui.render import esc, link_label

__all__ = [
    "ReadingList",
    "FORMATS",
    "STAR_JS",
    "REMOVE_JS",
    "answer_paper",
    "answer_papers",
    "to_bibtex",
    "to_markdown",
    "to_csv",
    "reading_list_html",
    "write_exports",
    "click_data",
    "list_label",
    "reading_outputs",
    "reading_shown",
    "star_clicked",
]

log = logging.getLogger(__name__)

FORMATS = {"bib": "BibTeX", "md": "Markdown", "csv": "CSV"}
CSV_COLUMNS = ["key", "title", "authors", "venue", "year", "status", "url", "code", "paper_id"]
_MARKDOWN_ACTIVE = re.compile(r"([\\`*_\[\]()<>#!|~$&])")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
SHOWN_PAPERS = 1000  # the papers of the session's recent answers that a click may still star


@dataclasses.dataclass
class ReadingList:
    """Starred papers in the order they were starred. Kept in a `gr.State`: one per browser session."""

    papers: dict[str, Paper] = dataclasses.field(default_factory=dict)
    folder: Path | None = dataclasses.field(default=None, compare=False)  # this session's export files
    clicks: dict[str, int] = dataclasses.field(default_factory=dict, compare=False)  # last click per paper
    shown: dict[str, Paper] = dataclasses.field(default_factory=dict, compare=False)  # recent answers' papers

    def offer(self, answer: Answer | None) -> None:
        """Remember the papers `answer` showed (the newest SHOWN_PAPERS of the session), so a star clicked on
        one of its cards still counts once the conversation is gone."""
        if answer is None:
            return
        for paper_id, paper in answer_papers(answer).items():
            self.shown.pop(paper_id, None)
            self.shown[paper_id] = paper
        for stale in list(self.shown)[: max(0, len(self.shown) - SHOWN_PAPERS)]:
            del self.shown[stale]

    def newer(self, paper_id: str, seq: int) -> bool:
        """Whether click number `seq` of the page on `paper_id` is later than the last one applied (clicks
        can arrive out of order); records it if so. A click without a number (0) always counts."""
        if seq and seq <= self.clicks.get(paper_id, 0):
            return False
        if seq:
            self.clicks[paper_id] = seq
        return True

    def export_folder(self, root: Path) -> Path:
        """The session's own folder under `root` for its exports, made on first use."""
        if self.folder is None or not self.folder.is_dir():
            self.folder = Path(tempfile.mkdtemp(prefix="reading-list-", dir=root))
        return self.folder

    def __len__(self) -> int:
        return len(self.papers)

    def __contains__(self, paper_id: object) -> bool:
        return paper_id in self.papers

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.papers))

    def ids(self) -> list[str]:
        return list(self.papers)

    def star(self, paper: Paper, starred: bool = True) -> None:
        """Add `paper` (kept in its first place when starred again), or remove it with `starred=False`."""
        if starred:
            self.papers.setdefault(paper.paper_id, paper)
        else:
            self.papers.pop(paper.paper_id, None)

    def remove(self, paper_id: str) -> None:
        self.papers.pop(paper_id, None)

    def listed(self) -> list[Paper]:
        return list(self.papers.values())


def answer_papers(answer: Answer) -> dict[str, Paper]:
    """{paper id: paper} of every card `answer` showed: its sources' whole papers, and for a citation
    without a source a paper made of the citation."""
    papers = {
        c.paper_id: Paper(c.paper_id, c.abstract, c.title, c.label, c.venue, c.year) for c in answer.citations
    }
    papers.update((s.paper.paper_id, s.paper) for s in answer.sources)
    return papers


def answer_paper(answers: Sequence[Answer | None], paper_id: str) -> Paper | None:
    """The paper `paper_id` as the latest of `answers` showed it (see `answer_papers`); None when no answer
    showed it (an id the page did not offer)."""
    for answer in reversed(answers):
        paper = answer_papers(answer).get(paper_id) if answer is not None else None
        if paper is not None:
            return paper
    return None


# ---------------------------------------------------------------------------------------------- exports


def to_bibtex(papers: Sequence[Paper]) -> str:
    return bibtex_entries(papers)


def _md(text: str) -> str:
    return _MARKDOWN_ACTIVE.sub(r"\\\1", " ".join(text.split()))


def _md_link(url: str) -> str:
    """A Markdown link to a web page (nothing else), its URL percent-encoded where Markdown would end it."""
    clean = url.replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")
    return f"[{_md(link_label(url))}]({clean})"


def _where(paper: Paper) -> str:
    year = str(paper.year) if paper.year and str(paper.year) not in paper.venue else ""
    return " ".join(x for x in (paper.venue, year) if x)


def to_markdown(papers: Sequence[Paper], now: dt.datetime | None = None) -> str:
    """A numbered list: title, venue and year, decision, authors, links (the paper's page, code)."""
    stamp = (now or dt.datetime.now()).strftime("%Y-%m-%d %H:%M")
    count = f"{len(papers)} paper{'' if len(papers) == 1 else 's'}"
    out = ["# paperchat reading list", "", f"_Exported {stamp} · {count}_", ""]
    for i, paper in enumerate(papers, 1):
        meta = " · ".join(_md(x) for x in (_where(paper), paper.status) if x)
        out.append(f"{i}. **{_md(paper.display_name)}**" + (f" — {meta}" if meta else ""))
        if paper.authors:
            out.append(f"   {_md(', '.join(paper.authors))}")
        links = [u for u in dict.fromkeys([paper_url(paper), *paper.code_links]) if u and _web(u)]
        if links:
            out.append("   " + " · ".join(_md_link(u) for u in links))
    return "\n".join(out).rstrip() + "\n"


def _web(url: str) -> bool:
    return bool(re.match(r"^https?://[^\s/]+", url))


def _cell(value: object) -> str:
    text = " ".join(str(value).split())
    return "'" + text if text.startswith(_FORMULA_START) else text


def to_csv(papers: Sequence[Paper]) -> str:
    """One row per paper (the BibTeX key first, so a row finds its entry), authors joined by '; '."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for key, paper in zip(unique_keys(papers), papers, strict=True):
        row = [
            key,
            paper.display_name,
            "; ".join(paper.authors),
            paper.venue,
            paper.year or "",
            paper.status,
            paper_url(paper),
            " ".join(u for u in paper.code_links if _web(u)),
            paper.paper_id,
        ]
        writer.writerow([_cell(v) for v in row])
    return buffer.getvalue()


def write_exports(reading: ReadingList, folder: Path) -> dict[str, Path]:
    """The list in every format, written to `folder`: {'bib': .../reading-list.bib, 'md': ..., 'csv': ...}."""
    papers = reading.listed()
    texts = {"bib": to_bibtex(papers), "md": to_markdown(papers), "csv": to_csv(papers)}
    paths = {}
    for suffix, text in texts.items():
        path = folder / f"paperchat-reading-list.{suffix}"
        path.write_text(text, encoding="utf-8")
        paths[suffix] = path
    return paths


# ---------------------------------------------------------------------------------------------- display


def reading_list_html(reading: ReadingList) -> str:
    """The list beside the sources: each paper's title, venue and decision, and a button to remove it."""
    if not len(reading):
        return (
            '<div class="pc-reading pc-empty" data-count="0">'
            "Star papers in the sources (☆) to collect them here, then export them.</div>"
        )
    items = "".join(
        f'<li class="pc-reading-item" data-paper="{esc(p.paper_id)}">'
        f'<span class="pc-title">{esc(p.display_name)}</span> '
        f'<span class="pc-meta">{esc(" · ".join(x for x in (_where(p), p.status) if x))}</span> '
        f'<button type="button" class="pc-unstar" data-paper="{esc(p.paper_id)}" '
        f'title="Remove from the reading list" aria-label="Remove">✕</button></li>'
        for p in reading.listed()
    )
    return f'<div class="pc-reading" data-count="{len(reading)}"><ol>{items}</ol></div>'


# Installed by the sources panel: a click on a card's star marks it at once and tells the server, which
# keeps the list (`trigger` sends the paper id, the new state and the page's click number with the panel's
# click event; the number lets the server keep the last click when two arrive out of order).
STAR_JS = """
if (!element.__paperchatStars) {
  element.__paperchatStars = true;
  element.addEventListener("click", (event) => {
    const star = event.target.closest ? event.target.closest(".pc-star") : null;
    if (!star || !element.contains(star)) return;
    event.preventDefault();
    const on = star.getAttribute("aria-pressed") !== "true";
    star.setAttribute("aria-pressed", on ? "true" : "false");
    star.textContent = on ? "★ Starred" : "☆ Star";
    const seq = (window.__paperchatClicks = (window.__paperchatClicks || 0) + 1);
    trigger("click", {paper_id: star.dataset.paper || "", starred: on, seq: seq});
  });
}
"""

# Installed by the reading list: its ✕ removes a paper, and un-stars the paper's card in the sources panel.
REMOVE_JS = """
if (!element.__paperchatUnstar) {
  element.__paperchatUnstar = true;
  element.addEventListener("click", (event) => {
    const button = event.target.closest ? event.target.closest(".pc-unstar") : null;
    if (!button || !element.contains(button)) return;
    event.preventDefault();
    const id = button.dataset.paper || "";
    document.querySelectorAll(".pc-star").forEach((star) => {
      if (star.dataset.paper === id) {
        star.setAttribute("aria-pressed", "false");
        star.textContent = "☆ Star";
      }
    });
    const seq = (window.__paperchatClicks = (window.__paperchatClicks || 0) + 1);
    trigger("click", {paper_id: id, starred: false, seq: seq});
  });
}
"""


# ---------------------------------------------------------------------------------------------- wiring


def list_label(count: int) -> str:
    """The reading list's heading: 'Reading list · 2 papers'."""
    return f"Reading list · {count} paper{'' if count == 1 else 's'}"


def click_data(event: Any) -> tuple[str, bool, int]:
    """(paper id, starred, click number) from a star's or ✕'s click (`trigger("click", {paper_id, starred,
    seq})`); ('', False, 0) for a click that carries none of them (anything else in the panel)."""
    data = getattr(event, "_data", None)
    if not isinstance(data, dict):
        return "", False, 0
    paper_id, seq = data.get("paper_id"), data.get("seq")
    number = seq if isinstance(seq, int) and not isinstance(seq, bool) and 0 < seq < 2**53 else 0
    return (paper_id if isinstance(paper_id, str) else ""), data.get("starred") is True, number


def reading_outputs(reading: ReadingList, exports: Path) -> tuple[Any, ...]:
    """(reading list, its HTML, its heading, the .bib, .md and .csv download buttons) for the list as it is;
    the files are rewritten in the session's folder under `exports`, the buttons off while the list is empty."""
    heading = gr.update(label=list_label(len(reading)))
    if not len(reading):
        off = gr.update(value=None, interactive=False)
        return reading, reading_list_html(reading), heading, off, off, off
    paths = write_exports(reading, reading.export_folder(exports))
    buttons = [gr.update(value=str(paths[suffix]), interactive=True) for suffix in FORMATS]
    return reading, reading_list_html(reading), heading, *buttons


def reading_shown(reading: ReadingList, exports: Path) -> tuple[Any, ...]:
    """(its HTML, its heading, the three download buttons) for the list as the server holds it: chained after
    every star and ✕ click, so the page shows the list as it is even when the browser applied two clicks'
    replies out of order (Gradio handles the replies of one event's runs concurrently)."""
    return reading_outputs(reading, exports)[1:]


def star_clicked(reading: ReadingList, conv: Conversation, event: Any, exports: Path) -> tuple[Any, ...]:
    """A star (or ✕) was clicked: add the paper as the conversation's answers (or, once the conversation is
    gone, the session's recent answers) showed it, or remove it.

    The id comes from the browser: one that neither the list nor an answer of this session holds changes
    nothing. Of the clicks on one paper, the page's last wins, whatever order they arrive in.
    """
    paper_id, starred, seq = click_data(event)
    paper = answer_paper([ex.answer for ex in conv.exchanges], paper_id) if paper_id else None
    paper = paper or reading.shown.get(paper_id)
    if paper is None and paper_id not in reading:
        if paper_id:
            log.info("click on a paper no answer showed (%.80r) ignored", paper_id)
    elif reading.newer(paper_id, seq):
        if not starred:
            reading.remove(paper_id)
        elif paper is not None:
            reading.star(paper)
    return reading_outputs(reading, exports)
