"""Chat backends chosen by name: `get_backend(settings.backend, settings)`."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from assistant.errors import ConfigError
from assistant.llm.base import ChatBackend
from assistant.settings import LLMSettings

__all__ = ["register_backend", "backend_names", "get_backend", "BackendFactory"]

BackendFactory = Callable[[LLMSettings], ChatBackend]

_FACTORIES: dict[str, BackendFactory] = {}

# Modules whose import registers the built-in backends; imported lazily so that, say, the openai backend
# never pays for loading llama_cpp.
_BUILTIN_MODULES = {
    "local": "assistant.llm.llama",
    "local-small": "assistant.llm.llama",
    "openai": "assistant.llm.openai_backend",
    "ollama": "assistant.llm.ollama_backend",
    "extractive": "assistant.llm.extractive",
    "scripted": "assistant.llm.fake",
}


def register_backend(name: str) -> Callable[[BackendFactory], BackendFactory]:
    """Register a factory `(settings) -> ChatBackend` (a class or a function) under `name`."""

    def decorator(factory: BackendFactory) -> BackendFactory:
        _FACTORIES[name] = factory
        return factory

    return decorator


def backend_names() -> list[str]:
    return sorted(set(_FACTORIES) | set(_BUILTIN_MODULES))


def get_backend(name: str, settings: LLMSettings) -> ChatBackend:
    """The backend registered as `name`, built from `settings`. Unknown names raise `ConfigError`."""
    if name not in _FACTORIES and name in _BUILTIN_MODULES:
        importlib.import_module(_BUILTIN_MODULES[name])
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigError(f"unknown LLM backend {name!r}; choose one of: {', '.join(backend_names())}")
    return factory(settings)
