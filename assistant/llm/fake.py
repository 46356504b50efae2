"""`scripted`: a deterministic fake backend for tests of the chains' logic."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from assistant.errors import BackendError
from assistant.llm.base import ChatBackend, Message
from assistant.llm.registry import register_backend
from assistant.settings import LLMSettings

__all__ = ["ScriptedBackend"]

Script = Sequence[str] | Callable[[list[Message]], str]


class ScriptedBackend(ChatBackend):
    """Replies from a list, in order (or from `reply(messages)`), streamed in small pieces.

    Every call's messages are kept in `received` and its arguments in `calls`, so tests can check the
    prompts a chain sent. The reply is taken when `stream` is called, not when it is first iterated.
    """

    name = "scripted"

    def __init__(
        self, replies: Script = (), *, piece: int = 4, context_window: int = ChatBackend.context_window
    ) -> None:
        self._reply = replies if callable(replies) else None
        self._replies = [] if callable(replies) else list(replies)
        self.piece = piece
        self.context_window = context_window
        self.received: list[list[Message]] = []
        self.calls: list[dict[str, Any]] = []

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None = None,
    ) -> Iterator[str]:
        copied = [dict(m) for m in messages]
        self.received.append(copied)
        self.calls.append({"max_tokens": max_tokens, "temperature": temperature, "stop": stop})
        text = self._next_reply(copied)
        for s in stop or []:
            if s and s in text:
                text = text[: text.index(s)]
        return iter([text[i : i + self.piece] for i in range(0, len(text), self.piece)])

    def _next_reply(self, messages: list[Message]) -> str:
        if self._reply is not None:
            return self._reply(messages)
        if not self._replies:
            raise BackendError("the scripted backend has no replies left")
        return self._replies.pop(0)


@register_backend("scripted")
def _scripted(settings: LLMSettings) -> ChatBackend:
    return ScriptedBackend(lambda messages: "(scripted reply)", context_window=settings.context_window)
