"""What the HTTP chat backends share: settings, a LangChain chat model built on first use (finding the
served model when none is configured), the stream loop, the model list, and clear errors.

A backend states only what differs: `_make_chat` (its LangChain class), `_call_options` (how a call's
limits are sent), where the model list is and what the words of its messages are.
"""

from __future__ import annotations

import logging
import threading
from abc import abstractmethod
from collections.abc import Iterator
from typing import Any

import httpx

from assistant.errors import BackendError
from assistant.llm.base import ChatBackend, Message
from assistant.llm.failures import to_backend_error
from assistant.settings import LLMSettings

__all__ = ["HTTPBackend", "CONNECT_TIMEOUT"]

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT = 5.0  # seconds to wait for a connection (at most the whole timeout)


class HTTPBackend(ChatBackend):
    """A chat backend served over HTTP at `url`; with no model configured, the first one the server lists."""

    kind = "HTTP"  # in messages: "the {kind} backend at {url} …"
    models_path = "/models"  # the model list, under `url`
    models_key = "data"  # the list's field in the JSON reply
    model_field = "id"  # each model's name in the list
    no_models = "serves no models"  # what an empty list means, after "the {kind} backend at {url}"
    listed = "served"  # how the log names the first model: "the first served at …"

    def __init__(self, url: str, settings: LLMSettings) -> None:
        self.url = url.rstrip("/")
        self.model = settings.model
        self.timeout = settings.timeout
        self.context_window = settings.context_window
        self._chat: Any = None
        self._lock = threading.Lock()

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None = None,
    ) -> Iterator[str]:
        chat = self._client()
        try:
            for chunk in chat.stream(messages, **self._call_options(max_tokens, temperature, stop)):
                text = chunk.content if isinstance(chunk.content, str) else chunk.text
                if text:
                    yield text
        except BackendError:
            raise
        except Exception as exc:
            raise self._error(exc) from None

    def models(self) -> list[str]:
        """The names of the models the server lists."""
        try:
            response = httpx.get(
                f"{self.url}{self.models_path}", headers=self._headers(), timeout=self._list_timeout()
            )
            response.raise_for_status()
            return [str(m[self.model_field]) for m in response.json()[self.models_key]]
        except (KeyError, TypeError) as exc:
            raise BackendError(
                f"the {self.kind} backend at {self.url} returned a model list without {self.model_field}s"
            ) from exc
        except Exception as exc:
            raise self._error(exc) from None

    @abstractmethod
    def _make_chat(self) -> Any:
        """The LangChain chat model for `self.model`."""

    @abstractmethod
    def _call_options(self, max_tokens: int, temperature: float, stop: list[str] | None) -> dict[str, Any]:
        """The keyword arguments of one `stream` call of the chat model."""

    def _client(self) -> Any:
        with self._lock:
            if self._chat is None:
                if not self.model:
                    self.model = self._first_model()
                self._chat = self._make_chat()
            return self._chat

    def _first_model(self) -> str:
        names = self.models()
        if not names:
            raise BackendError(f"the {self.kind} backend at {self.url} {self.no_models}")
        logger.info("using model %r, the first %s at %s", names[0], self.listed, self.url)
        return names[0]

    def _timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout, connect=min(self.timeout, CONNECT_TIMEOUT))

    def _list_timeout(self) -> httpx.Timeout:
        return self._timeout()

    def _headers(self) -> dict[str, str]:
        return {}

    def _secrets(self) -> list[str]:
        """Strings no error message may show."""
        return []

    def _error(self, exc: BaseException) -> BackendError:
        logger.debug("%s backend failure: %s", self.name, type(exc).__name__)
        return to_backend_error(
            exc, kind=self.kind, url=self.url, model=self.model, timeout=self.timeout, secrets=self._secrets()
        )
