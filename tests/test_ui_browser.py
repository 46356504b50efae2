"""The UI as a person uses it: headless Chromium against the real assistant (extractive backend) over a real
store of the 38 sample abstracts. Screenshots of the main screens go to artifacts/screenshots/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import (
    ask,
    bot_texts,
    build_real_assistant,
    chromium,
    closed_port,
    copy_for_readme,
    needs_chromium,
    new_page,
    record_bot_text,
    recorded_bot_text,
    screenshot,
    serve,
    user_texts,
    wait_answered,
)

pytestmark = [pytest.mark.browser, needs_chromium]

FIRST = "Which papers use spiking neural networks for energy efficiency?"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The UI, served on a free 127.0.0.1 port, around the real assistant over the sample corpus."""
    with serve(build_real_assistant(tmp_path_factory.mktemp("ui-store") / "store")) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _panel_shows(page: Any, n: int) -> bool:
    """Whether source card n is scrolled into the visible part of the sources panel."""
    return bool(
        page.evaluate(
            """(n) => {
      const card = document.getElementById('src-' + n), box = card.closest('.pc-sources');
      const c = card.getBoundingClientRect(), b = box.getBoundingClientRect();
      return c.top >= b.top - 2 && c.top < b.bottom - 20 && c.top >= 0 && c.top < window.innerHeight;
    }""",
            n,
        )
    )


def test_question_streams_an_answer_with_citations_and_its_sources(browser: Any, app_url: str) -> None:
    page = new_page(browser, app_url)
    examples = (
        page.locator("#pc-chat .example").all_inner_texts()
        or page.locator("#pc-chat button").all_inner_texts()
    )
    assert any(t.startswith("Ask ·") for t in examples), examples
    assert any(t.startswith("Summarize ·") for t in examples) and any(
        t.startswith("Compare ·") for t in examples
    )
    screenshot(page, "01-first-screen")

    record_bot_text(page)
    ask(page, FIRST)
    seen = recorded_bot_text(page)
    assert len(seen) >= 2 and "Searching the papers" in seen[0], seen  # the reply updates as it streams
    answer = bot_texts(page)[-1]
    assert "[1]" in answer and "[2]" in answer and "SNN" in answer
    cards = page.locator("#pc-sources .pc-card")
    assert cards.count() >= 2
    first = cards.first.inner_text()
    assert first.startswith("[1]") and ("ICLR" in first or "ICML" in first) and "2026" in first
    assert page.locator("#src-1 mark").count() == 1  # the matched chunk, highlighted
    assert page.locator("#pc-sources a.pc-code").count() >= 1  # code links of the papers
    page.evaluate("window.scrollTo(0, 0)")
    copy_for_readme(screenshot(page, "02-answer-with-sources"))
    last = page.locator("#pc-sources .pc-card[id^='src-']").count()
    assert last >= 2
    page.locator(f'#pc-chat a[href="#src-{last}"]').first.click()
    page.wait_for_function(
        """(n) => { const c = document.getElementById('src-' + n), b = c.closest('.pc-sources');
        return Math.abs(c.getBoundingClientRect().top - b.getBoundingClientRect().top) < 40; }""",
        arg=last,
    )
    assert _panel_shows(page, last)
    screenshot(page, "03-citation-clicked")


def test_follow_up_shows_standalone_question_export_and_clear(browser: Any, app_url: str) -> None:
    page = new_page(browser, app_url)
    ask(page, FIRST)
    ask(page, "How do they handle the temporal dimension?")
    status = page.locator("#pc-status").inner_text()
    assert "Standalone question:" in status and "spiking" in status.lower()
    assert len(bot_texts(page)) == 2 and "[1]" in bot_texts(page)[1]
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "04-follow-up")

    with page.expect_download() as info:
        page.locator("#pc-export").click()
    exported = Path(info.value.path()).read_text(encoding="utf-8")
    assert f"## 1. {FIRST}" in exported and "## 2. How do they handle the temporal dimension?" in exported
    assert "**Sources**" in exported and "> Standalone question:" in exported

    page.locator("#pc-clear").click()
    page.locator('#pc-sources [data-answer="0"]').wait_for()
    assert bot_texts(page) == [] and page.locator("#pc-status").inner_text().strip() == ""
    ask(page, "How do they handle the temporal dimension?")  # a new conversation: no history to rewrite
    assert "Standalone question" not in page.locator("#pc-status").inner_text()


def test_example_questions_answer_from_the_corpus(browser: Any, app_url: str) -> None:
    page = new_page(browser, app_url)
    for n, kind in enumerate(["Summarize ·", "Compare ·"], 1):
        if n > 1:
            page.locator("#pc-clear").click()
            page.locator('#pc-sources [data-answer="0"]').wait_for()
        page.locator("#pc-chat button", has_text=kind).first.click()
        wait_answered(page, 1)
        answer = bot_texts(page)[-1]
        assert "does not cover" not in answer and "[1]" in answer, answer
        assert page.locator("#pc-mode input:checked").get_attribute("value") == kind.split()[0].lower()
    assert page.locator("#pc-chat table").count() == 1  # the comparison table
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "05-compare")


