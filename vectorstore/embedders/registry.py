"""Embedders chosen by name: `get_embedder(settings.store.embedder)`, one instance per name and process."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TypeVar

from vectorstore.embedders.base import Embedder
from vectorstore.errors import ConfigError

__all__ = ["register_embedder", "embedder_names", "get_embedder", "EmbedderFactory"]

EmbedderFactory = Callable[[], Embedder]
_F = TypeVar("_F", bound=EmbedderFactory)

_FACTORIES: dict[str, EmbedderFactory] = {}
_INSTANCES: dict[str, Embedder] = {}

# Modules whose import registers the built-in embedders; imported lazily so that, say, the hash embedder
# never pays for loading torch.
_BUILTIN_MODULES = {
    "minilm": "vectorstore.embedders.minilm",
    "minilm-onnx": "vectorstore.embedders.onnx_minilm",
    "hash": "vectorstore.embedders.hashing",
}


def register_embedder(name: str) -> Callable[[_F], _F]:
    """Register a factory `() -> Embedder` (a class or a function) under `name`."""

    def decorator(factory: _F) -> _F:
        _FACTORIES[name] = factory
        return factory

    return decorator


def embedder_names() -> list[str]:
    return sorted(set(_FACTORIES) | set(_BUILTIN_MODULES))


def get_embedder(name: str) -> Embedder:
    """The embedder registered as `name`, created once per process. Unknown names raise `ConfigError`."""
    if name not in _INSTANCES:
        _INSTANCES[name] = _factory(name)()
    return _INSTANCES[name]


def _factory(name: str) -> EmbedderFactory:
    if name not in _FACTORIES and name in _BUILTIN_MODULES:
        importlib.import_module(_BUILTIN_MODULES[name])
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigError(f"unknown embedder {name!r}; choose one of: {', '.join(embedder_names())}")
    return factory
