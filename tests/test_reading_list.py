"""The reading list's exports (issue 23): BibTeX parses back, Markdown and CSV keep corpus text inert."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import bibtexparser

from ui.reading_list import ReadingList, reading_list_html, to_csv, to_markdown, write_exports
from vectorstore.paper import Paper

EVIL = Paper(
    paper_id="e1",
    abstract="x",
    title='=HYPERLINK("http://x") [click](javascript:alert(1)) <script>',
    venue="ICML",
    year=2026,
    authors=["Ann Lee"],
    urls=["https://icml.cc/virtual/2026/poster/1"],
)
PLAIN = Paper(paper_id="p1", abstract="y", title="Plain Paper", venue="ICLR", year=2026)


def test_star_unstar_keeps_order_and_exports_every_format(tmp_path: Path) -> None:
    reading = ReadingList()
    reading.star(EVIL)
    reading.star(PLAIN)
    reading.star(EVIL)
    assert reading.ids() == ["e1", "p1"]
    paths = write_exports(reading, tmp_path)
    library = bibtexparser.parse_string(paths["bib"].read_text(encoding="utf-8"))
    assert [e.key for e in library.entries] == ["lee2026hyperlink", "anonymous2026plain"]
    rows = list(csv.reader(io.StringIO(paths["csv"].read_text(encoding="utf-8"))))
    assert rows[1][0] == "lee2026hyperlink" and rows[1][1].startswith("'=HYPERLINK")
    reading.star(EVIL, starred=False)
    assert reading.ids() == ["p1"] and "e1" not in reading


def test_markdown_and_html_keep_corpus_text_inert() -> None:
    md = to_markdown([EVIL])
    assert "](javascript" not in md and "\\[click\\]" in md and "\\<script\\>" in md
    assert "[ICML page](https://icml.cc/virtual/2026/poster/1)" in md
    reading = ReadingList()
    reading.star(EVIL)
    assert "<script>" not in reading_list_html(reading) and 'data-count="1"' in reading_list_html(reading)
    assert to_csv([]).strip() == "key,title,authors,venue,year,status,url,code,paper_id"
