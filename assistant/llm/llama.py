"""`local` and `local-small`: the bundled GGUF models, each served by its own llama.cpp process.

Generation goes to the model's server (`assistant.llm.llama_server`) through the OpenAI-compatible
client, so a native crash or a hang of the model fails one answer with a `BackendError` (which the chain
turns into an answer drawn from the sources) and never takes the app down. Tokens are counted in-process
with the model's vocabulary alone, which runs no model code.
"""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assistant.errors import BackendError
from assistant.llm.base import ChatBackend, Message
from assistant.llm.llama_server import ServedModel, served_model
from assistant.llm.openai_backend import OpenAIBackend
from assistant.llm.registry import register_backend
from assistant.models import ensure_model
from assistant.settings import LLMSettings

__all__ = ["LlamaBackend"]

logger = logging.getLogger(__name__)

TEMPLATE_TOKENS = 8  # what the chat template adds around each message (Qwen: <|im_start|>role … <|im_end|>)

_VOCABS: dict[str, Any] = {}
_VOCABS_LOCK = threading.Lock()


def _vocab(path: Path) -> Any:
    """A vocabulary-only `llama_cpp.Llama` for `path`, loaded once per process: it tokenizes, nothing more."""
    with _VOCABS_LOCK:
        if str(path) not in _VOCABS:
            try:
                import llama_cpp
            except ImportError as exc:
                raise BackendError(
                    "the local backends need llama-cpp-python: pip install 'paperchat[local]'"
                ) from exc
            try:
                _VOCABS[str(path)] = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
            except (ValueError, RuntimeError, OSError) as exc:
                raise BackendError(
                    f"llama.cpp could not read {path}: {exc}; check the file with "
                    "`python -m assistant.models ensure local local-small --verify`"
                ) from exc
        return _VOCABS[str(path)]


@atexit.register
def _close_vocabs() -> None:
    """Free the vocabularies while the interpreter is intact (llama.cpp's `__del__` fails during teardown)."""
    with _VOCABS_LOCK:
        for vocab in _VOCABS.values():
            try:
                vocab.close()
            except Exception:  # noqa: BLE001 - best effort at exit
                logger.debug("closing a vocabulary failed", exc_info=True)
        _VOCABS.clear()


class LlamaBackend(ChatBackend):
    """A bundled model, assembled by `ensure_model` and served by one llama.cpp process per model.

    Constructing it raises `ModelFileError` when the model's part packages are missing. The server starts
    with the first call (or `load()`); backends of the same model, context window and thread count share it.
    """

    compact_prompts = True  # reads prompts slowly on CPU: gets best sentences within the local budgets

    def __init__(self, name: str, settings: LLMSettings, *, model_path: Path | None = None) -> None:
        self.name = name
        self.context_window = settings.context_window
        self.threads = settings.threads
        self.timeout = settings.timeout
        self.model_path = model_path or ensure_model(name, settings.models_dir)
        self._api: OpenAIBackend | None = None

    def __repr__(self) -> str:
        return f"LlamaBackend(name={self.name!r}, model_path={str(self.model_path)!r})"

    @property
    def served(self) -> ServedModel:
        return served_model(
            self.model_path,
            self.name,
            n_ctx=self.context_window,
            threads=self.threads,
            hang_timeout=self.timeout,
        )

    def load(self) -> ServedModel:
        """Start the model's server now (it otherwise starts with the first call); returns it."""
        self.served.base_url()
        return self.served

    def _client(self) -> OpenAIBackend:
        url = self.served.base_url()
        if self._api is None or self._api.base_url != url:  # a restarted server listens on another port
            # the hang watchdog (no token for `timeout` s) ends a stuck answer; the client waits longer
            self._api = OpenAIBackend(
                LLMSettings(
                    base_url=url,
                    model=self.name,
                    timeout=2 * self.timeout + 10,
                    context_window=self.context_window,
                )
            )
        return self._api

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str] | None = None,
    ) -> Iterator[str]:
        self._check_fits(messages)
        served = self.served
        api = self._client()
        with served.answering() as token_came:
            try:
                pieces = api.stream(messages, max_tokens=max_tokens, temperature=temperature, stop=stop)
                try:
                    for piece in pieces:
                        token_came()
                        yield piece
                finally:
                    close = getattr(pieces, "close", None)
                    if close is not None:
                        close()  # a reader that stopped early ends the request, freeing the model
            except BackendError as exc:
                raise served.explain(exc) from None

    def _check_fits(self, messages: list[Message]) -> None:
        """Refuse a prompt longer than the context window here: the server would end the stream empty."""
        needed = sum(self.count_tokens(m.get("content", "")) + TEMPLATE_TOKENS for m in messages)
        if needed >= self.context_window:
            raise BackendError(
                f"the {self.name} model cannot answer: the prompt takes about {needed:,} tokens, "
                f"more than its context window of {self.context_window:,}"
            )

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        return len(_vocab(self.model_path).tokenize(text.encode("utf-8"), add_bos=False, special=False))


@register_backend("local")
def _local(settings: LLMSettings) -> ChatBackend:
    return LlamaBackend("local", settings)


@register_backend("local-small")
def _local_small(settings: LLMSettings) -> ChatBackend:
    return LlamaBackend("local-small", settings)
