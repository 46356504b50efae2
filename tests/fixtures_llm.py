"""Pytest fixtures for the language-model tests: the bundled small model and a real OpenAI-compatible server.

Loaded by the conftest with `pytest_plugins = ["tests.fixtures_llm"]`.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from assistant.models import ensure_model
from assistant.settings import Settings

SERVER_START_TIMEOUT = 120.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def small_model_path() -> Path:
    """The assembled, verified `local-small` GGUF (assembled from its part packages on first use)."""
    return ensure_model("local-small", Settings().llm.models_dir)


@pytest.fixture(scope="session")
def openai_server(small_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real llama.cpp OpenAI-compatible server on the small model; yields its base URL (…/v1)."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("openai_server") / "server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(small_model_path),
        "--model_alias",
        "local-small",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        "2",
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_serving(process, base_url, log_path)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def _wait_until_serving(process: subprocess.Popen[bytes], base_url: str, log_path: Path) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log_path.read_text(errors="replace")[-2000:]
            pytest.fail(f"llama_cpp.server exited with {process.returncode}:\n{tail}")
        try:
            if httpx.get(f"{base_url}/models", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    tail = log_path.read_text(errors="replace")[-2000:]
    pytest.fail(
        f"llama_cpp.server did not serve {base_url}/models within {SERVER_START_TIMEOUT:g} s:\n{tail}"
    )
