"""`ollama`: a native Ollama server, through langchain-ollama's `ChatOllama`."""

from __future__ import annotations

from typing import Any

import httpx

from assistant.llm.base import ChatBackend
from assistant.llm.http_base import CONNECT_TIMEOUT, HTTPBackend
from assistant.llm.registry import register_backend
from assistant.settings import LLMSettings

__all__ = ["OllamaBackend"]


class OllamaBackend(HTTPBackend):
    """Streams chat replies from an Ollama server; with no model set, the first one it has pulled."""

    name = "ollama"
    kind = "Ollama"
    models_path = "/api/tags"
    models_key = "models"
    model_field = "name"
    no_models = "has no models; run `ollama pull`"
    listed = "pulled"

    def __init__(self, settings: LLMSettings) -> None:
        super().__init__(settings.ollama_url, settings)

    def __repr__(self) -> str:
        return f"OllamaBackend(url={self.url!r}, model={self.model!r})"

    def _make_chat(self) -> Any:
        from langchain_ollama import ChatOllama

        return ChatOllama(model=self.model, base_url=self.url, client_kwargs={"timeout": self._timeout()})

    def _call_options(self, max_tokens: int, temperature: float, stop: list[str] | None) -> dict[str, Any]:
        options: dict[str, Any] = {
            "num_predict": max_tokens,
            "temperature": temperature,
            "num_ctx": self.context_window,
        }
        if stop:
            options["stop"] = stop
        return {"options": options}

    def _list_timeout(self) -> httpx.Timeout:
        return httpx.Timeout(self.timeout, connect=CONNECT_TIMEOUT)  # the listing waits the full 5 s


@register_backend("ollama")
def _ollama(settings: LLMSettings) -> ChatBackend:
    return OllamaBackend(settings)
