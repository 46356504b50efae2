"""The web UI: a Gradio shell around a ready assistant. `build_app(assistant)`, `run_ui(...)`.

The UI builds no models and opens no stores: it talks to one `AssistantFace` (`ui.main` builds it).
Every browser session keeps its own conversation in a `gr.State`; language-model calls go through the
queue, at most `settings.ui.concurrency` at a time. The API endpoints serve gradio_client: `/ask` answers
one question; `/chat` holds a conversation per client session (follow-ups are rewritten from its history).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gradio as gr

from assistant.errors import PaperchatError
from assistant.face import MODES, AssistantFace, backend_names
from assistant.settings import Settings, UISettings
from ui.chat import Options, answer_turn, source_records, to_filters
from ui.conversation import Conversation, Exchange
from ui.corpus_view import COLUMN_WIDTHS, COLUMNS, DATATYPES, HIDDEN, corpus_updates
from ui.examples import survey
from ui.openai_api import v1_routes
from ui.reading_list import (
    FORMATS,
    REMOVE_JS,
    STAR_JS,
    ReadingList,
    list_label,
    reading_list_html,
    reading_shown,
    star_clicked,
)
from ui.render import EMPTY_SOURCES, header_html, stats_html
from ui.sessions import ApiSessions
from ui.theme import CITATION_JS, CSS, THEME
from ui.uploads import ALLOWED_SUFFIXES, stage_uploads

__all__ = ["build_app", "run_ui", "launch_options", "login", "MODES"]

log = logging.getLogger(__name__)

ANY = ""
TEST_BACKENDS = {"scripted"}  # registered for the test suites; not a choice for users


# ---------------------------------------------------------------------------------------------- the app


def build_app(assistant: AssistantFace) -> gr.Blocks:
    """The whole UI around `assistant`. Launch it with `run_ui`, or `.launch(**launch_options(...))`."""
    settings = assistant.settings
    facts = survey(assistant.papers(), assistant.topic_score)
    stats = assistant.stats()
    exports = Path(tempfile.mkdtemp(prefix="paperchat-exports-"))
    max_bytes = settings.ui.max_upload_mb * 1_000_000
    limit = settings.ui.concurrency
    api_sessions = ApiSessions()

    def respond(
        question: str,
        conv: Conversation,
        reading: ReadingList,
        mode: str,
        venue: str,
        year: Any,
        status: str,
        backend: str,
        model: str,
        base_url: str,
        k: float,
    ) -> Iterator[tuple[Any, ...]]:
        options = Options(mode, venue, year, status, backend, model, base_url, k)
        yield from answer_turn(
            assistant, question, conv, options, exports, starred=reading, on_answer=reading.offer
        )

    def star(reading: ReadingList, conv: Conversation, evt: gr.EventData) -> tuple[Any, ...]:
        return star_clicked(reading, conv, evt, exports)

    def show_reading(reading: ReadingList) -> tuple[Any, ...]:
        return reading_shown(reading, exports)

    def show_corpus(conv: Conversation) -> tuple[Any, ...]:
        last = conv.exchanges[-1].answer if conv.exchanges else None
        return corpus_updates(last, exports)

    def api_corpus(question: str, venue: str = "", year: int = 0) -> dict[str, Any]:
        """Answer one question about the conferences as a whole (corpus mode, no history). Returns the
        answer text, count, total, criterion (text, parts with their counts, notes), papers and groups."""
        try:
            answer = assistant.ask(question, mode="corpus", filters=to_filters(venue, year, None))
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from None
        data = answer.corpus.to_dict() if answer.corpus is not None else {}
        return {"answer": answer.answer or answer.notice, **data}

    def clear() -> tuple[Any, ...]:
        return [], Conversation(), EMPTY_SOURCES, "", gr.update(value=None, interactive=False), ""

    def pick_example(evt: gr.SelectData) -> tuple[str, str]:
        example = (
            facts.examples[evt.index]
            if isinstance(evt.index, int) and evt.index < len(facts.examples)
            else None
        )
        if example is None:
            return (evt.value or {}).get("text", ""), "auto"
        return example.question, example.mode

    def ingest(files: list[str] | None, progress: gr.Progress = gr.Progress()) -> tuple[Any, ...]:  # noqa: B008
        if not files:
            return "Choose one or more paper lists first.", gr.update(), gr.update(), gr.update(), None
        with tempfile.TemporaryDirectory(prefix="paperchat-upload-") as tmp:
            staged = stage_uploads(files, Path(tmp), max_bytes)
            accepted = [u.path for u in staged if u.path is not None]
            lines = [f"rejected {u.name}: {u.reason}" for u in staged if not u.accepted]
            if accepted:
                progress((0, None), desc="Reading papers", unit="papers")
                report = assistant.ingest(
                    accepted, on_progress=lambda n: progress((n, None), desc="Ingesting", unit="papers")
                )
                lines.insert(0, report.render().replace(tmp + "/", ""))
        fresh = assistant.stats()
        venues = gr.update(choices=[("any venue", ANY), *[(v, v) for v in survey(assistant.papers()).venues]])
        return "\n".join(lines), stats_html(fresh), header_html(fresh, assistant.backend_name), venues, None

    def api_ask(
        question: str,
        mode: str = "auto",
        venue: str = "",
        year: int = 0,
        k: int = 0,
    ) -> tuple[str, list[dict[str, Any]]]:
        """Answer one question (no history). Returns the answer text and its cited sources."""
        if mode not in MODES:
            raise gr.Error(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        try:
            answer = assistant.ask(question, mode=mode, filters=to_filters(venue, year, None), k=k or None)
        except PaperchatError as exc:
            raise gr.Error(str(exc)) from None
        return (answer.answer if answer.answer else answer.notice), source_records(answer)

    def api_chat(
        question: str, mode: str = "auto", new_conversation: bool = False, request: gr.Request | None = None
    ) -> tuple[str, list[dict[str, Any]], str, int]:
        """One turn of this client's conversation. Returns the answer text, its cited sources, the standalone
        question it was answered as, and the turn number (1 for the first question of a conversation)."""
        if mode not in MODES:
            raise gr.Error(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        if not (question or "").strip():
            raise gr.Error("the question is empty")
        session = (request.session_hash if request is not None else None) or "anonymous"
        with api_sessions.lock(session):
            conv = api_sessions.get(session, new=bool(new_conversation))
            try:
                answer = assistant.ask(question, conv.history(), mode=mode)
            except PaperchatError as exc:
                conv.exchanges.append(Exchange(question, None, error=str(exc)))
                raise gr.Error(str(exc)) from None
            conv.exchanges.append(Exchange(question, answer))
            api_sessions.trim(conv)
            turn = len(conv.exchanges)
        return (answer.answer or answer.notice), source_records(answer), answer.standalone_question, turn

    examples: list[Any] = [
        {"text": e.question, "display_text": f"{e.mode.title()} · {e.question}"} for e in facts.examples
    ]
    venue_choices = [("any venue", ANY), *[(v, v) for v in facts.venues]]
    year_choices = [("any year", ANY), *[(str(y), str(y)) for y in facts.years]]
    status_choices = [("any decision", ANY), *[(s, s) for s in facts.statuses]]

    with gr.Blocks(title="paperchat", analytics_enabled=False) as app:
        conv = gr.State(Conversation())
        reading = gr.State(ReadingList())
        header = gr.HTML(header_html(stats, assistant.backend_name), elem_id="pc-header")
        with gr.Tabs():
            with gr.Tab("Chat", id="chat"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=3, min_width=420):
                        chatbot = gr.Chatbot(
                            label="Conversation",
                            show_label=False,
                            elem_id="pc-chat",
                            height=470,
                            examples=examples or None,
                            placeholder="**Ask about the papers**, or start from an example:",
                            buttons=["copy"],
                            feedback_options=None,
                            latex_delimiters=[],
                        )
                        status_box = gr.Markdown("", elem_id="pc-status")
                        with gr.Row(equal_height=True):
                            question = gr.Textbox(
                                show_label=False,
                                placeholder="Ask about the papers…",
                                scale=6,
                                elem_id="pc-question",
                                max_lines=6,
                                autofocus=True,
                            )
                            send = gr.Button(
                                "Send", variant="primary", scale=1, min_width=90, elem_id="pc-send"
                            )
                        with gr.Row(equal_height=True, elem_id="pc-toolbar"):
                            mode = gr.Radio(
                                MODES,
                                value="auto",
                                show_label=False,
                                scale=4,
                                min_width=360,
                                container=False,
                                elem_id="pc-mode",
                            )
                            clear_btn = gr.Button(
                                "New conversation", size="sm", scale=1, min_width=130, elem_id="pc-clear"
                            )
                            export = gr.DownloadButton(
                                "Export Markdown",
                                value=None,
                                interactive=False,
                                size="sm",
                                scale=1,
                                min_width=130,
                                elem_id="pc-export",
                            )
                        with gr.Accordion("Filters and language model", open=False, elem_id="pc-options"):
                            with gr.Row():
                                venue = gr.Dropdown(
                                    venue_choices, value=ANY, label="Venue", elem_id="pc-venue"
                                )
                                year = gr.Dropdown(
                                    year_choices, value=ANY, label="Year", allow_custom_value=True
                                )
                                status = gr.Dropdown(
                                    status_choices, value=ANY, label="Decision", allow_custom_value=True
                                )
                                k = gr.Slider(
                                    1, 20, value=assistant.limits.default_k, step=1, label="Sources"
                                )
                            with gr.Row():
                                backend = gr.Dropdown(
                                    [b for b in backend_names() if b not in TEST_BACKENDS],
                                    value=assistant.backend_name,
                                    label="Backend",
                                    elem_id="pc-backend",
                                )
                                model = gr.Textbox(
                                    settings.llm.model,
                                    label="Model (API backends)",
                                    placeholder="server default",
                                    elem_id="pc-model",
                                )
                                base_url = gr.Textbox(
                                    settings.llm.base_url, label="API base URL", elem_id="pc-base-url"
                                )
                            gr.Markdown(assistant.key_note(), elem_id="pc-keynote")
                    with gr.Column(scale=2, min_width=340, elem_id="pc-side"):
                        with gr.Accordion(list_label(0), open=False, elem_id="pc-reading-box") as reading_box:
                            reading_panel = gr.HTML(
                                reading_list_html(ReadingList()), elem_id="pc-reading", js_on_load=REMOVE_JS
                            )
                            with gr.Row(equal_height=True):
                                downloads = [
                                    gr.DownloadButton(
                                        name,
                                        value=None,
                                        interactive=False,
                                        size="sm",
                                        min_width=80,
                                        elem_id=f"pc-reading-{suffix}",
                                    )
                                    for suffix, name in FORMATS.items()
                                ]
                        with gr.Accordion(
                            "Matching papers", open=True, visible=False, elem_id="pc-corpus-box"
                        ) as corpus_box:
                            with gr.Row(equal_height=True):
                                criterion = gr.Textbox(
                                    label="Criterion (edit and ask again)",
                                    scale=5,
                                    max_lines=3,
                                    elem_id="pc-criterion",
                                )
                                recount = gr.Button(
                                    "Ask", size="sm", scale=1, min_width=70, elem_id="pc-recount"
                                )
                            corpus_chart = gr.HTML("", visible=False, elem_id="pc-corpus-chart")
                            corpus_table = gr.Dataframe(
                                headers=COLUMNS,
                                column_widths=COLUMN_WIDTHS,
                                datatype=DATATYPES,
                                interactive=False,
                                wrap=True,
                                max_height=360,
                                show_search="filter",
                                elem_id="pc-corpus-table",
                            )
                            corpus_csv = gr.DownloadButton(
                                "Download CSV",
                                value=None,
                                interactive=False,
                                size="sm",
                                elem_id="pc-corpus-csv",
                            )
                        gr.Markdown("### Sources")
                        sources = gr.HTML(
                            EMPTY_SOURCES, elem_id="pc-sources", js_on_load=CITATION_JS + STAR_JS
                        )
            with gr.Tab("Corpus", id="corpus"):
                with gr.Row(equal_height=False):
                    with gr.Column(scale=2, min_width=300):
                        gr.Markdown("### In the store")
                        corpus_stats = gr.HTML(stats_html(stats), elem_id="pc-stats")
                    with gr.Column(scale=3, min_width=380):
                        gr.Markdown("### Add papers")
                        upload = gr.File(
                            label=f"Paper lists ({' '.join(ALLOWED_SUFFIXES)}; up to "
                            f"{settings.ui.max_upload_mb} MB each)",
                            file_count="multiple",
                            elem_id="pc-upload",
                            height=180,
                        )
                        ingest_btn = gr.Button("Ingest", variant="primary", elem_id="pc-ingest")
                        report = gr.Textbox(
                            label="Ingest report", lines=5, interactive=False, elem_id="pc-report"
                        )

        inputs = [question, conv, reading, mode, venue, year, status, backend, model, base_url, k]
        outputs = [chatbot, conv, sources, status_box, export, question]
        chat: dict[str, Any] = {
            "fn": respond,
            "inputs": inputs,
            "outputs": outputs,
            "concurrency_limit": limit,
            "concurrency_id": "llm",
            "api_visibility": "private",
            "show_progress": "hidden",
        }
        corpus_outputs = [corpus_box, criterion, corpus_chart, corpus_table, corpus_csv]
        corpus: dict[str, Any] = {"fn": show_corpus, "inputs": [conv], "outputs": corpus_outputs}
        corpus |= {"api_visibility": "private", "show_progress": "hidden"}
        # The reading list as the server holds it, shown again after every star or ✕ click: the browser handles
        # the replies of the clicks' concurrent runs concurrently, so the reply to an earlier click could
        # otherwise be the one left on the page. "always_last" runs one at a time and once more after the last
        # trigger, so the page ends on the list as it is. (Only the clicks run concurrently; answers and
        # "New conversation" leave the list alone.)
        resync: dict[str, Any] = {
            "fn": show_reading,
            "inputs": [reading],
            "outputs": [reading_panel, reading_box, *downloads],
            "api_visibility": "private",
            "concurrency_id": "reading",
            "concurrency_limit": 1,
            "trigger_mode": "always_last",
            "show_progress": "hidden",
        }
        question.submit(**chat).then(**corpus)
        send.click(**chat).then(**corpus)
        chatbot.example_select(pick_example, None, [question, mode], api_visibility="private").then(
            **chat
        ).then(**corpus)
        recount.click(lambda text: text, [criterion], [question], api_visibility="private").then(**chat).then(
            **corpus
        )
        for cleared in (clear_btn.click, chatbot.clear):
            cleared(clear, None, outputs, api_visibility="private").then(
                lambda: HIDDEN, None, corpus_outputs, api_visibility="private"
            )
        starring: dict[str, Any] = {
            "fn": star,
            "inputs": [reading, conv],
            "outputs": [reading, reading_panel, reading_box, *downloads],
            "api_visibility": "private",
            "concurrency_id": "reading",
            "concurrency_limit": 1,  # one click at a time: the list and its files stay in step
            "trigger_mode": "multiple",  # a click while the last is on its way still counts
            "show_progress": "hidden",
        }
        sources.click(**starring).then(**resync)
        reading_panel.click(**starring).then(**resync)
        ingest_btn.click(
            ingest,
            [upload],
            [report, corpus_stats, header, venue, upload],
            concurrency_limit=1,
            concurrency_id="ingest",
            api_visibility="private",
        )
        gr.api(api_ask, api_name="ask", concurrency_limit=limit, concurrency_id="llm")
        gr.api(api_chat, api_name="chat", concurrency_limit=limit, concurrency_id="llm")
        gr.api(api_corpus, api_name="corpus", concurrency_limit=limit, concurrency_id="llm")
    app.queue(default_concurrency_limit=limit, max_size=200)
    return app


# ---------------------------------------------------------------------------------------------- launch


def login(ui: UISettings) -> tuple[str, str] | None:
    """The (user, password) login when both are configured, else None (no login)."""
    password = ui.password.get_secret_value()
    return (ui.username, password) if ui.username and password else None


def launch_options(settings: Settings) -> dict[str, Any]:
    """Keyword arguments for `Blocks.launch` that the app needs (theme, CSS, upload limit)."""
    return {
        "theme": THEME,
        "css": CSS,
        "max_file_size": f"{settings.ui.max_upload_mb}mb",
        "ssr_mode": False,
        "show_error": True,
        "footer_links": ["api"],
        "quiet": True,
    }


def run_ui(
    assistant: AssistantFace,
    host: str = "127.0.0.1",
    port: int = 7860,
    auth: tuple[str, str] | None = None,
    *,
    block: bool = True,
) -> gr.Blocks:
    """Build the app and serve it on host:port, with the OpenAI-compatible `/v1` beside it (behind its API
    key when one is set; with a login, only then); with `block=False`, return once it is up."""
    app = build_app(assistant)
    app.launch(
        server_name=host,
        server_port=port,
        auth=auth,
        prevent_thread_lock=not block,
        auth_message="paperchat: log in" if auth else None,
        # /v1 comes first in the router, before Gradio's own routes
        app_kwargs={"routes": v1_routes(assistant, login=auth is not None)},
        **launch_options(assistant.settings),
    )
    log.info("paperchat UI on http://%s:%d (OpenAI-compatible API at /v1)", host, port)
    return app
