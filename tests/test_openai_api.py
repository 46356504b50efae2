"""The OpenAI-compatible endpoint, driven by the `openai` client against a real server (uvicorn in a thread) over
the sample abstracts with the extractive backend: the sources travel with the answer, follow-ups work, bad
requests get a clear 4xx, the API key is required, and ten concurrent conversations stay apart."""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
import uvicorn
from openai import OpenAI
from pydantic import SecretStr
from starlette.types import ASGIApp

from assistant.chain import Assistant
from assistant.llm.extractive import ExtractiveBackend
from assistant.settings import Settings
from tests.chat_support import sample_retriever
from tests.conftest import SAMPLE_FILES
from tests.services import free_port
from tests.ui_fake import FakeAssistant
from ui.openai_api import model_ids, serve_app
from ui.records import marker_spans

KEY = "test-key-5be0d3"
QHFLOW_Q = "What does QHFlow2 improve?"
NAMED = ["QHFlow2", "HELM", "SmoothSpike", "BrainGFM", "NanoAssemblyGym", "EEG-MoCE", "Spik4lite", "U-Cast",
         "MindTransformer", "Coh"]  # fmt: skip


class Records(logging.Handler):
    """Every log line written while the module runs, to check the key is never among them."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture(scope="module")
def logs() -> Iterator[Records]:
    handler, root = Records(), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


def key_settings() -> Settings:
    settings = Settings()
    settings.serve.api_key = SecretStr(KEY)
    settings.serve.max_request_bytes = 20_000
    settings.serve.max_messages = 12
    return settings


@contextlib.contextmanager
def running(app: ASGIApp) -> Iterator[str]:
    """`app` served by uvicorn on a free port of 127.0.0.1 in a thread; yields its base url."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60  # a bound on the wait, not a timing assertion
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def assistant() -> Assistant:
    return Assistant(sample_retriever(), ExtractiveBackend(), key_settings())


@pytest.fixture(scope="module")
def v1(assistant: Assistant, logs: Records) -> Iterator[str]:
    with running(serve_app(assistant)) as url:
        yield f"{url}/v1"


@pytest.fixture
def client(v1: str) -> OpenAI:
    return OpenAI(base_url=v1, api_key=KEY, max_retries=0)


def extra(model: Any) -> dict[str, Any]:
    """The fields an OpenAI response carries beyond OpenAI's schema (Perplexity's, paperchat's)."""
    return dict(model.model_extra or {})


def check_sources(content: str, annotations: list[dict[str, Any]], top: dict[str, Any]) -> None:
    """Every marker in `content` has its source: an annotation spanning it, whose url is citations[n-1]."""
    spans = marker_spans(content)
    assert spans, content
    citations, results = top["citations"], top["search_results"]
    assert [r["url"] for r in results] == citations
    for span in spans:
        covering = [a["url_citation"] for a in annotations if a["type"] == "url_citation"]
        covering = [c for c in covering if c["start_index"] <= span.start and span.end <= c["end_index"]]
        assert content[span.start : span.end].startswith("[")
        assert {c["url"] for c in covering} == {citations[n - 1] for n in span.numbers}
        assert all(c["title"] == results[n - 1]["title"] for n, c in zip(span.numbers, covering, strict=True))


def ask(client: OpenAI, *messages: tuple[str, str]) -> tuple[str, dict[str, Any]]:
    completion = client.chat.completions.create(
        model="paperchat",
        messages=[{"role": r, "content": c} for r, c in messages],  # type: ignore[misc]
    )
    message = completion.choices[0].message
    annotations = [a.model_dump() for a in message.annotations or []]
    top = extra(completion)
    check_sources(message.content or "", annotations, top)
    return message.content or "", top


def test_models_are_listed(client: OpenAI) -> None:
    assert [m.id for m in client.models.list()] == model_ids()
    assert "paperchat" in model_ids() and "paperchat-compare" in model_ids()


def test_an_answer_keeps_its_markers_and_every_marker_has_its_source(client: OpenAI) -> None:
    content, top = ask(client, ("user", QHFLOW_Q))
    assert "[1]" in content and "QHFlow2" in content
    first = top["search_results"][0]
    assert first["title"] == "QHFlow2" and first["venue"] == "ICML 2026" and first["date"] == "2026"
    assert first["url"].endswith(f"/v1/papers/{first['paper_id'].replace(':', '%3A')}")
    record = httpx.get(first["url"], headers={"Authorization": f"Bearer {KEY}"}).json()
    assert record["title"] == "QHFlow2" and "SO(2)-equivariant" in record["abstract"]
    assert first["snippet"] and first["snippet"] in record["abstract"]  # the passage behind the citation


def test_streaming_sends_the_sources_first_and_last(client: OpenAI) -> None:
    expected, _ = ask(client, ("user", QHFLOW_Q))
    stream = client.chat.completions.create(
        model="paperchat", messages=[{"role": "user", "content": QHFLOW_Q}], stream=True
    )
    chunks = list(stream)
    assert len(chunks) >= 3
    content = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert content == expected
    first, last = extra(chunks[0]), extra(chunks[-1])
    assert first["citations"] and first["citations"] == last["citations"]
    assert first["search_results"] == last["search_results"]
    assert all("citations" not in extra(c) for c in chunks[1:-1])
    assert chunks[-1].choices[0].finish_reason == "stop"
    check_sources(content, extra(chunks[-1].choices[0].delta)["annotations"], last)


