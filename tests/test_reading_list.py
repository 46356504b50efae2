"""The reading list (issue 23): BibTeX parses back, Markdown and CSV keep corpus text inert; the UI's handlers
star a source shown by an answer, refuse ids no answer showed, and keep the downloads in step."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from pathlib import Path
from typing import Any

import bibtexparser
import gradio as gr
import pytest

from assistant.types import Citation
from tests.ui_fake import FakeAssistant
from ui.chat import Options, answer_turn
from ui.conversation import Conversation
from ui.reading_list import (
    SHOWN_PAPERS,
    ReadingList,
    answer_papers,
    click_data,
    reading_list_html,
    reading_shown,
    star_clicked,
    to_csv,
    to_markdown,
    write_exports,
)
from ui.render import sources_html
from vectorstore.paper import Paper

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
QUESTION = "spiking neural networks energy efficiency"

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


# ---------------------------------------------------------------------------------------------- the UI's handlers


@pytest.fixture
def fake() -> FakeAssistant:
    return FakeAssistant.from_files(sorted(CORPUS.glob("*.txt")))


def _click(paper_id: Any, starred: Any = True, seq: Any = 0) -> gr.EventData:
    return gr.EventData(None, {"paper_id": paper_id, "starred": starred, "seq": seq})


def _citation(paper_id: str) -> Citation:
    return Citation(1, paper_id, f"Paper {paper_id}", "", "ICLR", 2026, "An abstract.")


def _panel(fake: FakeAssistant, conv: Conversation, tmp_path: Path, reading: ReadingList) -> str:
    updates = list(answer_turn(fake, QUESTION, conv, Options(), tmp_path, starred=reading))
    panel = updates[-1][2]
    assert isinstance(panel, str)
    return panel


def _stars(panel: str) -> dict[str, str]:
    """{paper id: aria-pressed} of the panel's star buttons."""
    return dict(re.findall(r'class="pc-star" data-paper="([^"]+)" aria-pressed="(true|false)"', panel))


def test_star_a_shown_source_lists_it_and_exports_it(fake: FakeAssistant, tmp_path: Path) -> None:
    conv, reading = Conversation(), ReadingList()
    stars = _stars(_panel(fake, conv, tmp_path, reading))
    assert len(stars) >= 2 and set(stars.values()) == {"false"}  # every card has a star, none pressed
    answer = conv.exchanges[0].answer
    assert answer is not None
    first = answer.sources[0].paper
    state, html, heading, bib, md, csv_button = star_clicked(reading, conv, _click(first.paper_id), tmp_path)
    assert state is reading and reading.ids() == [first.paper_id]
    assert heading["label"] == "Reading list · 1 paper"
    assert f'data-paper="{first.paper_id}"' in html and 'data-count="1"' in html
    assert all(b["interactive"] for b in (bib, md, csv_button))
    library = bibtexparser.parse_string(Path(bib["value"]).read_text(encoding="utf-8"))
    assert len(library.entries) == 1 and library.entries[0]["title"].strip("{}") == first.display_name
    assert first.display_name in Path(md["value"]).read_text(encoding="utf-8")
    assert Path(bib["value"]).parent == reading.folder and reading.folder.parent == tmp_path

    again = _stars(_panel(fake, conv, tmp_path, reading))  # the next answer shows the star pressed
    assert again[first.paper_id] == "true" and list(again.values()).count("true") == 1

    *_, bib2, _, _ = star_clicked(reading, conv, _click(first.paper_id, False), tmp_path)
    assert len(reading) == 0 and bib2["interactive"] is False and bib2["value"] is None


def test_a_star_the_answers_did_not_show_changes_nothing(fake: FakeAssistant, tmp_path: Path) -> None:
    conv, reading = Conversation(), ReadingList()
    _panel(fake, conv, tmp_path, reading)
    shown = {s.paper.paper_id for ex in conv.exchanges if ex.answer for s in ex.answer.sources}
    hidden = next(p.paper_id for p in fake.corpus if p.paper_id not in shown)
    for event in (_click(hidden), _click(["x"]), _click(None), gr.EventData(None, None), _click("x", "yes")):
        _, html, heading, *buttons = star_clicked(reading, conv, event, tmp_path)
        assert (
            len(reading) == 0 and 'data-count="0"' in html and heading["label"] == "Reading list · 0 papers"
        )
        assert all(b["interactive"] is False for b in buttons)
    assert click_data(_click("x", "true")) == ("x", False, 0)  # only a real true stars
    assert click_data(_click("x", True, True)) == ("x", True, 0) == click_data(_click("x", True, 2**60))


