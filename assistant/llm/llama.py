"""`local` and `local-small`: the bundled GGUF models, run in-process by llama-cpp-python."""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assistant.errors import BackendError
from assistant.llm.base import ChatBackend, Message
from assistant.llm.registry import register_backend
from assistant.models import ensure_model
from assistant.settings import LLMSettings

__all__ = ["LlamaBackend", "load_llama"]

logger = logging.getLogger(__name__)

PROMPT_CACHE_BYTES = 512 * 1024 * 1024  # KV states of recent prompts, for a faster first token

# One loaded model per (file, n_ctx, n_threads) per process, each with its own generation lock.
_MODELS: dict[tuple[str, int, int], tuple[Any, threading.Lock]] = {}
_MODELS_LOCK = threading.Lock()


def load_llama(path: Path, *, n_ctx: int, n_threads: int) -> tuple[Any, threading.Lock]:
    """The process-wide `llama_cpp.Llama` for `path` (loaded on first use) and its generation lock."""
    key = (str(path), n_ctx, n_threads)
    with _MODELS_LOCK:
        if key not in _MODELS:
            _MODELS[key] = (_load(path, n_ctx=n_ctx, n_threads=n_threads), threading.Lock())
        return _MODELS[key]


@atexit.register
def close_models() -> None:
    """Free every loaded model while the interpreter is intact (llama.cpp's `__del__` fails during teardown)."""
    with _MODELS_LOCK:
        for llm, _ in _MODELS.values():
            try:
                llm.close()
            except Exception:  # noqa: BLE001 - best effort at exit
                logger.debug("closing a model failed", exc_info=True)
        _MODELS.clear()


def _load(path: Path, *, n_ctx: int, n_threads: int) -> Any:
    try:
        import llama_cpp
    except ImportError as exc:
        raise BackendError(
            "the local backends need llama-cpp-python: pip install 'paperchat[local]'"
        ) from exc
    started = time.perf_counter()
    try:
        llm = llama_cpp.Llama(
            model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads, verbose=False
        )
    except (ValueError, RuntimeError, OSError) as exc:
        raise BackendError(
            f"llama.cpp could not load {path}: {exc}; check the file with "
            "`python -m assistant.models ensure local local-small --verify`"
        ) from exc
    llm.set_cache(llama_cpp.LlamaRAMCache(capacity_bytes=PROMPT_CACHE_BYTES))
    logger.info(
        "loaded %s in %.1f s (n_ctx=%d, threads=%d)",
        path.name,
        time.perf_counter() - started,
        n_ctx,
        n_threads,
    )
    return llm


class LlamaBackend(ChatBackend):
    """A bundled model, assembled by `ensure_model` and loaded once per process on first use.

    Constructing it raises `ModelFileError` when the model's part packages are missing. Calls are
    serialised by a per-model lock, held while a stream is being read: finish or close a stream before
    starting another one in the same thread.
    """

    def __init__(self, name: str, settings: LLMSettings, *, model_path: Path | None = None) -> None:
        self.name = name
        self.context_window = settings.context_window
        self.threads = settings.threads
        self.model_path = model_path or ensure_model(name, settings.models_dir)

    def __repr__(self) -> str:
        return f"LlamaBackend(name={self.name!r}, model_path={str(self.model_path)!r})"

    def load(self) -> Any:
        """Load the model now (it is otherwise loaded by the first call); returns the `Llama`."""
        return self._model()[0]

    def _model(self) -> tuple[Any, threading.Lock]:
        return load_llama(self.model_path, n_ctx=self.context_window, n_threads=self.threads)

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None = None,
    ) -> Iterator[str]:
        llm, lock = self._model()
        with lock:
            chunks: Any = None
            try:
                chunks = llm.create_chat_completion(
                    messages=messages,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    stop=stop or None,
                    stream=True,
                )
                for chunk in chunks:
                    text = chunk["choices"][0]["delta"].get("content")
                    if text:
                        yield text
            except ValueError as exc:
                raise BackendError(f"the {self.name} model cannot answer: {exc}") from exc
            except Exception as exc:  # any failure must leave the conversation alive
                raise BackendError(f"the {self.name} model failed: {type(exc).__name__}: {exc}") from exc
            finally:
                if hasattr(chunks, "close"):
                    chunks.close()  # a reader that stopped early leaves the model ready for the next call

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        llm, _ = self._model()
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))


@register_backend("local")
def _local(settings: LLMSettings) -> ChatBackend:
    return LlamaBackend("local", settings)


@register_backend("local-small")
def _local_small(settings: LLMSettings) -> ChatBackend:
    return LlamaBackend("local-small", settings)