def test_a_follow_up_is_answered_from_the_history_in_the_messages(client: OpenAI) -> None:
    first, _ = ask(client, ("user", QHFLOW_Q))
    follow_up = "Which datasets does it use?"
    content, top = ask(client, ("user", QHFLOW_Q), ("assistant", first), ("user", follow_up))
    assert top["search_results"][0]["title"] == "QHFlow2"
    assert "QHFlow2" in top["paperchat"]["standalone_question"]
    alone = client.chat.completions.create(
        model="paperchat", messages=[{"role": "user", "content": follow_up}]
    )
    assert extra(alone)["paperchat"]["standalone_question"] == follow_up  # no history, nothing carried over


def test_the_api_key_is_required_and_never_logged(v1: str, logs: Records) -> None:
    with pytest.raises(openai.AuthenticationError):
        OpenAI(base_url=v1, api_key="wrong", max_retries=0).models.list()
    for headers in ({}, {"Authorization": "Bearer"}, {"Authorization": f"Token {KEY}"}):
        response = httpx.post(f"{v1}/chat/completions", json={"messages": []}, headers=headers)
        assert response.status_code == 401 and "API key" in response.json()["error"]["message"]
    assert any("missing or wrong API key" in line for line in logs.lines)
    assert not any(KEY in line for line in logs.lines)


BAD_REQUESTS: list[tuple[str, dict[str, Any], int, str]] = [
    ("not json", {"content": b"{not json"}, 400, "not valid JSON"),
    ("no messages", {"json": {"model": "paperchat", "messages": []}}, 400, "messages"),
    ("a message without a role", {"json": {"messages": [{"content": "hi"}]}}, 400, "role"),
    ("the last is not a question", {"json": {"messages": [{"role": "assistant", "content": "x"}]}}, 400, "last"),
    ("an empty question", {"json": {"messages": [{"role": "user", "content": " \u200b "}]}}, 400, "empty"),
    ("an unknown model", {"json": {"model": "gpt-9", "messages": [{"role": "user", "content": "q"}]}}, 404, "gpt-9"),
    ("oversize", {"json": {"messages": [{"role": "user", "content": "x" * 30_000}]}}, 413, "limit"),
    ("too many messages", {"json": {"messages": [{"role": "user", "content": "q"}] * 13}}, 400, "at most 12"),
    ("a question over the limit", {"json": {"messages": [{"role": "user", "content": "q " * 2_600}]}}, 400, "limit"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "body", "status", "says"), BAD_REQUESTS, ids=[b[0] for b in BAD_REQUESTS])
def test_a_bad_request_gets_a_clear_4xx_and_changes_nothing(
    v1: str, assistant: Assistant, client: OpenAI, name: str, body: dict[str, Any], status: int, says: str
) -> None:
    before = assistant.stats()
    response = httpx.post(f"{v1}/chat/completions", headers={"Authorization": f"Bearer {KEY}"}, **body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert says in error["message"] and error["type"] == "invalid_request_error"
    assert assistant.stats() == before
    content, _ = ask(client, ("user", QHFLOW_Q))  # the server answers as before
    assert "QHFlow2" in content


def conversation(client: OpenAI, name: str) -> list[tuple[str, dict[str, Any]]]:
    """Two turns about the paper `name`: what it is, then a follow-up leaning on the first."""
    first = ask(client, ("user", f"What does {name} propose?"))
    second = ask(
        client,
        ("user", f"What does {name} propose?"),
        ("assistant", first[0]),
        ("user", "What are its results?"),
    )
    return [first, second]


def test_ten_concurrent_conversations_never_leak_into_each_other(v1: str) -> None:
    alone = {name: conversation(OpenAI(base_url=v1, api_key=KEY, max_retries=0), name) for name in NAMED}
    with concurrent.futures.ThreadPoolExecutor(len(NAMED)) as pool:
        futures = {
            n: pool.submit(conversation, OpenAI(base_url=v1, api_key=KEY, max_retries=0), n) for n in NAMED
        }
        together = {name: future.result() for name, future in futures.items()}
    assert together == alone  # the same answers and sources as each conversation had on its own
    for name, turns in together.items():
        others = [n for n in NAMED if n != name]
        for _, top in turns:
            assert top["search_results"][0]["title"] == name
            standalone = top["paperchat"]["standalone_question"]
            assert name in standalone and not any(other in standalone for other in others)


def test_the_ui_serves_v1_beside_it() -> None:
    from ui.app import run_ui

    fake = FakeAssistant.from_files(SAMPLE_FILES, settings=key_settings())
    port = free_port()
    app = run_ui(fake, "127.0.0.1", port, block=False)
    try:
        url = f"http://127.0.0.1:{port}"
        assert "<html" in httpx.get(url, timeout=30).text.lower()  # the UI itself
        assert httpx.get(f"{url}/v1/models", timeout=30).status_code == 401
        ui_client = OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0)
        assert [m.id for m in ui_client.models.list()] == model_ids()
        content, top = ask(ui_client, ("user", "Hamiltonian models for electronic structure"))
        assert top["search_results"] and fake.calls[-1]["question"].startswith("Hamiltonian")
    finally:
        app.close()


def test_a_ui_with_a_login_and_no_key_does_not_serve_v1() -> None:
    """`/v1` would bypass the UI's login, so without a key it is left out."""
    from ui.app import run_ui

    fake = FakeAssistant.from_files(SAMPLE_FILES, settings=Settings())
    port = free_port()
    app = run_ui(fake, "127.0.0.1", port, auth=("reader", "pass-6d1e"), block=False)
    try:
        url = f"http://127.0.0.1:{port}"
        models = httpx.get(f"{url}/v1/models", timeout=30)
        asked = httpx.post(
            f"{url}/v1/chat/completions", json={"messages": [{"role": "user", "content": "x"}]}
        )
        assert models.status_code >= 400 and asked.status_code >= 400, (models.text, asked.text)
        assert "paperchat-ask" not in models.text and not fake.calls
    finally:
        app.close()
