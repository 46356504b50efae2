"""`openai`: any OpenAI-compatible chat API (OpenAI, vLLM, llama.cpp server, LM Studio, Ollama's /v1)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from typing import Any

import httpx
from pydantic import SecretStr

from assistant.errors import BackendError
from assistant.llm.base import ChatBackend, Message
from assistant.llm.failures import to_backend_error
from assistant.llm.registry import register_backend
from assistant.settings import LLMSettings

__all__ = ["OpenAIBackend", "resolve_api_key"]

logger = logging.getLogger(__name__)

NO_KEY = "sk-no-key"  # what local servers get when no key is set; they ignore it


def resolve_api_key(settings: LLMSettings) -> str:
    """The API key: PAPERCHAT_LLM__API_KEY (through settings), else OPENAI_API_KEY, else a dummy."""
    return settings.api_key.get_secret_value() or os.environ.get("OPENAI_API_KEY", "") or NO_KEY


class OpenAIBackend(ChatBackend):
    """Streams chat completions from `base_url` through langchain-openai's `ChatOpenAI`.

    With no model configured, the first model the server lists at /v1/models is used.
    """

    name = "openai"

    def __init__(self, settings: LLMSettings, *, max_retries: int = 0) -> None:
        self.base_url = settings.base_url.rstrip("/")
        self.model = settings.model
        self.timeout = settings.timeout
        self.context_window = settings.context_window
        self.max_retries = max_retries
        self._key = SecretStr(resolve_api_key(settings))  # a repr of vars() shows **********
        self._chat: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIBackend(base_url={self.base_url!r}, model={self.model!r})"

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
            for chunk in chat.stream(messages, stop=stop, temperature=temperature, **self._limit(max_tokens)):
                text = chunk.content if isinstance(chunk.content, str) else chunk.text
                if text:
                    yield text
        except BackendError:
            raise
        except Exception as exc:
            raise self._error(exc) from None

    def models(self) -> list[str]:
        """The model ids the server lists at /models."""
        url = f"{self.base_url}/models"
        try:
            response = httpx.get(url, headers=self._headers(), timeout=self._timeout())
            response.raise_for_status()
            return [str(m["id"]) for m in response.json()["data"]]
        except (KeyError, TypeError) as exc:
            raise BackendError(
                f"the API backend at {self.base_url} returned a model list without ids"
            ) from exc
        except Exception as exc:
            raise self._error(exc) from None

    def _client(self) -> Any:
        with self._lock:
            if self._chat is None:
                if not self.model:
                    names = self.models()
                    if not names:
                        raise BackendError(f"the API backend at {self.base_url} serves no models")
                    self.model = names[0]
                    logger.info("using model %r, the first served at %s", self.model, self.base_url)
                self._chat = self._make_chat()
            return self._chat

    def _make_chat(self) -> Any:
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model=self.model,
            base_url=self.base_url,
            api_key=self._key,
            # a plain (connect, read, write, pool) tuple: openai 3 runs on httpx2 and refuses httpx.Timeout
            timeout=(min(self.timeout, 5.0), self.timeout, self.timeout, self.timeout),
            max_retries=self.max_retries,
            streaming=True,
        )

    def _limit(self, max_tokens: int) -> dict[str, Any]:
        # ChatOpenAI renames max_tokens to max_completion_tokens, which OpenAI wants but which
        # llama.cpp-style servers may ignore; elsewhere send the classic max_tokens in the body.
        if httpx.URL(self.base_url).host.endswith("openai.com"):
            return {"max_tokens": max_tokens}
        return {"extra_body": {"max_tokens": max_tokens}}

    def _timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout, connect=min(self.timeout, 5.0))

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key.get_secret_value()}"}

    def _error(self, exc: BaseException) -> BackendError:
        logger.debug("openai backend failure: %s", type(exc).__name__)
        return to_backend_error(
            exc,
            kind="API",
            url=self.base_url,
            model=self.model,
            timeout=self.timeout,
            secrets=[self._key.get_secret_value()],
        )


@register_backend("openai")
def _openai(settings: LLMSettings) -> ChatBackend:
    return OpenAIBackend(settings)
