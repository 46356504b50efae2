"""The one interface every chat backend implements: stream a reply to a list of messages."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from typing import Any

from assistant.settings import LLMSettings

__all__ = ["ChatBackend", "Message"]

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}


class ChatBackend(ABC):
    """A language model that answers chat messages. Backends implement `stream`; the rest is built on it."""

    name: str = "base"
    context_window: int = LLMSettings().context_window  # the settings' default, until a backend sets its own
    generates: bool = True  # False for backends that only mark "answer without a model"
    # True for models that read prompts slowly (the bundled CPU models): they get the question's best
    # sentences rather than whole abstracts, within the `local_*` budgets of `ChainSettings`
    compact_prompts: bool = False

    @abstractmethod
    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None = None,
    ) -> Iterator[str]:
        """Yield the reply in pieces. Failures raise `BackendError` with a user-facing message."""

    def complete(self, messages: list[Message], **kwargs: Any) -> str:
        """The whole reply as one string."""
        return "".join(self.stream(messages, **kwargs))

    def count_tokens(self, text: str) -> int:
        """A cheap estimate (about 3.5 characters a token); backends with a tokenizer count exactly."""
        return max(1, round(len(text) / 3.5)) if text else 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
