"""The reading list as a person uses it (issue 23): headless Chromium against the real assistant (extractive
backend) over a real store of the 38 sample abstracts. Star a source, see it in the list, download the
BibTeX (parsed back) and the Markdown, remove it again."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bibtexparser
import pytest

from tests.browser import ask, build_real_assistant, chromium, needs_chromium, new_page, screenshot, serve

pytestmark = [pytest.mark.browser, needs_chromium]

QUESTION = "Which papers use spiking neural networks for energy efficiency?"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve(build_real_assistant(tmp_path_factory.mktemp("ui-store") / "store")) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _plain(latex: str) -> str:
    """A BibTeX title as text: braces and escaping backslashes dropped, spaces collapsed."""
    return " ".join(re.sub(r"\\(?=[^a-zA-Z])|[{}]", "", latex).split())


def _download(page: Any, button: str) -> str:
    with page.expect_download() as info:
        page.locator(button).click()
    return Path(info.value.path()).read_text(encoding="utf-8")


def test_star_a_source_see_it_listed_and_download_it(browser: Any, app_url: str) -> None:
    page = new_page(browser, app_url)
    ask(page, QUESTION)
    card = page.locator("#pc-sources .pc-card").first
    title = re.sub(r"^\[\d+\]\s*", "", card.locator(".pc-title").inner_text()).strip()
    star = card.locator(".pc-star")
    paper_id = star.get_attribute("data-paper")
    assert title and paper_id and star.get_attribute("aria-pressed") == "false"
    page.locator("#pc-reading-box").get_by_text("Reading list · 0 papers").click()  # open the list
    page.locator('#pc-reading [data-count="0"]').wait_for()
    assert page.locator("#pc-reading-bib").is_disabled()  # nothing to export yet

    star.click()
    assert star.get_attribute("aria-pressed") == "true"
    page.locator("#pc-reading-box").get_by_text("Reading list · 1 paper").wait_for()
    item = page.locator(f'#pc-reading .pc-reading-item[data-paper="{paper_id}"]')
    item.wait_for()
    assert item.locator(".pc-title").inner_text().strip() == title
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "07-reading-list")

    library = bibtexparser.parse_string(_download(page, "#pc-reading-bib"))
    assert not library.failed_blocks and len(library.entries) == 1
    entry = library.entries[0]
    assert entry.entry_type == "inproceedings" and _plain(entry["title"]) == " ".join(title.split())
    assert "Conference" in entry["booktitle"] and entry["year"] == "2026"
    markdown = _download(page, "#pc-reading-md")
    assert markdown.startswith("# paperchat reading list") and "· 1 paper_" in markdown
    assert " ".join(title.split()) in markdown.replace("\\", "")
    csv_text = _download(page, "#pc-reading-csv")
    assert csv_text.splitlines()[0].startswith("key,title") and paper_id in csv_text

    item.locator(".pc-unstar").click()  # remove it: the list empties and the card's star is released
    page.locator('#pc-reading [data-count="0"]').wait_for()
    assert star.get_attribute("aria-pressed") == "false"
    page.locator("#pc-reading-box").get_by_text("Reading list · 0 papers").wait_for()
    page.wait_for_function("() => document.querySelector('#pc-reading-bib').disabled")


def _listed(page: Any) -> set[str]:
    return set(
        page.eval_on_selector_all("#pc-reading .pc-reading-item", "(e) => e.map((x) => x.dataset.paper)")
    )


def test_the_list_outlives_a_new_conversation_and_stars_stay_pressed(browser: Any, app_url: str) -> None:
    page = new_page(browser, app_url)
    ask(page, QUESTION)
    page.locator("#pc-reading-box").get_by_text("Reading list · 0 papers").click()  # open the list
    stars = page.locator("#pc-sources .pc-card .pc-star")
    ids = [stars.nth(i).get_attribute("data-paper") for i in range(3)]
    page.evaluate(  # four clicks at once, none waiting for the server: the last on each paper wins
        """() => { const s = document.querySelectorAll('#pc-sources .pc-card .pc-star');
        [0, 1, 2, 1].forEach((i) => s[i].click()); }"""
    )
    # "2 papers" also reads after the first two clicks (papers 0 and 1): wait for the list as it ends, which
    # the page must reach whatever order the browser applied the four replies in
    page.wait_for_function(
        """(want) => { const got = [...document.querySelectorAll('#pc-reading .pc-reading-item')]
        .map((x) => x.dataset.paper).sort(); return JSON.stringify(got) === JSON.stringify(want); }""",
        arg=sorted([ids[0], ids[2]]),
    )
    page.locator("#pc-reading-box").get_by_text("Reading list · 2 papers").wait_for()
    page.locator("#pc-clear").click()
    page.locator('#pc-sources [data-answer="0"]').wait_for()
    ask(page, QUESTION)  # the same question again: its panel shows the starred papers pressed
    pressed = {i: page.locator(f'#pc-sources .pc-star[data-paper="{i}"]').first for i in ids}
    assert [pressed[i].get_attribute("aria-pressed") for i in ids] == ["true", "false", "true"]
    assert _listed(page) == {ids[0], ids[2]}
    assert page.locator("#pc-reading-box").get_by_text("Reading list · 2 papers").count() == 1
