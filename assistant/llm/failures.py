"""Turn what an HTTP backend raised (openai, httpx, ollama, json) into one clear `BackendError`."""

from __future__ import annotations

import errno
import json
import socket
from collections.abc import Iterable, Iterator

import httpx

from assistant.errors import BackendError

__all__ = ["to_backend_error", "redact"]


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every non-trivial secret replaced by ***."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def to_backend_error(
    exc: BaseException,
    *,
    kind: str,
    url: str,
    model: str = "",
    timeout: float | None = None,
    secrets: Iterable[str] = (),
) -> BackendError:
    """A user-facing `BackendError` for `exc`, naming the backend and its URL, never a secret."""
    message = _describe(exc, kind=kind, url=url, model=model, timeout=timeout)
    return BackendError(redact(message, list(secrets)))


def _describe(exc: BaseException, *, kind: str, url: str, model: str, timeout: float | None) -> str:
    where = f"the {kind} backend at {url}"
    chain = list(_causes(exc))
    if any(isinstance(e, httpx.TimeoutException | TimeoutError | socket.timeout) for e in chain) or any(
        type(e).__name__ == "APITimeoutError" for e in chain
    ):
        within = f" within {timeout:g} s" if timeout else ""
        return f"{where} did not answer{within} (timeout); is it overloaded, or is the timeout too short?"
    if any(_is_refused(e) for e in chain):
        return f"cannot reach {where}: connection refused — is the server running?"
    status = _status(chain)
    if status is not None:
        return _describe_status(status, chain, where=where, model=model)
    if any(isinstance(e, json.JSONDecodeError | UnicodeDecodeError) for e in chain) or any(
        type(e).__name__ == "APIResponseValidationError" for e in chain
    ):
        return f"{where} returned a response that is not valid JSON; is the URL an OpenAI-compatible API?"
    if any("no generation chunks" in str(e).lower() for e in chain):  # langchain: an empty or non-SSE body
        return f"{where} returned no reply in the expected format; is the URL an OpenAI-compatible API?"
    if any(isinstance(e, httpx.TransportError | ConnectionError | OSError) for e in chain) or any(
        type(e).__name__ == "APIConnectionError" for e in chain
    ):
        return f"cannot reach {where}: connection failed ({_short(chain[-1])})"
    return f"{where} failed: {type(exc).__name__}: {_short(exc)}"


def _describe_status(status: int, chain: list[BaseException], *, where: str, model: str) -> str:
    if status in (401, 403):
        return (
            f"{where} refused the API key (HTTP {status}); set PAPERCHAT_LLM__API_KEY "
            "(or OPENAI_API_KEY) to a valid key"
        )
    if status == 404:
        what = f"model {model!r}" if model else "the requested model"
        return (
            f"{where} does not know {what} or the path (HTTP 404); check PAPERCHAT_LLM__MODEL and "
            "that the base URL ends in /v1"
        )
    if status == 429:
        return f"{where} is rate-limiting requests (HTTP 429); try again later"
    detail = _short(chain[0])
    if status >= 500:
        return f"{where} had a server error (HTTP {status}): {detail}"
    return f"{where} rejected the request (HTTP {status}): {detail}"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _is_refused(exc: BaseException) -> bool:
    if isinstance(exc, ConnectionRefusedError):
        return True
    if isinstance(exc, OSError) and exc.errno == errno.ECONNREFUSED:
        return True
    return "connection refused" in str(exc).lower() or "errno 111" in str(exc).lower()


def _status(chain: list[BaseException]) -> int | None:
    for e in chain:
        if isinstance(e, httpx.HTTPStatusError):
            return e.response.status_code
        code = getattr(e, "status_code", None)
        if isinstance(code, int) and code >= 400:
            return code
    return None


def _short(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"
