"""`openai`: any OpenAI-compatible chat API (OpenAI, vLLM, llama.cpp server, LM Studio, Ollama's /v1)."""

from __future__ import annotations

import os
from typing import Any

import httpx
from pydantic import SecretStr

from assistant.llm.base import ChatBackend
from assistant.llm.http_base import CONNECT_TIMEOUT, HTTPBackend
from assistant.llm.registry import register_backend
from assistant.settings import LLMSettings

__all__ = ["OpenAIBackend", "resolve_api_key"]

NO_KEY = "sk-no-key"  # what local servers get when no key is set; they ignore it


def resolve_api_key(settings: LLMSettings) -> str:
    """The API key: PAPERCHAT_LLM__API_KEY (through settings), else OPENAI_API_KEY, else a dummy."""
    return settings.api_key.get_secret_value() or os.environ.get("OPENAI_API_KEY", "") or NO_KEY


class OpenAIBackend(HTTPBackend):
    """Streams chat completions from `base_url` through langchain-openai's `ChatOpenAI`.

    With no model configured, the first model the server lists at /v1/models is used.
    """

    name = "openai"
    kind = "API"

    def __init__(self, settings: LLMSettings, *, max_retries: int = 0) -> None:
        super().__init__(settings.base_url, settings)
        self.max_retries = max_retries
        self._key = SecretStr(resolve_api_key(settings))  # a repr of vars() shows **********

    @property
    def base_url(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"OpenAIBackend(base_url={self.base_url!r}, model={self.model!r})"

    def _make_chat(self) -> Any:
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model=self.model,
            base_url=self.base_url,
            api_key=self._key,
            # a plain (connect, read, write, pool) tuple: openai 3 runs on httpx2 and refuses httpx.Timeout
            timeout=(min(self.timeout, CONNECT_TIMEOUT), self.timeout, self.timeout, self.timeout),
            max_retries=self.max_retries,
            streaming=True,
        )

    def _call_options(self, max_tokens: int, temperature: float, stop: list[str] | None) -> dict[str, Any]:
        return {"stop": stop, "temperature": temperature, **self._limit(max_tokens)}

    def _limit(self, max_tokens: int) -> dict[str, Any]:
        # ChatOpenAI renames max_tokens to max_completion_tokens, which OpenAI wants but which
        # llama.cpp-style servers may ignore; elsewhere send the classic max_tokens in the body.
        if httpx.URL(self.base_url).host.endswith("openai.com"):
            return {"max_tokens": max_tokens}
        return {"extra_body": {"max_tokens": max_tokens}}

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._key.get_secret_value()}"}

    def _secrets(self) -> list[str]:
        return [self._key.get_secret_value()]


@register_backend("openai")
def _openai(settings: LLMSettings) -> ChatBackend:
    return OpenAIBackend(settings)
