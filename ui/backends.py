"""The language model a session picked in the UI: the ready assistant, or a copy of it with another backend."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from assistant.llm.registry import get_backend
from assistant.settings import LLMSettings

if TYPE_CHECKING:
    from assistant.chain import Assistant

__all__ = ["BackendChooser", "key_note"]

KEEP = 3  # backends kept built; a local model holds its weights in memory


def key_note(settings: LLMSettings) -> str:
    """Whether an API key is configured, without ever showing it."""
    from assistant.llm.openai_backend import NO_KEY, resolve_api_key

    if resolve_api_key(settings) != NO_KEY:
        return "API key: key set from environment"
    return "API key: no key (set PAPERCHAT_LLM__API_KEY or OPENAI_API_KEY before starting)"


class BackendChooser:
    """Hands out the assistant for a (backend, model, base URL) choice, building each backend once."""

    def __init__(self, assistant: Assistant) -> None:
        self.base = assistant
        self._built: OrderedDict[tuple[str, str, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def _settings(self) -> LLMSettings:
        return self.base.settings.llm

    def is_default(self, name: str, model: str, base_url: str) -> bool:
        llm = self._settings()
        return (
            (name or self.base.llm.name) == self.base.llm.name
            and (model or llm.model) == llm.model
            and (base_url or llm.base_url) == llm.base_url
        )

    def assistant_for(self, name: str, model: str = "", base_url: str = "") -> Assistant:
        """The assistant answering with backend `name` (raises `ConfigError` for an unknown name)."""
        if self.is_default(name, model, base_url):
            return self.base
        key = (name, model.strip(), base_url.strip())
        with self._lock:
            if key not in self._built:
                update = {"backend": name}
                if key[1]:
                    update["model"] = key[1]
                if key[2]:
                    update["base_url"] = key[2]
                llm = get_backend(name, self._settings().model_copy(update=update))
                self._built[key] = self.base.with_llm(llm)
                while len(self._built) > KEEP:
                    self._built.popitem(last=False)
            self._built.move_to_end(key)
            return self._built[key]
