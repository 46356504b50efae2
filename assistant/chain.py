"""The assistant: clean the question -> make a follow-up standalone -> detect the mode -> run the mode.

Each mode has a runner, looked up by name in `MODE_RUNNERS`: plain questions (`assistant.ask`), subfield
summaries (`assistant.summarize`) and comparisons (`assistant.compare`), all writing through a `Writer`
made from the assistant's model, settings, scorer and retriever. A backend failure midway ends the
answer with an error event and an answer drawn from the sources.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableLambda

from assistant.ask import run_ask
from assistant.citations import SupportScorer
from assistant.compare import run_compare
from assistant.corpus_mode import run_corpus
from assistant.corpus_route import wants_corpus
from assistant.errors import BackendError
from assistant.face import Limits
from assistant.follow_up import clean_question, condense, focus_papers, rewrite_follow_up
from assistant.llm.base import ChatBackend
from assistant.llm.cache import BackendCache, key_note
from assistant.llm.extractive import ExtractiveBackend
from assistant.modes import detect_mode
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from assistant.summarize import run_summarize, wants_full_list
from assistant.types import Answer, Event, Filters, Paper, Request, Retrieval, Turn
from assistant.writing import NOT_IN_CORPUS, Writer, system_prompt
from vectorstore.ingest import IngestReport, ingest

__all__ = ["Assistant", "NOT_IN_CORPUS", "MODE_RUNNERS", "ModeRunner", "clean_question", "rewrite_follow_up"]

log = logging.getLogger(__name__)

ModeRunner = Callable[[Writer, Request], Iterator[Event]]
MODE_RUNNERS: dict[str, ModeRunner] = {
    "ask": run_ask,
    "summarize": run_summarize,
    "compare": run_compare,
    "corpus": run_corpus,
}


class Assistant:
    """Answers questions about the papers of `retriever.store` with `llm`, citing them."""

    def __init__(
        self,
        retriever: HybridRetriever,
        llm: ChatBackend,
        settings: Settings | None = None,
        *,
        scorer: SupportScorer | None = None,
    ) -> None:
        self.retriever = retriever
        self.llm = llm
        self.settings = settings or Settings()
        self.store = retriever.store
        self.scorer = scorer or SupportScorer(retriever.embed, cache={})
        self.system = system_prompt()  # constant: a prefix the servers' prompt caches reuse
        self._condense_step = RunnableLambda(self._condense)
        self._backends = BackendCache(self, llm.name, self.settings.llm, self.with_llm)

    @property
    def writer(self) -> Writer:
        """What the modes write with: this assistant's model, settings, scorer and retriever."""
        return Writer(self.retriever, self.llm, self.settings, self.scorer, self.system)

    # ------------------------------------------------------------------ public API

    def stream(
        self,
        question: str,
        history: Sequence[Turn] = (),
        *,
        mode: str = "auto",
        filters: Filters | None = None,
        k: int | None = None,
    ) -> Iterator[Event]:
        """The answer to `question` as events: status, tokens, then one final event with the `Answer`.
        Raises `QuestionError` (on iteration) for an empty or overlong question."""
        question = clean_question(question, self.settings.chain.max_question_chars)
        request = Request(question, list(history), mode, filters, k)
        try:
            yield from self._run(request)
        except BackendError as exc:
            log.warning("backend failed: %s", exc)
            yield Event("error", str(exc))
            yield Event("final", answer=self._fallback(request, str(exc)))

    def ask(self, question: str, history: Sequence[Turn] = (), **kwargs: Any) -> Answer:
        """The final answer of `stream`."""
        answer = None
        for event in self.stream(question, history, **kwargs):
            if event.kind == "final":
                answer = event.answer
        assert answer is not None, "stream always ends with a final event"
        return answer

    def with_llm(self, llm: ChatBackend) -> Assistant:
        """This assistant answering with `llm` instead (same store, settings and sentence cache)."""
        return Assistant(self.retriever, llm, self.settings, scorer=self.scorer)

    def with_backend(self, name: str, model: str = "", base_url: str = "") -> Assistant:
        """This assistant, or a copy answering with backend `name` (and `model`, `base_url` when given);
        each backend is built once and the last few kept. Raises `ConfigError` for an unknown name."""
        return self._backends.get(name, model, base_url)

    @property
    def backend_name(self) -> str:
        return self.llm.name

    @property
    def limits(self) -> Limits:
        return Limits.from_settings(self.settings)

    def key_note(self) -> str:
        """Whether an API key is configured, never the key."""
        return key_note(self.settings.llm)

    def papers(self) -> Iterator[Paper]:
        """The papers in the store, in catalog order."""
        return self.store.catalog.papers()

    def search(self, query: str, *, filters: Filters | None = None, k: int | None = None) -> Retrieval:
        """The best `k` papers for `query` (hybrid retrieval, filters applied), as `paperchat search` finds them."""
        return self.retriever.retrieve(query, k=k, filters=filters)

    def paper(self, paper_id: str) -> Paper | None:
        """The stored paper of `paper_id` (or of an alias of it), None when the store has none."""
        return self.store.get(paper_id)

    def topic_score(self, topic: str) -> float:
        """How well the store covers `topic`: the best paper's score, negative when nothing is relevant."""
        found = self.retriever.retrieve(topic, k=1)
        return float(found.results[0].score) if found.relevant and found.results else -1.0

    def stats(self) -> dict[str, Any]:
        """The store's figures: papers, chunks, venues, embedding model."""
        return self.store.stats()

    def ingest(self, paths: list[Path], on_progress: Callable[[int], None] | None = None) -> IngestReport:
        """Add the paper lists at `paths` to the store, then refresh the retriever's indexes."""
        report = ingest(
            self.store, paths, batch_papers=self.settings.store.batch_papers, on_progress=on_progress
        )
        refresh = getattr(self.retriever, "refresh", None)
        if callable(refresh):
            refresh()
        return report

    # ------------------------------------------------------------------ the steps

    def _run(self, request: Request) -> Iterator[Event]:
        request = self._condense_step.invoke(request)
        if request.standalone != request.question:
            yield Event("status", f"Standalone question: {request.standalone}")
        # a follow-up's mode is what its own words ask for, not what the history folded into it asks for
        mode = detect_mode(request.question if request.history else request.standalone, request.mode)
        if request.mode == "auto" and wants_corpus(request.question, request.history):
            mode = "corpus"  # counts, lists, breakdowns, shares, and follow-ups of them
        if request.mode in ("auto", "summarize") and wants_full_list(request.question, request.history):
            mode = "summarize"  # "list all of them": every paper of the subfield the last answer summarized
        runner = MODE_RUNNERS.get(mode, run_ask)  # an explicit mode of another name asks
        yield from runner(self.writer, request)

    def _condense(self, request: Request) -> Request:
        """The standalone question and the papers a follow-up points back at. A plain question about papers
        the last answer cited ("What data does it learn from?") is rewritten without the model: the focused
        retrieval finds the paper from the last answer, and a model rewrite would cost a generation and the
        model's cached system prompt (the answer's first token came seconds later)."""
        focus = focus_papers(request.question, request.history)
        if focus and detect_mode(request.question, request.mode) == "ask":
            standalone = rewrite_follow_up(request.question, request.history)
        else:
            standalone = condense(self.llm, request.question, request.history)
        return dataclasses.replace(request, standalone=standalone, focus=focus)

    def _fallback(self, request: Request, message: str) -> Answer:
        """After a backend failure: an extractive answer, with the failure as its notice."""
        extractive = self.with_llm(ExtractiveBackend(self.llm.context_window))
        answer = extractive.ask(
            request.question, request.history, mode=request.mode, filters=request.filters, k=request.k
        )
        answer.notice = (
            f"The language model failed: {message}. Showing an answer drawn from the sources instead."
        )
        return answer
