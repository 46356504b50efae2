"""Real services the tests and benchmarks start themselves: a Chroma server and a llama.cpp OpenAI-compatible server.

Both bind 127.0.0.1 on a free port, log to a file, and are waited for with a bounded health check (a bound on the
wait, never a timing assertion). Failures raise `ServiceError` with the tail of the service's log. The process
handling is the product's own (`assistant.services`), which also runs the local models.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from assistant.llm.llama_server import LlamaServer
from assistant.services import ManagedProcess, ServiceError, free_port

__all__ = ["CHROMA", "ChromaServer", "LlamaServer", "ServiceError", "free_port"]

CHROMA = Path(sys.executable).parent / "chroma"


class ChromaServer(ManagedProcess):
    """`chroma run` on a data folder."""

    name = "chroma"

    def __init__(self, path: Path, port: int, log: Path) -> None:
        super().__init__(port, log)
        self.path = path
        self.url = f"http://127.0.0.1:{port}"

    def command(self) -> Sequence[str]:
        return [str(CHROMA), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)]

    @property
    def health_url(self) -> str:
        return f"{self.url}/api/v2/heartbeat"
