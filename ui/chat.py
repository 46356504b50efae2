"""One chat turn in the UI: stream the assistant's events into the chat, the status lines and the panel."""

from __future__ import annotations

import dataclasses
import logging
import tempfile
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

import gradio as gr

from assistant.errors import PaperchatError, QuestionError
from assistant.face import AssistantFace, clean_question
from assistant.types import Answer, Filters
from ui.conversation import Conversation, Exchange, write_export
from ui.render import chat_markdown, sources_html, status_markdown

__all__ = ["Options", "answer_turn", "messages", "source_records", "to_filters"]

log = logging.getLogger(__name__)
SHOWN_CHARS = 500  # of a refused, over-long question, in the chat


@dataclasses.dataclass
class Options:
    """The controls of one turn, as the UI sends them (empty strings mean "not set")."""

    mode: str = "auto"
    venue: str | None = ""
    year: Any = ""
    status: str | None = ""
    backend: str = ""
    model: str | None = ""
    base_url: str | None = ""
    k: float | None = None


def to_filters(venue: str | None, year: Any, status: str | None) -> Filters | None:
    filters = Filters(venue=venue or None, year=int(year) if year else None, status=status or None)
    return None if filters.is_empty() else filters


def _assistant_text(ex: Exchange, streamed: str) -> str:
    answer = ex.answer
    if answer is None:
        body = chat_markdown(streamed) if streamed else "_Searching the papers…_"
    else:
        body = chat_markdown(answer.answer, known=[c.n for c in answer.citations])
    notice = answer.notice if answer is not None else ""
    if not ex.error:
        return "\n\n".join(part for part in [body, f"_{chat_markdown(notice)}_" if notice else ""] if part)
    warning = chat_markdown(notice if ex.error in notice else f"{ex.error} {notice}".strip())
    empty = answer is None or not answer.answer.strip()
    return f"**⚠ Problem:** {warning}" + ("" if empty else f"\n\n{body}")


def messages(conv: Conversation, streamed: str = "") -> list[dict[str, str]]:
    messages = []
    for i, ex in enumerate(conv.exchanges):
        messages.append({"role": "user", "content": chat_markdown(ex.question, known=())})
        last = i == len(conv.exchanges) - 1
        messages.append({"role": "assistant", "content": _assistant_text(ex, streamed if last else "")})
    return messages


def source_records(answer: Answer) -> list[dict[str, Any]]:
    """The cited papers of `answer`, numbered as in its text, with their metadata and matched span."""
    by_id = {s.paper.paper_id: s.to_dict() for s in answer.sources}
    records = []
    for c in sorted(answer.citations, key=lambda c: c.n):
        records.append({**by_id.get(c.paper_id, {}), **c.to_dict()})
    return records


def answer_turn(
    assistant: AssistantFace,
    question: str,
    conv: Conversation,
    options: Options,
    exports: Path,
    starred: Collection[str] = (),
    on_answer: Callable[[Answer | None], None] | None = None,
) -> Iterator[tuple[Any, ...]]:
    """Yield (chat, conversation, sources panel, status, export button, question box) as the answer streams;
    the panel's stars are pressed for the papers in `starred` (the session's reading list), and `on_answer`
    gets the answer before its panel is shown.

    Each token updates the chat; backend failures end as a clear message in the chat, never an exception.
    """
    raw = question or ""
    if not raw.strip():
        yield gr.update(), conv, gr.update(), gr.update(), gr.update(), gr.update()
        return
    refused = ""
    try:
        question = clean_question(raw, assistant.limits.max_question_chars)
    except QuestionError as exc:  # shown in the chat, with the question clipped for display
        question, refused = (
            (raw[:SHOWN_CHARS] + f"… ({len(raw):,} characters)" if len(raw) > SHOWN_CHARS else raw.strip()),
            str(exc),
        )
    history = conv.history()
    ex = Exchange(question, None, error=refused)
    conv.exchanges.append(ex)
    yield messages(conv), conv, gr.update(), "", gr.update(), ""
    streamed = ""
    try:
        if refused:
            raise QuestionError(refused)
        chosen = assistant.with_backend(options.backend, options.model or "", options.base_url or "")
        events = chosen.stream(
            question,
            history,
            mode=options.mode or "auto",
            filters=to_filters(options.venue, options.year, options.status),
            k=int(options.k) if options.k else None,
        )
        for event in events:
            if event.kind == "status":
                ex.status.append(event.text)
            elif event.kind == "token":
                streamed += event.text
            elif event.kind == "error":
                ex.error = event.text
            elif event.kind == "final" and event.answer is not None:
                ex.answer = event.answer
                continue
            yield messages(conv, streamed), conv, gr.update(), status_markdown(ex.status), gr.update(), ""
    except PaperchatError as exc:
        ex.error = str(exc)
    except Exception as exc:  # the app must stay up whatever a backend does
        log.exception("answering %r failed", question)
        ex.error = f"Something went wrong while answering ({type(exc).__name__}). Please try again."
    export = gr.update(value=str(write_export(conv, Path(tempfile.mkdtemp(dir=exports)))), interactive=True)
    if on_answer is not None:
        on_answer(ex.answer)
    panel = sources_html(ex.answer, turn=len(conv.exchanges), starred=starred)
    yield messages(conv, streamed), conv, panel, status_markdown(ex.status), export, ""
