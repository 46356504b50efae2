"""Helpers for the browser tests: serve the app on a free 127.0.0.1 port, drive Debian's headless Chromium.

Playwright never downloads a browser here: it launches /usr/bin/chromium. Tests using these are skipped,
with the reason, when that binary is missing (`make browser` installs it).
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.services import free_port

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
TIMEOUT_MS = 60_000

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium, or `make browser`)"
)


def closed_port() -> int:
    """A port nothing listens on: a dead API backend."""
    return free_port()


@contextlib.contextmanager
def serve(assistant: Any, auth: tuple[str, str] | None = None) -> Iterator[str]:
    """Run the real UI in this process (Gradio's server thread); yield its URL, close it after."""
    from ui.app import run_ui

    port = free_port()
    app = run_ui(assistant, "127.0.0.1", port, auth, block=False)
    url = f"http://127.0.0.1:{port}/"
    try:
        assert httpx.get(url, timeout=30).status_code in (200, 401)
        yield url
    finally:
        app.close()


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright's `Browser`)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any, url: str, width: int = 1360, height: int = 900) -> Any:
    context = browser.new_context(viewport={"width": width, "height": height}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.goto(url)
    page.locator("#pc-question textarea").wait_for()
    return page


def screenshot(page: Any, name: str, full_page: bool = False) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def copy_for_readme(path: Path) -> None:
    target = ROOT / "docs" / "screenshot.png"
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(path, target)


# ---------------------------------------------------------------------------------------------- actions


def answers_shown(page: Any) -> int:
    """Which answer of the session the sources panel shows (it updates when an answer is complete)."""
    return int(page.locator("#pc-sources [data-answer]").first.get_attribute("data-answer"))


def ask(page: Any, question: str) -> None:
    """Type `question`, send it, and return once its answer is complete."""
    before = answers_shown(page)
    page.locator("#pc-question textarea").fill(question)
    page.locator("#pc-send").click()
    wait_answered(page, before + 1)


def wait_answered(page: Any, n: int) -> None:
    page.locator(f'#pc-sources [data-answer="{n}"]').wait_for()


def record_bot_text(page: Any) -> None:
    """Start recording every distinct text the latest bot message shows (to see it stream)."""
    page.evaluate("""() => {
      window.__botTexts = [];
      const chat = document.querySelector('#pc-chat');
      new MutationObserver(() => {
        const bots = chat.querySelectorAll("[data-testid='bot']");
        const text = bots.length ? bots[bots.length - 1].innerText : '';
        if (text && window.__botTexts[window.__botTexts.length - 1] !== text) window.__botTexts.push(text);
      }).observe(chat, {subtree: true, childList: true, characterData: true});
    }""")


def recorded_bot_text(page: Any) -> list[str]:
    return list(page.evaluate("() => window.__botTexts"))


def bot_texts(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#pc-chat [data-testid='bot']").all_inner_texts()]


def user_texts(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#pc-chat [data-testid='user']").all_inner_texts()]


# ---------------------------------------------------------------------------------------------- the app


def build_real_assistant(store: Path) -> Any:
    """The real assistant (extractive backend) over a real store of the 38 sample abstracts in `store`."""
    from assistant.factory import build_assistant
    from assistant.settings import Settings

    settings = Settings()
    settings.store.path = store
    settings.llm.backend = "extractive"
    assistant = build_assistant(settings, backend="extractive")
    report = assistant.ingest(sorted((ROOT / "corpus").glob("*.txt")))
    assert report.new == 38, report.render()
    return assistant
