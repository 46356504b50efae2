"""Real services the tests and benchmarks start themselves: a Chroma server and a llama.cpp OpenAI-compatible server.

Both bind 127.0.0.1 on a free port, log to a file, and are waited for with a bounded health check (a bound on the
wait, never a timing assertion). Failures raise `ServiceError` with the tail of the service's log.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

CHROMA = Path(sys.executable).parent / "chroma"


class ServiceError(RuntimeError):
    """A service exited or did not answer its health check in time."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-2000:] if log.exists() else "(no log)"


def wait_until_healthy(process: subprocess.Popen, health_url: str, log: Path, timeout: float, name: str) -> None:
    """Poll `health_url` until it answers 200; raise if the process exits or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServiceError(f"{name} exited with {process.returncode}:\n{_tail(log)}")
        try:
            if httpx.get(health_url, timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise ServiceError(f"{name} did not answer {health_url} within {timeout:g} s:\n{_tail(log)}")


def stop_process(process: subprocess.Popen | None, grace: float = 30.0) -> None:
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Service:
    """A subprocess on a fixed port, which may be stopped and started again (same folder, same port)."""

    name = "service"
    start_timeout = 90.0

    def __init__(self, port: int, log: Path) -> None:
        self.port, self.log = port, log
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    @property
    def health_url(self) -> str:
        raise NotImplementedError

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"})
        try:
            wait_until_healthy(self.process, self.health_url, self.log, self.start_timeout, self.name)
        except ServiceError:
            self.stop()
            raise

    def stop(self) -> None:
        stop_process(self.process)
        self.process = None

    def __enter__(self) -> Service:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ChromaServer(Service):
    """`chroma run` on a data folder."""

    name = "chroma"

    def __init__(self, path: Path, port: int, log: Path) -> None:
        super().__init__(port, log)
        self.path = path
        self.url = f"http://127.0.0.1:{port}"

    def command(self) -> list[str]:
        return [str(CHROMA), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)]

    @property
    def health_url(self) -> str:
        return f"{self.url}/api/v2/heartbeat"


class LlamaServer(Service):
    """llama-cpp-python's OpenAI-compatible server on a GGUF model; `base_url` ends in /v1."""

    name = "llama_cpp.server"
    start_timeout = 120.0

    def __init__(self, model: Path, alias: str, port: int, log: Path, n_ctx: int = 4096, threads: int = 2) -> None:
        super().__init__(port, log)
        self.model, self.alias, self.n_ctx, self.threads = model, alias, n_ctx, threads
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", self.alias,
                "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx),
                "--n_threads", str(self.threads)]

    @property
    def health_url(self) -> str:
        return f"{self.base_url}/models"
