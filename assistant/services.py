"""Child processes paperchat runs beside itself: start on a free port, wait until healthy, stop.

The local models run in such a process (a llama.cpp OpenAI-compatible server), so that a native crash or a
hang of the model ends that process, not the UI or the CLI. The tests and benchmarks start their Chroma
server the same way.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import httpx

__all__ = ["ServiceError", "ManagedProcess", "free_port", "describe_exit", "watch_parent"]

log = logging.getLogger(__name__)


class ServiceError(RuntimeError):
    """A service exited or did not answer its health check in time."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def describe_exit(returncode: int | None) -> str:
    """'exited with code 1', 'was killed by SIGSEGV', or 'is running'."""
    if returncode is None:
        return "is running"
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with code {returncode}"


def watch_parent(parent_pid: int, interval: float = 1.0) -> None:
    """In a child: end this process as soon as `parent_pid` is gone (a daemon thread polls for it)."""

    def poll() -> None:
        while os.getppid() == parent_pid:
            time.sleep(interval)
        os._exit(0)

    threading.Thread(target=poll, name="watch-parent", daemon=True).start()


def _tail(log_path: Path, limit: int = 2000) -> str:
    return log_path.read_text(errors="replace")[-limit:] if log_path.exists() else "(no log)"


class ManagedProcess:
    """A subprocess serving HTTP on `port`; `start()` returns once `health_url` answers 200.

    Subclasses give `command()` and `health_url`. The process logs to `log`; its tail is quoted by every
    `ServiceError`, so a crash at start-up says why.
    """

    name = "service"
    start_timeout = 90.0

    def __init__(self, port: int, log_path: Path) -> None:
        self.port, self.log = port, log_path
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> Sequence[str]:
        raise NotImplementedError

    @property
    def health_url(self) -> str:
        raise NotImplementedError

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def running(self) -> bool:
        return self.process is not None and self.returncode() is None

    def returncode(self, wait: float = 0.01) -> int | None:
        """The exit status, or None while the process runs. Waits up to `wait` seconds: a bare `poll()`
        answers None while another thread holds the process's wait lock, even for a process that ended."""
        if self.process is None:
            return None
        try:
            return self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def log_tail(self, limit: int = 2000) -> str:
        return _tail(self.log, limit)

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                list(self.command()),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
            )
        try:
            self._wait_until_healthy()
        except ServiceError:
            self.stop()
            raise

    def _wait_until_healthy(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServiceError(
                    f"{self.name} {describe_exit(self.process.returncode)} while starting:\n{self.log_tail()}"
                )
            try:
                if httpx.get(self.health_url, timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise ServiceError(
            f"{self.name} did not answer {self.health_url} within {self.start_timeout:g} s:\n"
            f"{self.log_tail()}"
        )

    def kill(self) -> None:
        """End the process at once (a hung native process does not answer SIGTERM)."""
        if self.running():
            assert self.process is not None
            self.process.kill()
            self.process.wait()

    def stop(self, grace: float = 30.0) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def __enter__(self) -> ManagedProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
