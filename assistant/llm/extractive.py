"""`extractive`: a marker backend meaning "answer from the sources alone, without a language model"."""

from __future__ import annotations

from collections.abc import Iterator

from assistant.errors import BackendError
from assistant.llm.base import ChatBackend, Message
from assistant.llm.registry import register_backend
from assistant.settings import LLMSettings

__all__ = ["ExtractiveBackend"]


class ExtractiveBackend(ChatBackend):
    """Generates nothing; the answering chain sees `generates = False` and quotes the sources instead."""

    name = "extractive"
    generates = False

    def __init__(self, context_window: int = ChatBackend.context_window) -> None:
        self.context_window = context_window

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None = None,
    ) -> Iterator[str]:
        raise BackendError("the extractive backend does not generate text")


@register_backend("extractive")
def _extractive(settings: LLMSettings) -> ChatBackend:
    return ExtractiveBackend(context_window=settings.context_window)