def test_two_users_have_separate_conversations(browser: Any, app_url: str) -> None:
    alice, bob = new_page(browser, app_url), new_page(browser, app_url)
    ask(alice, "What is BrainGFM?")
    ask(bob, "<script>window.__pwned = 1</script> <b>SmoothSpike</b> surrogate gradients")
    assert user_texts(alice) == ["What is BrainGFM?"]
    assert user_texts(bob) == ["<script>window.__pwned = 1</script> <b>SmoothSpike</b> surrogate gradients"]
    assert bob.evaluate("() => window.__pwned") is None and bob.locator("#pc-chat b").count() == 0
    ask(alice, "What datasets does it use?")
    assert "BrainGFM" in alice.locator("#pc-status").inner_text()
    assert "SmoothSpike" not in alice.locator("#pc-status").inner_text()
    assert user_texts(bob)[-1].endswith("surrogate gradients") and len(user_texts(bob)) == 1


def test_a_dead_api_backend_shows_a_clear_error_and_the_app_stays_up(browser: Any, app_url: str) -> None:
    page = new_page(browser, app_url)
    page.locator("#pc-options").click()
    page.locator("#pc-backend input").click()
    page.get_by_role("option", name="openai", exact=True).click()
    port = closed_port()
    page.locator("#pc-base-url :is(input, textarea)").fill(f"http://127.0.0.1:{port}/v1")
    page.locator("#pc-model :is(input, textarea)").fill("some-model")
    assert "no key" in page.locator("#pc-keynote").inner_text()
    ask(page, "What is BrainGFM?")
    reply = bot_texts(page)[-1]
    assert "Problem:" in reply and "connection refused" in reply and f"127.0.0.1:{port}" in reply
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "06-dead-backend")
    page.locator("#pc-backend input").click()
    page.get_by_role("option", name="extractive", exact=True).click()
    ask(page, "What is BrainGFM?")
    assert "Problem:" not in bot_texts(page)[-1] and "[1]" in bot_texts(page)[-1]


def test_api_endpoint_with_gradio_client(app_url: str) -> None:
    from gradio_client import Client

    client = Client(app_url, verbose=False)
    text, sources = client.predict("What does BrainGFM propose?", "ask", api_name="/ask")
    assert "[1]" in text and sources and sources[0]["n"] == 1
    assert {"title", "label", "venue", "year", "abstract", "span", "code_links"} <= set(sources[0])
    assert any(s["label"] == "BrainGFM" for s in sources)


def test_upload_a_paper_list_and_see_it_ingested(browser: Any, app_url: str, tmp_path: Path) -> None:
    papers = [
        {
            "title": "Quokka: Marsupial-Inspired Sparse Attention for Long Documents",
            "venue": "ICLR",
            "year": 2026,
            "abstract": "We propose Quokka, a marsupial-inspired sparse attention scheme that pouches distant tokens "
            "into compact memory slots. Quokka cuts the cost of long-document transformers by half.",
        },
        {
            "title": "Wombat: Burrowing Retrieval for Scientific Claims",
            "venue": "ICML",
            "year": 2026,
            "abstract": "Wombat burrows through citation graphs to retrieve evidence for scientific claims, "
            "outperforming dense retrievers on claim verification benchmarks.",
        },
    ]
    good = tmp_path / "new papers.jsonl"
    good.write_text("\n".join(json.dumps(p) for p in papers) + "\n", encoding="utf-8")
    bad = tmp_path / "tool.exe"
    bad.write_bytes(b"MZ\x90\x00")

    page = new_page(browser, app_url)
    page.get_by_role("tab", name="Corpus").click()
    count = page.locator("#pc-paper-count")
    assert count.inner_text() == "38" and "ICLR 2026" in page.locator("#pc-stats").inner_text()
    page.locator("#pc-upload input[type=file]").set_input_files([str(good), str(bad)])
    page.wait_for_function(
        "() => document.querySelector('#pc-upload').innerText.replace(/\\s/g, '').includes('tool.exe')"
    )
    page.locator("#pc-ingest").click()
    page.wait_for_function(
        "() => document.querySelector('#pc-report textarea').value.includes('papers read')"
    )
    report = page.locator("#pc-report textarea").input_value()
    assert "new: 2" in report and "rejected tool.exe: not a paper list" in report
    assert count.inner_text() == "40"
    screenshot(page, "07-corpus-ingested")

    page.get_by_role("tab", name="Chat").click()
    ask(page, "Which paper uses marsupial-inspired sparse attention?")
    assert "Quokka" in page.locator("#src-1").inner_text()
