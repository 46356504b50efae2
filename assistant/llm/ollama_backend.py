"""`ollama`: a native Ollama server, through langchain-ollama's `ChatOllama`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

import httpx

from assistant.errors import BackendError
from assistant.llm.base import ChatBackend, Message
from assistant.llm.failures import to_backend_error
from assistant.llm.registry import register_backend
from assistant.settings import LLMSettings

__all__ = ["OllamaBackend"]

logger = logging.getLogger(__name__)


class OllamaBackend(ChatBackend):
    """Streams chat replies from an Ollama server; with no model set, the first one it has pulled."""

    name = "ollama"

    def __init__(self, settings: LLMSettings) -> None:
        self.url = settings.ollama_url.rstrip("/")
        self.model = settings.model
        self.timeout = settings.timeout
        self.context_window = settings.context_window
        self._chat: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OllamaBackend(url={self.url!r}, model={self.model!r})"

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None = None,
    ) -> Iterator[str]:
        chat = self._client()
        options: dict[str, Any] = {
            "num_predict": max_tokens,
            "temperature": temperature,
            "num_ctx": self.context_window,
        }
        if stop:
            options["stop"] = stop
        try:
            for chunk in chat.stream(messages, options=options):
                text = chunk.content if isinstance(chunk.content, str) else chunk.text
                if text:
                    yield text
        except BackendError:
            raise
        except Exception as exc:
            raise self._error(exc) from None

    def models(self) -> list[str]:
        """The names of the models the server has pulled (/api/tags)."""
        try:
            response = httpx.get(f"{self.url}/api/tags", timeout=httpx.Timeout(self.timeout, connect=5.0))
            response.raise_for_status()
            return [str(m["name"]) for m in response.json()["models"]]
        except (KeyError, TypeError) as exc:
            raise BackendError(
                f"the Ollama backend at {self.url} returned a model list without names"
            ) from exc
        except Exception as exc:
            raise self._error(exc) from None

    def _client(self) -> Any:
        with self._lock:
            if self._chat is None:
                if not self.model:
                    names = self.models()
                    if not names:
                        raise BackendError(
                            f"the Ollama backend at {self.url} has no models; run `ollama pull`"
                        )
                    self.model = names[0]
                    logger.info("using model %r, the first pulled at %s", self.model, self.url)
                from langchain_ollama import ChatOllama

                self._chat = ChatOllama(
                    model=self.model,
                    base_url=self.url,
                    client_kwargs={"timeout": httpx.Timeout(self.timeout, connect=min(self.timeout, 5.0))},
                )
            return self._chat

    def _error(self, exc: BaseException) -> BackendError:
        return to_backend_error(exc, kind="Ollama", url=self.url, model=self.model, timeout=self.timeout)


@register_backend("ollama")
def _ollama(settings: LLMSettings) -> ChatBackend:
    return OllamaBackend(settings)