def test_the_last_click_on_a_paper_wins_whatever_order_they_arrive_in(
    fake: FakeAssistant, tmp_path: Path
) -> None:
    conv, reading = Conversation(), ReadingList()
    _panel(fake, conv, tmp_path, reading)
    answer = conv.exchanges[0].answer
    assert answer is not None
    a, b = (s.paper.paper_id for s in answer.sources[:2])
    for paper_id, starred, seq in [(a, True, 1), (b, False, 4), (a, False, 3), (b, True, 2), (a, True, 2)]:
        star_clicked(reading, conv, _click(paper_id, starred, seq), tmp_path)
    assert reading.ids() == []  # a: star 1, star 2, unstar 3; b: star 2, unstar 4
    star_clicked(reading, conv, _click(b, True, 5), tmp_path)
    *_, bib, _, _ = star_clicked(reading, conv, _click(b, False, 5), tmp_path)  # a repeat: ignored
    assert reading.ids() == [b] and bib["interactive"] is True


def test_a_click_handled_after_a_new_conversation_still_counts(fake: FakeAssistant, tmp_path: Path) -> None:
    """A star clicked on a card just before "New conversation", whose click reaches the server after it: the
    conversation is gone, but the session's reading list remembers the papers its answers showed."""
    old, reading = Conversation(), ReadingList()
    updates = list(
        answer_turn(fake, QUESTION, old, Options(), tmp_path, starred=reading, on_answer=reading.offer)
    )
    answer = old.exchanges[0].answer
    assert answer is not None and isinstance(updates[-1][2], str)
    shown = [s.paper.paper_id for s in answer.sources]
    hidden = next(p.paper_id for p in fake.corpus if p.paper_id not in shown)
    fresh = Conversation()  # "New conversation"
    star_clicked(reading, fresh, _click(shown[0], True, 1), tmp_path)
    star_clicked(reading, fresh, _click(hidden, True, 2), tmp_path)  # never shown: still ignored
    _, html, heading, *_ = star_clicked(reading, fresh, _click(shown[1], True, 3), tmp_path)
    assert reading.ids() == shown[:2] and heading["label"] == "Reading list · 2 papers"
    assert all(f'data-paper="{i}"' in html for i in shown[:2])
    assert reading_shown(reading, tmp_path)[:2] == (html, heading)  # what the page is given again after


def test_the_session_remembers_only_its_recent_papers(fake: FakeAssistant, tmp_path: Path) -> None:
    conv, reading = Conversation(), ReadingList()
    list(answer_turn(fake, QUESTION, conv, Options(), tmp_path, on_answer=reading.offer))
    answer = conv.exchanges[0].answer
    assert answer is not None and set(reading.shown) == set(answer_papers(answer)) != set()
    for i in range(SHOWN_PAPERS):
        reading.offer(dataclasses.replace(answer, sources=[], citations=[_citation(f"p{i}")]))
    assert len(reading.shown) == SHOWN_PAPERS and "p0" in reading.shown
    assert not set(answer_papers(answer)) & set(reading.shown)  # the oldest went first


def test_each_session_writes_to_its_own_folder(fake: FakeAssistant, tmp_path: Path) -> None:
    conv = Conversation()
    alice, bob = ReadingList(), ReadingList()
    _panel(fake, conv, tmp_path, alice)
    answer = conv.exchanges[0].answer
    assert answer is not None
    ids = [s.paper.paper_id for s in answer.sources[:2]]
    star_clicked(alice, conv, _click(ids[0]), tmp_path)
    star_clicked(bob, conv, _click(ids[1]), tmp_path)
    folder = alice.folder
    *_, bib, _, _ = star_clicked(alice, conv, _click(ids[1]), tmp_path)
    assert alice.folder == folder and bob.folder not in (None, folder)
    assert len(bibtexparser.parse_string(Path(bib["value"]).read_text(encoding="utf-8")).entries) == 2


def test_the_star_escapes_a_hostile_paper_id(fake: FakeAssistant) -> None:
    answer = fake.ask(QUESTION)
    answer.sources[0].paper.paper_id = '"><img src=x onerror=alert(1)>${x}'
    html = sources_html(answer, turn=1, starred=[answer.sources[0].paper.paper_id])
    assert "<img" not in html and "${x}" not in html and 'aria-pressed="true"' in html
