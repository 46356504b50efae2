"""The corpus mode in the UI on the real-list fixture: a corpus answer shows the matching papers as a table
(title, venue, status, area, link), a CSV of all of them, a bar chart for a breakdown and the criterion to
edit; any other answer hides the panel; the Gradio API's /corpus returns count, criterion, papers and
groups. Counts are checked against the raw files."""

from __future__ import annotations

import collections
import csv
import dataclasses
import html
import re
from pathlib import Path

import pytest

from assistant.chain import Assistant
from assistant.corpus_stats import Group
from assistant.llm.extractive import ExtractiveBackend
from assistant.settings import Settings
from tests.browser import serve
from tests.corpus_lists import corpus_retriever, mentions, raw_papers, same_title, subset_rows
from ui.app import build_app
from ui.corpus_view import (
    COLUMNS,
    HIDDEN,
    corpus_updates,
    groups_frame,
    groups_html,
    link_cell,
    papers_frame,
    write_csv,
)


@pytest.fixture(scope="module")
def assistant() -> Assistant:
    return Assistant(corpus_retriever(), ExtractiveBackend(), Settings())


def test_a_breakdown_shows_table_chart_csv_and_criterion(assistant: Assistant, tmp_path: Path) -> None:
    raw = raw_papers(*subset_rows())
    orals = [p for p in raw if p.venue == "ICLR 2026" and p.status == "Oral"]
    answer = assistant.ask("Which primary areas have the most ICLR 2026 orals?")
    assert answer.corpus is not None
    box, criterion, chart, table, download = corpus_updates(answer, tmp_path)
    assert box["visible"] is True and box["label"] == f"Matching papers · {len(orals)}"
    assert criterion["value"] == "venue: ICLR 2026; status: Oral; group: area; show: groups"
    frame = table["value"]
    assert list(frame.columns) == COLUMNS and len(frame) == len(orals)
    assert set(map(same_title, frame["title"])) == {same_title(p.title) for p in orals}
    assert chart["visible"] is True
    expected = dict(collections.Counter(p.area for p in orals).most_common(20))
    frame = groups_frame(answer.corpus)
    assert frame is not None and dict(zip(frame["group"], frame["papers"], strict=True)) == expected
    drawn = re.findall(r'data-group="([^"]*)" data-count="(\d+)"', chart["value"])
    assert {html.unescape(name): int(n) for name, n in drawn} == expected  # the bars, largest first
    assert [int(n) for _, n in drawn] == sorted(expected.values(), reverse=True)
    top_name, top_count = next(iter(expected.items()))
    assert f"{top_count} ({top_count / len(orals):.1%})" in chart["value"]  # each bar states count and share
    with open(download["value"], encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["paper_id", *COLUMNS] and len(rows) == len(orals) + 1


def test_a_count_has_no_chart_and_other_answers_hide_the_panel(assistant: Assistant, tmp_path: Path) -> None:
    answer = assistant.ask("How many ICML 2026 papers are about diffusion?")
    assert answer.corpus is not None and groups_frame(answer.corpus) is None
    assert corpus_updates(answer, tmp_path)[2]["visible"] is False and groups_html(answer.corpus) is None
    assert corpus_updates(assistant.ask("What is flow matching?", mode="ask"), tmp_path) == HIDDEN
    assert corpus_updates(None, tmp_path) == HIDDEN


def test_the_csv_guards_formula_cells(assistant: Assistant, tmp_path: Path) -> None:
    answer = assistant.ask("How many ICML 2026 papers are about diffusion?")
    assert answer.corpus is not None
    paper = answer.corpus.papers[0]
    answer.corpus.papers[0] = dataclasses.replace(paper, title="=HYPERLINK(evil)")
    with open(write_csv(answer.corpus, tmp_path), encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[1][1] == "'=HYPERLINK(evil)"
    assert papers_frame(answer.corpus)["title"][0] == "=HYPERLINK(evil)"  # shown as text in the table


def test_the_app_builds_with_the_panel_and_the_api_returns_the_result(assistant: Assistant) -> None:
    from gradio_client import Client

    app = build_app(assistant)
    ids = {getattr(block, "elem_id", None) for block in app.blocks.values()}
    assert {"pc-corpus-box", "pc-corpus-table", "pc-corpus-chart", "pc-corpus-csv", "pc-criterion"} <= ids
    raw = raw_papers(*subset_rows())
    with serve(assistant) as url:
        client = Client(url, verbose=False)
        data = client.predict("How many papers about diffusion per venue?", "", 0, api_name="/corpus")
        icml = client.predict("How many orals are about diffusion?", "ICML", 0, api_name="/corpus")
    per_venue = collections.Counter(p.venue for p in raw if mentions(p, "diffusion"))
    assert {g["name"]: g["count"] for g in data["groups"]} == dict(per_venue)
    assert data["criterion"]["text"].startswith("topic: diffusion") and data["answer"].startswith("**")
    icml_orals = [
        p for p in raw if p.venue == "ICML 2026" and p.status == "Oral" and mentions(p, "diffusion")
    ]
    assert icml["count"] == len(icml_orals) and icml["criterion"]["venues"] == ["ICML"]
    assert {same_title(p["title"]) for p in icml["papers"]} == {same_title(p.title) for p in icml_orals}


def test_the_chart_escapes_group_names(assistant: Assistant) -> None:
    answer = assistant.ask("Which primary areas have the most ICLR 2026 orals?")
    assert answer.corpus is not None
    hostile = dataclasses.replace(answer.corpus, groups=[Group('<img src=x onerror="alert(1)">', 3)])
    chart = groups_html(hostile)
    assert chart is not None and "<img" not in chart and "&lt;img src=x" in chart


def test_table_links_are_short_and_only_http() -> None:
    url = "https://openreview.net/forum?id=8dLexnao2h"
    assert link_cell(url) == f"[openreview.net]({url})"
    assert link_cell("https://icml.cc/virtual/2026/poster/1(2)") == (
        "[icml.cc](https://icml.cc/virtual/2026/poster/1%282%29)"
    )
    assert "javascript" in link_cell("javascript:alert(1)") and "(" not in link_cell("javascript:alert(1)")
    assert link_cell("") == ""
