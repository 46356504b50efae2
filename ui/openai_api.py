"""paperchat as an OpenAI-compatible chat endpoint that keeps its citations: `/v1/models`, `/v1/chat/completions`.

Each request is a conversation of its own: its messages carry the history (earlier user and assistant turns
become `Turn`s, so follow-ups work) and nothing is kept between requests, so one client's conversation can
never reach another's. The answer keeps its `[n]` markers, and the sources travel three ways: OpenAI's
`message.annotations` (a `url_citation` for each marker's span), and Perplexity's top-level `citations`
(urls, the n-th for marker [n]) and `search_results` (title, url, date, venue). A paper without a link of its
own is linked to `/v1/papers/{id}`, which returns its record.

Streaming (`stream: true`) sends the text once its citations are checked, so every marker a client shows has
its source: the first chunk carries `citations` and `search_results`, the content follows, the last chunk
carries them again with the `annotations` in its delta. The models are `paperchat` (the mode read from the
question) and `paperchat-<mode>` for each mode. Oversize or malformed requests get a 4xx with an OpenAI error
body; with `PAPERCHAT_SERVE__API_KEY` set, every request needs it as a bearer token.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route

from assistant.errors import PaperchatError, QuestionError
from assistant.face import MODES, AssistantFace, clean_question
from assistant.types import Answer, Turn
from ui.http_guard import BearerGuard, error_body
from ui.records import MarkerSpan, citation_records, marker_spans, paper_record

__all__ = ["build_openai_app", "v1_routes", "serve_app", "run_serve", "model_ids", "ApiError"]

log = logging.getLogger(__name__)

MODEL = "paperchat"
_PIECE = re.compile(r"\s*\S+")


class ApiError(Exception):
    """A request refused with `status` and an OpenAI error body."""

    def __init__(self, status: int, message: str, code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.param = status, code, param

    def response(self) -> Response:
        body = json.loads(error_body(str(self), code=self.code))
        body["error"]["param"] = self.param
        return JSONResponse(body, status_code=self.status)


class _Part(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: str
    text: str = ""


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[_Part] | None = None

    @property
    def text(self) -> str:
        if isinstance(self.content, list):
            return "\n".join(p.text for p in self.content if p.type in ("text", "input_text"))
        return self.content or ""


class _ChatRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    model: str = MODEL
    messages: list[_Message] = Field(min_length=1)
    stream: bool = False


def model_ids() -> list[str]:
    """`paperchat` (mode read from the question) and `paperchat-<mode>` for every explicit mode."""
    return [MODEL, *(f"{MODEL}-{mode}" for mode in MODES if mode != "auto")]


def _mode_of(model: str) -> str:
    if model == MODEL:
        return "auto"
    mode = model.removeprefix(f"{MODEL}-")
    if model.startswith(f"{MODEL}-") and mode in MODES:
        return mode
    raise ApiError(
        404, f"unknown model {model!r}; choose one of {', '.join(model_ids())}", "model_not_found", "model"
    )


def conversation(messages: Sequence[_Message]) -> tuple[str, list[Turn]]:
    """The question (the last message, the user's) and the turns before it: each user message followed by
    an assistant reply is a turn. System, developer and tool messages are not part of the conversation."""
    talk = [m for m in messages if m.role in ("user", "assistant")]
    if not talk or talk[-1].role != "user" or not talk[-1].text.strip():
        raise ApiError(400, "the last message must be the user's question, and not empty", param="messages")
    history: list[Turn] = []
    asked = ""
    for message in talk[:-1]:
        if message.role == "user":
            asked = message.text
        elif asked:
            history.append(Turn(asked, message.text))
            asked = ""
    return talk[-1].text, history


class ChatEndpoint:
    """The routes' work over one assistant; answers are computed at most `concurrency` at a time."""

    def __init__(self, assistant: AssistantFace) -> None:
        self.assistant = assistant
        self.limits = assistant.settings.serve
        self._answering = threading.BoundedSemaphore(self.limits.concurrency)

    async def models(self, request: Request) -> Response:
        data = [{"id": m, "object": "model", "created": 0, "owned_by": "paperchat"} for m in model_ids()]
        return JSONResponse({"object": "list", "data": data})

    async def paper(self, request: Request) -> Response:
        paper_id = request.path_params["paper_id"]
        paper = await run_in_threadpool(self.assistant.paper, paper_id)
        if paper is None:
            return ApiError(404, f"no paper with id {paper_id!r}", "paper_not_found").response()
        return JSONResponse({**paper_record(paper), "keywords": paper.keywords, "abstract": paper.abstract})

    async def chat(self, request: Request) -> Response:
        try:
            chat = _ChatRequest.model_validate(await self._body(request))
            if len(chat.messages) > self.limits.max_messages:
                raise ApiError(
                    400,
                    f"{len(chat.messages)} messages; at most {self.limits.max_messages} are accepted "
                    "(PAPERCHAT_SERVE__MAX_MESSAGES)",
                    "too_many_messages",
                    "messages",
                )
            mode = _mode_of(chat.model)
            question, history = conversation(chat.messages)
            question = clean_question(question, self.assistant.limits.max_question_chars)
        except ApiError as exc:
            return exc.response()
        except ValidationError as exc:
            return ApiError(400, _validation_message(exc), param=_validation_param(exc)).response()
        except QuestionError as exc:
            return ApiError(400, str(exc), "bad_question", "messages").response()
        reply = Reply(chat.model, _v1_url(request))
        if chat.stream:
            return StreamingResponse(
                self._stream(reply, question, history, mode), media_type="text/event-stream"
            )
        try:
            answer = await run_in_threadpool(self._answer, question, history, mode)
        except PaperchatError as exc:
            return ApiError(503, str(exc), "unavailable").response()
        return JSONResponse(reply.completion(*answer))

    async def _stream(
        self, reply: Reply, question: str, history: list[Turn], mode: str
    ) -> AsyncIterator[str]:
        yield ": paperchat is answering\n\n"  # an SSE comment: clients ignore it, proxies see a live stream
        try:
            answer, backend_error = await run_in_threadpool(self._answer, question, history, mode)
        except PaperchatError as exc:
            yield _sse(json.loads(error_body(str(exc), "server_error", "unavailable")))
            yield "data: [DONE]\n\n"
            return
        for chunk in reply.chunks(answer, backend_error):
            yield _sse(chunk)
        yield "data: [DONE]\n\n"

    def _answer(self, question: str, history: list[Turn], mode: str) -> tuple[Answer, str]:
        """The final answer, and the backend's failure if the answer had to be drawn from the sources."""
        with self._answering:
            error, answer = "", None
            for event in self.assistant.stream(question, history, mode=mode):
                if event.kind == "error":
                    error = event.text
                elif event.kind == "final":
                    answer = event.answer
        assert answer is not None, "the assistant's stream ends with a final answer"
        return answer, error

    async def _body(self, request: Request) -> Any:
        limit = self.limits.max_request_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise ApiError(
                413, f"the request has {int(declared):,} bytes; the limit is {limit:,}", "too_large"
            )
        body = bytearray()
        try:
            async for piece in request.stream():
                body += piece
                if len(body) > limit:
                    raise ApiError(413, f"the request is over the limit of {limit:,} bytes", "too_large")
        except ClientDisconnect:
            raise ApiError(400, "the client closed the request before its body was sent") from None
        try:
            return json.loads(body)
        except ValueError as exc:
            raise ApiError(400, f"the request body is not valid JSON: {exc}", "invalid_json") from None


class Reply:
    """The OpenAI-shaped objects for one answer: a completion, or the chunks of a stream."""

    def __init__(self, model: str, base_url: str) -> None:
        self.model, self.base_url = model, base_url
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())

    def completion(self, answer: Answer, backend_error: str = "") -> dict[str, Any]:
        content, sources = self._content(answer), self._sources(answer)
        message = {"role": "assistant", "content": content, "annotations": url_citations(content, sources)}
        return {
            **self._head("chat.completion"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            **self._perplexity(sources),
            "paperchat": _facts(answer, backend_error),
        }

    def chunks(self, answer: Answer, backend_error: str = "") -> list[dict[str, Any]]:
        content, sources = self._content(answer), self._sources(answer)
        pieces: list[dict[str, Any]] = [{"content": p} for p in _pieces(content)]
        deltas: list[dict[str, Any]] = [
            {"role": "assistant", "content": ""},
            *pieces,
            {"annotations": url_citations(content, sources)},
        ]
        chunks = [self._chunk(d, "stop" if i == len(deltas) - 1 else None) for i, d in enumerate(deltas)]
        chunks[0].update(self._perplexity(sources))
        chunks[-1].update(self._perplexity(sources), paperchat=_facts(answer, backend_error))
        return chunks

    def _head(self, kind: str) -> dict[str, Any]:
        return {"id": self.id, "object": kind, "created": self.created, "model": self.model}

    def _chunk(self, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            **self._head("chat.completion.chunk"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    @staticmethod
    def _content(answer: Answer) -> str:
        """The answer's text with its markers, and the notice (a fallback, a refusal) after it."""
        if not answer.answer:
            return answer.notice
        return f"{answer.answer}\n\n_{answer.notice}_" if answer.notice else answer.answer

    def _sources(self, answer: Answer) -> dict[int, dict[str, Any]]:
        """The cited papers by their number, each with a url (its page, else its record here)."""
        sources = {}
        for record in citation_records(answer):
            url = record["link"] or f"{self.base_url}/papers/{quote(record['paper_id'], safe='')}"
            sources[record["n"]] = {**record, "url": url}
        return sources

    @staticmethod
    def _perplexity(sources: dict[int, dict[str, Any]]) -> dict[str, Any]:
        ordered = [sources[n] for n in sorted(sources)]
        return {
            "citations": [s["url"] for s in ordered],
            "search_results": [
                {
                    "title": s["title"],
                    "url": s["url"],
                    "date": str(s["year"]) if s["year"] else None,
                    "venue": " ".join(str(p) for p in (s["venue"], s["year"]) if p),
                    "status": s["status"],
                    "paper_id": s["paper_id"],
                    "snippet": s["passage"],
                }
                for s in ordered
            ],
        }


def url_citations(content: str, sources: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """A `url_citation` for every number of every marker in `content`, spanning the marker."""
    return [
        _url_citation(span, sources[n])
        for span in marker_spans(content)
        for n in span.numbers
        if n in sources
    ]


def _url_citation(span: MarkerSpan, source: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "url_citation",
        "url_citation": {
            "start_index": span.start,
            "end_index": span.end,
            "title": source["title"],
            "url": source["url"],
        },
    }


def _facts(answer: Answer, backend_error: str) -> dict[str, Any]:
    return {
        "mode": answer.mode,
        "grounded": answer.grounded,
        "standalone_question": answer.standalone_question,
        "notice": answer.notice,
        "backend_error": backend_error,
    }


def _pieces(text: str) -> list[str]:
    """`text` in word-sized pieces whose concatenation is `text`."""
    pieces = _PIECE.findall(text)
    rest = text[sum(map(len, pieces)) :]
    return [*pieces[:-1], pieces[-1] + rest] if pieces else ([rest] if rest else [])


def _v1_url(request: Request) -> str:
    """This endpoint's base url as the client reached it (…/v1), wherever it is mounted."""
    return str(request.url.replace(query="", fragment="")).removesuffix("/chat/completions")


def _sse(data: dict[str, Any]) -> str:
    return f"data: {json.dumps(data, ensure_ascii=False)}\n\n"


def _validation_param(exc: ValidationError) -> str | None:
    first = exc.errors()[0] if exc.errors() else None
    return ".".join(str(p) for p in first["loc"]) if first and first["loc"] else None


def _validation_message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = _validation_param(exc) or "the request"
    return f"invalid request: {where}: {first['msg']}"


def build_openai_app(assistant: AssistantFace) -> Starlette:
    """The endpoint's routes (`/models`, `/chat/completions`, `/papers/{id}`), to be mounted at `/v1`."""
    endpoint = ChatEndpoint(assistant)
    routes = [
        Route("/models", endpoint.models, methods=["GET"]),
        Route("/chat/completions", endpoint.chat, methods=["POST"]),
        Route("/papers/{paper_id:path}", endpoint.paper, methods=["GET"], name="paper"),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        return ApiError(404, f"no such endpoint: {request.method} {request.url.path}", "not_found").response()

    async def not_allowed(request: Request, exc: Exception) -> Response:
        return ApiError(405, f"{request.method} is not allowed on {request.url.path}").response()

    return Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed})


def v1_routes(assistant: AssistantFace, *, login: bool = False) -> list[BaseRoute]:
    """`/v1`, behind the API key when `PAPERCHAT_SERVE__API_KEY` is set: for `paperchat serve` and the UI.
    Beside a UI with a login (`login`) and no key, nothing: `/v1` would bypass the login."""
    key = assistant.settings.serve.api_key.get_secret_value()
    if login and not key:
        log.warning(
            "the UI has a login and PAPERCHAT_SERVE__API_KEY is not set: /v1 is not served beside it "
            "(it would bypass the login); set the key to serve it"
        )
        return []
    app = build_openai_app(assistant)
    return [Mount("/v1", app=BearerGuard(app, key) if key else app)]


def serve_app(assistant: AssistantFace) -> Starlette:
    """The app `paperchat serve` runs: `/v1` alone."""
    return Starlette(routes=v1_routes(assistant))


def run_serve(assistant: AssistantFace, host: str = "", port: int = 0) -> None:
    """Serve `/v1` on host:port (default: the settings', 127.0.0.1:8800) until interrupted."""
    import uvicorn

    serve = assistant.settings.serve
    host, port = host or serve.host, port or serve.port
    note = " (API key required)" if serve.api_key.get_secret_value() else ""
    log.warning("paperchat OpenAI-compatible endpoint on http://%s:%d/v1%s", host, port, note)
    uvicorn.run(serve_app(assistant), host=host, port=port, log_level="warning")
