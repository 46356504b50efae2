"""Chat backends: the registry, the scripted fake, and the HTTP backends against real and broken servers."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Generator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from assistant.errors import BackendError, ConfigError
from assistant.llm import registry
from assistant.llm.base import ChatBackend
from assistant.llm.extractive import ExtractiveBackend
from assistant.llm.fake import ScriptedBackend
from assistant.llm.openai_backend import NO_KEY, OpenAIBackend, resolve_api_key
from assistant.llm.registry import backend_names, get_backend, register_backend
from assistant.settings import LLMSettings
from tests.services import free_port

SECRET = "sk-test-SECRET-0123456789"
HELLO = [{"role": "user", "content": "Say hello."}]


# --- registry ---------------------------------------------------------------------------------------


def test_registry_lists_every_backend() -> None:
    assert {"local", "local-small", "openai", "ollama", "extractive", "scripted"} <= set(backend_names())


def test_unknown_backend_names_the_choices() -> None:
    with pytest.raises(ConfigError) as info:
        get_backend("gpt-17", LLMSettings())
    assert "gpt-17" in str(info.value)
    for name in ("local", "local-small", "openai", "ollama", "extractive"):
        assert name in str(info.value)


def test_register_backend_adds_a_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    register_backend("echo")(lambda settings: ScriptedBackend(lambda m: m[-1]["content"]))
    assert "echo" in backend_names()
    assert get_backend("echo", LLMSettings()).complete(HELLO, max_tokens=16, temperature=0) == "Say hello."


# --- scripted and extractive ------------------------------------------------------------------------


def test_scripted_streams_replies_in_order_and_records_messages() -> None:
    backend = ScriptedBackend(["The first reply.", "Second."], piece=3)
    pieces = list(backend.stream(HELLO, max_tokens=16, temperature=0.0))
    assert len(pieces) > 1 and "".join(pieces) == "The first reply."
    assert (
        backend.complete([{"role": "user", "content": "again"}], max_tokens=16, temperature=0.0) == "Second."
    )
    assert backend.received == [HELLO, [{"role": "user", "content": "again"}]]
    assert backend.calls[0]["max_tokens"] == 16
    with pytest.raises(BackendError, match="no replies left"):
        backend.complete(HELLO, max_tokens=16, temperature=0.0)


def test_scripted_callable_and_stop() -> None:
    backend = ScriptedBackend(lambda messages: f"{len(messages)} messages\nEND ignored")
    assert backend.complete(HELLO * 2, max_tokens=16, temperature=0.0, stop=["\nEND"]) == "2 messages"


def test_scripted_is_in_the_registry() -> None:
    backend = get_backend("scripted", LLMSettings(context_window=2048))
    assert isinstance(backend, ScriptedBackend) and backend.context_window == 2048
    assert backend.complete(HELLO, max_tokens=16, temperature=0.0)


def test_base_token_estimate() -> None:
    backend = ScriptedBackend([])
    assert backend.count_tokens("") == 0
    assert 20 <= backend.count_tokens("word " * 20) <= 40


def test_extractive_marks_no_generation() -> None:
    backend = get_backend("extractive", LLMSettings())
    assert isinstance(backend, ExtractiveBackend) and backend.generates is False
    with pytest.raises(BackendError, match="does not generate"):
        backend.complete(HELLO, max_tokens=16, temperature=0.0)


# --- openai backend against broken servers ----------------------------------------------------------


class _BrokenAPI(BaseHTTPRequestHandler):
    """The first path segment picks the failure: /garbage/v1/..., /e500/v1/..., /e401/v1/..."""

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # /ok/v1/models
        self._send(200, "application/json", json.dumps({"data": [{"id": "first-model"}]}).encode())

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        mode = self.path.split("/")[1]
        if mode == "garbage":
            self._send(200, "text/html", b"<html>Welcome to my blog</html>")
        elif mode == "badjson":
            self._send(200, "text/event-stream", b"data: {not json\n\n")
        elif mode == "e500":
            self._send(500, "application/json", b'{"error": {"message": "CUDA out of memory"}}')
        elif mode == "e401":  # like OpenAI, echoes part of the key
            body = {"error": {"message": f"Incorrect API key provided: {SECRET}"}}
            self._send(401, "application/json", json.dumps(body).encode())
        elif mode == "slow":
            time.sleep(3)
            self._send(500, "text/plain", b"late")
        else:
            self._send(404, "application/json", b'{"error": {"message": "model not found"}}')

    def _send(self, code: int, content_type: str, body: bytes) -> None:
        self.send_response(code)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def broken_api() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _BrokenAPI)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _openai(base_url: str, **overrides: object) -> OpenAIBackend:
    fields: dict[str, object] = {"base_url": base_url, "model": "m", "api_key": SECRET, "timeout": 10}
    settings = LLMSettings.model_validate({**fields, **overrides})
    backend = get_backend("openai", settings)
    assert isinstance(backend, OpenAIBackend)
    return backend


def _failure(backend: ChatBackend) -> str:
    with pytest.raises(BackendError) as info:
        backend.complete(HELLO, max_tokens=16, temperature=0.0)
    message = str(info.value)
    assert SECRET not in message and SECRET[-8:] not in message
    return message


def test_dead_port_fails_fast_naming_url_and_connection() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    message = _failure(_openai(url))
    assert url in message and "connection refused" in message and "running" in message


def test_dead_port_without_model_fails_while_listing_models() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    assert "connection refused" in _failure(_openai(url, model=""))


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("garbage", "expected format"),
        ("badjson", "not valid JSON"),
        ("e500", "server error (HTTP 500)"),
        ("e401", "refused the API key (HTTP 401)"),
        ("e404", "HTTP 404"),
    ],
)
def test_broken_server_gives_clear_error(broken_api: str, mode: str, expected: str) -> None:
    url = f"{broken_api}/{mode}/v1"
    message = _failure(_openai(url))
    assert expected in message and url in message


def test_timeout_is_reported(broken_api: str) -> None:
    message = _failure(_openai(f"{broken_api}/slow/v1", timeout=0.5))
    assert "timeout" in message and "0.5 s" in message


def test_empty_model_uses_first_listed(broken_api: str) -> None:
    backend = _openai(f"{broken_api}/ok/v1", model="")
    assert backend.models() == ["first-model"]


def test_api_key_comes_from_environment_and_never_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert resolve_api_key(LLMSettings()) == NO_KEY
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-1234")
    assert resolve_api_key(LLMSettings()) == "sk-from-env-1234"
    assert resolve_api_key(LLMSettings.model_validate({"api_key": SECRET})) == SECRET
    backend = _openai("http://127.0.0.1:9/v1")
    assert SECRET not in repr(backend) and SECRET not in str(vars(backend))


def test_ollama_dead_url_gives_clear_error() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    message = _failure(get_backend("ollama", LLMSettings(ollama_url=url, model="qwen2.5:0.5b")))
    assert url in message and "connection refused" in message


# --- real models --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_openai_backend_streams_from_real_server(openai_server: str) -> None:
    backend = _openai(openai_server, model="")  # the model is found through /v1/models
    pieces = list(
        backend.stream(
            [{"role": "user", "content": "Name one primary colour. One word."}],
            max_tokens=16,
            temperature=0.0,
        )
    )
    assert backend.model == "local-small"
    assert len(pieces) >= 1 and "".join(pieces).strip()


@pytest.mark.slow
@pytest.mark.llm
def test_local_small_generates_and_counts_tokens(small_model_path: Path) -> None:
    from assistant.llm.llama import LlamaBackend

    settings = LLMSettings(context_window=2048)
    backend = get_backend("local-small", settings)
    assert isinstance(backend, LlamaBackend) and backend.model_path == small_model_path
    reply = backend.complete(
        [{"role": "user", "content": "Reply with the single word: yes"}], max_tokens=16, temperature=0.0
    )
    assert reply.strip()
    abandoned = backend.stream(HELLO, max_tokens=16, temperature=0.0)
    assert isinstance(abandoned, Generator) and next(abandoned)
    abandoned.close()  # a reader that stops early must release the model for the next call
    assert backend.count_tokens("hello world") == 2
    assert LlamaBackend("local-small", settings, model_path=small_model_path).load() is backend.load()
    with pytest.raises(BackendError, match="context window"):
        backend.complete([{"role": "user", "content": "word " * 3000}], max_tokens=16, temperature=0.0)
