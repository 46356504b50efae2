"""The corpus mode as a person sees it (issue 22): headless Chromium against the real assistant (extractive
backend) over the real-list fixture. A breakdown question shows the matching-papers panel with its bar
chart and table, the CSV downloads every paper, and an edited criterion asked again changes the count."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assistant.chain import Assistant
from assistant.llm.extractive import ExtractiveBackend
from assistant.settings import Settings
from tests.browser import ask, chromium, needs_chromium, new_page, screenshot, serve
from tests.corpus_lists import corpus_retriever, mentions, raw_papers, subset_rows

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture(scope="module")
def app_url() -> Iterator[str]:
    with serve(Assistant(corpus_retriever(), ExtractiveBackend(), Settings())) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def test_a_breakdown_shows_chart_table_and_csv_and_the_criterion_asks_again(
    browser: Any, app_url: str
) -> None:
    raw = raw_papers(*subset_rows())
    orals = [p for p in raw if p.venue == "ICLR 2026" and p.status == "Oral"]
    page = new_page(browser, app_url)
    assert not page.locator("#pc-corpus-box").is_visible()
    ask(page, "Which primary areas have the most ICLR 2026 orals?")
    page.get_by_text(f"Matching papers · {len(orals)}").wait_for()
    page.locator("#pc-corpus-chart").wait_for(state="visible")
    first = min(orals, key=lambda p: p.title.lower())  # the table lists them by title
    page.locator("#pc-corpus-table").get_by_text(first.title[:30]).first.wait_for()
    screenshot(page, "corpus-breakdown")
    with page.expect_download() as info:
        page.locator("#pc-corpus-csv").click()
    rows = list(csv.DictReader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8"))))
    assert len(rows) == len(orals) and {r["venue"] for r in rows} == {"ICLR 2026"}

    about = [p for p in orals if mentions(p, "diffusion")]
    page.locator("#pc-criterion textarea").fill(
        "venue: ICLR 2026; status: Oral; topic: diffusion; show: list"
    )
    page.locator("#pc-recount").click()
    page.get_by_text(f"Matching papers · {len(about)}").wait_for()
    assert not page.locator("#pc-corpus-chart").is_visible()  # a list has no breakdown to chart
