"""Pytest fixtures for the language-model tests: the bundled small model and a real OpenAI-compatible server.

Loaded by the conftest with `pytest_plugins = ["tests.fixtures_llm"]`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.models import ensure_model
from assistant.settings import Settings
from tests.services import LlamaServer, ServiceError, free_port


@pytest.fixture(scope="session")
def small_model_path() -> Path:
    """The assembled, verified `local-small` GGUF (assembled from its part packages on first use)."""
    return ensure_model("local-small", Settings().llm.models_dir)


@pytest.fixture(scope="session")
def openai_server(small_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real llama.cpp OpenAI-compatible server on the small model; yields its base URL (…/v1)."""
    server = LlamaServer(
        small_model_path, "local-small", free_port(), tmp_path_factory.mktemp("openai_server") / "server.log"
    )
    try:
        server.start()
    except ServiceError as exc:
        pytest.fail(str(exc))
    try:
        yield server.base_url
    finally:
        server.stop()
