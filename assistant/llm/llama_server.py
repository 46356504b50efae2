"""The bundled GGUF models run out of process: one llama.cpp OpenAI-compatible server per model.

A native crash (llama.cpp's AMX kernels segfault on some Xeons, a bad wheel raises SIGILL) or a hang then
ends that server, never the UI, the CLI chat or another user's session. `ServedModel` starts the server on
first use, restarts it on the next call after it died, and ends it when no token has come for
`hang_timeout` seconds while an answer is in flight. The server ends by itself when its parent process
is gone.

    python -m assistant.llm.llama_server --model FILE --alias local --port 8123 --parent PID
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import logging
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from assistant.errors import BackendError
from assistant.services import ManagedProcess, ServiceError, describe_exit, free_port, watch_parent

__all__ = ["LlamaServer", "ServedModel", "served_model", "close_served_models", "main"]

log = logging.getLogger(__name__)


class LlamaServer(ManagedProcess):
    """llama-cpp-python's OpenAI-compatible server on one GGUF model; `base_url` ends in /v1."""

    name = "llama.cpp server"
    start_timeout = 180.0

    def __init__(
        self, model: Path, alias: str, port: int, log_path: Path, *, n_ctx: int = 4096, threads: int = 2
    ) -> None:
        super().__init__(port, log_path)
        self.model, self.alias, self.n_ctx, self.threads = model, alias, n_ctx, threads
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def command(self) -> Sequence[str]:
        return [
            sys.executable,
            "-m",
            "assistant.llm.llama_server",
            "--model",
            str(self.model),
            "--alias",
            self.alias,
            "--port",
            str(self.port),
            "--n-ctx",
            str(self.n_ctx),
            "--threads",
            str(self.threads),
            "--parent",
            str(os.getpid()),
        ]

    @property
    def health_url(self) -> str:
        return f"{self.base_url}/models"


class ServedModel:
    """One model's server for this process: started on demand, restarted after a crash, ended on a hang."""

    def __init__(self, model: Path, alias: str, *, n_ctx: int, threads: int, hang_timeout: float) -> None:
        self.model, self.alias, self.n_ctx, self.threads = model, alias, n_ctx, threads
        self.hang_timeout = hang_timeout
        self.server: LlamaServer | None = None
        self.starts = 0
        self._lock = threading.Lock()
        self._inflight = 0
        self._last_token = time.monotonic()
        self._hung = False

    def __repr__(self) -> str:
        return f"ServedModel(alias={self.alias!r}, model={str(self.model)!r})"

    def base_url(self) -> str:
        """The running server's /v1 URL; starts (or restarts) the server first when it is not running."""
        with self._lock:
            if self.server is None or self._hung or not self.server.running():
                self._start()
            assert self.server is not None
            return self.server.base_url

    def _start(self) -> None:
        if self.server is not None:
            self.server.kill()
            log.warning(
                "the %s model's server %s; restarting it", self.alias, describe_exit(self.server.returncode())
            )
        log_path = Path(tempfile.gettempdir()) / "paperchat" / f"{self.alias}-{os.getpid()}.log"
        self.server = LlamaServer(
            self.model, self.alias, free_port(), log_path, n_ctx=self.n_ctx, threads=self.threads
        )
        started = time.perf_counter()
        try:
            self.server.start()
        except ServiceError as exc:
            raise BackendError(
                f"the {self.alias} model could not start: {_last_lines(str(exc))} (log: {log_path})"
            ) from None
        self.starts += 1
        self._hung = False
        log.info(
            "%s model served at %s (pid %s) in %.1f s",
            self.alias,
            self.server.base_url,
            self.server.pid,
            time.perf_counter() - started,
        )
        threading.Thread(
            target=self._watch, args=(self.server,), name=f"watch-{self.alias}", daemon=True
        ).start()

    @contextlib.contextmanager
    def answering(self) -> Iterator[Callable[[], None]]:
        """Mark an answer in flight; the yielded function records that a token came."""
        with self._lock:
            if self._inflight == 0:
                self._last_token = time.monotonic()
            self._inflight += 1
        try:
            yield self._token
        finally:
            with self._lock:
                self._inflight -= 1

    def _token(self) -> None:
        self._last_token = time.monotonic()

    def _watch(self, server: LlamaServer) -> None:
        """End `server` when answers are in flight but no token has come for `hang_timeout` seconds."""
        while server.running():
            time.sleep(0.5)
            if self._inflight and time.monotonic() - self._last_token > self.hang_timeout:
                log.error(
                    "the %s model produced nothing for %.0f s; ending its server",
                    self.alias,
                    self.hang_timeout,
                )
                self._hung = True
                server.kill()

    def explain(self, exc: BackendError) -> BackendError:
        """The failure a caller should see for `exc`, raised while talking to the server."""
        server = self.server
        if self._hung:
            return BackendError(
                f"the {self.alias} model stopped answering for {self.hang_timeout:g} s; its "
                "process was ended and restarts with the next question"
            )
        settle = 0.01 if "(HTTP " in str(exc) else 2.0  # the server answered, or the connection broke
        if server is not None and server.returncode(wait=settle) is not None:
            return BackendError(
                f"the {self.alias} model's process {describe_exit(server.returncode())} while "
                f"answering; it restarts with the next question (log: {server.log})"
            )
        return BackendError(f"the {self.alias} model failed: {exc}")

    def close(self) -> None:
        with self._lock:
            if self.server is not None:
                self.server.stop(grace=5.0)
            self.server = None


_SERVED: dict[tuple[str, int, int], ServedModel] = {}
_SERVED_LOCK = threading.Lock()


def served_model(model: Path, alias: str, *, n_ctx: int, threads: int, hang_timeout: float) -> ServedModel:
    """The process-wide `ServedModel` for (file, n_ctx, threads): every backend on it shares one server."""
    key = (str(model), n_ctx, threads)
    with _SERVED_LOCK:
        if key not in _SERVED:
            _SERVED[key] = ServedModel(model, alias, n_ctx=n_ctx, threads=threads, hang_timeout=hang_timeout)
        return _SERVED[key]


@atexit.register
def close_served_models() -> None:
    """Stop every model server this process started."""
    with _SERVED_LOCK:
        for served in _SERVED.values():
            served.close()
        _SERVED.clear()


def _last_lines(text: str, count: int = 4) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[-count:] if line.strip())


# ---------------------------------------------------------------------- the server process itself


def main(argv: Sequence[str] | None = None) -> None:
    """Serve one model on 127.0.0.1 until the parent process is gone."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, type=Path)
    parser.add_argument("--alias", required=True)
    parser.add_argument("--port", required=True, type=int)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--parent", type=int, default=0, help="end when this process is gone")
    args = parser.parse_args(argv)
    if args.parent:
        watch_parent(args.parent)

    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    # interrupt_requests=False: by default a new request cuts the answer being streamed to another user.
    server = ServerSettings(host="127.0.0.1", port=args.port, interrupt_requests=False)
    # No prompt cache: llama-cpp-python's RAM cache counts only the KV state against its capacity, not the
    # logits it keeps beside it (n_batch x 151,936 floats, ~300 MB a prompt), and grew past 17 GB in a
    # benchmark. The prompt shared with the previous call (the constant system prompt) is reused anyway.
    model = ModelSettings(
        model=str(args.model),
        model_alias=args.alias,
        n_ctx=args.n_ctx,
        n_threads=args.threads,
        n_threads_batch=args.threads,
        cache=False,
        verbose=False,
    )
    app = create_app(server_settings=server, model_settings=[model])
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
