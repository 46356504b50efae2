"""Which language model answers, chosen at run time: `BackendCache` builds each other backend once and keeps
the last few; `key_note` says whether an API key is configured, never the key."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from assistant.llm.base import ChatBackend
from assistant.llm.openai_backend import NO_KEY, resolve_api_key
from assistant.llm.registry import get_backend
from assistant.settings import LLMSettings

__all__ = ["BackendCache", "key_note", "KEEP"]

KEEP = 3  # backends kept built; a local model holds its weights in memory
T = TypeVar("T")


def key_note(settings: LLMSettings) -> str:
    """Whether an API key is configured, without ever showing it."""
    if resolve_api_key(settings) != NO_KEY:
        return "API key: key set from environment"
    return "API key: no key (set PAPERCHAT_LLM__API_KEY or OPENAI_API_KEY before starting)"


class BackendCache(Generic[T]):
    """The `default` assistant, or a copy answering with another (backend, model, base URL): each backend
    built once, the last `KEEP` kept. `rebuild` makes the copy from a built backend."""

    def __init__(
        self, default: T, default_name: str, settings: LLMSettings, rebuild: Callable[[ChatBackend], T]
    ) -> None:
        self.default, self.default_name, self.settings, self.rebuild = (
            default,
            default_name,
            settings,
            rebuild,
        )
        self._built: OrderedDict[tuple[str, str, str], T] = OrderedDict()
        self._lock = threading.Lock()

    def is_default(self, name: str, model: str, base_url: str) -> bool:
        llm = self.settings
        return (
            (name or self.default_name) == self.default_name
            and (model or llm.model) == llm.model
            and (base_url or llm.base_url) == llm.base_url
        )

    def get(self, name: str, model: str = "", base_url: str = "") -> T:
        """The assistant answering with backend `name` (raises `ConfigError` for an unknown name)."""
        if self.is_default(name, model, base_url):
            return self.default
        key = (name, model.strip(), base_url.strip())
        with self._lock:
            if key not in self._built:
                update = {"backend": name}
                if key[1]:
                    update["model"] = key[1]
                if key[2]:
                    update["base_url"] = key[2]
                self._built[key] = self.rebuild(get_backend(name, self.settings.model_copy(update=update)))
                while len(self._built) > KEEP:
                    self._built.popitem(last=False)
            self._built.move_to_end(key)
            return self._built[key]
