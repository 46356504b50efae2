"""Plain questions: retrieve -> build context -> generate -> validate citations -> ground.

The steps are LangChain runnables over one `AskState`, each returning a copy with its part filled in;
generation is streamed between the preparing chain and the finishing chain so that tokens reach the
caller as they come. Whether an answer is grounded never depends on the model refusing: a question
nothing in the corpus clears the cutoff for is answered by naming the nearest papers, without calling
the model at all.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Generator, Iterator

from langchain_core.runnables import RunnableLambda

import prompts
from assistant.citations import Validated
from assistant.context import Context, build_context
from assistant.extractive import extractive_answer, token_events
from assistant.types import Answer, Event, Request, Retrieval
from assistant.writing import Writer

__all__ = ["AskChain", "AskState", "run_ask"]

_NOT_IN_CORPUS = re.compile(r"NOT[_ ]IN[_ ]CORPUS", re.IGNORECASE)
NO_SUPPORT = (
    "The model's reply had no statement the sources support; showing the most relevant "
    "sentences of the sources instead."
)


def _no_context() -> Context:
    return Context("", [], 0)


@dataclasses.dataclass(frozen=True)
class AskState:
    """A plain question on its way through the ask chain."""

    request: Request
    retrieval: Retrieval
    context: Context = dataclasses.field(default_factory=_no_context)
    raw: str = ""  # the reply as written, before its citations are checked
    checked: Validated | None = None

    @property
    def question(self) -> str:
        """The standalone question being answered."""
        return self.request.standalone


def run_ask(writer: Writer, request: Request) -> Iterator[Event]:
    """Answer `request.standalone` from the sources, yielding the events of `Assistant.stream`."""
    return AskChain(writer)(request)


class AskChain:
    """Answers a standalone question with `writer`, citing the sources it was given."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self._prepare = RunnableLambda(self._retrieve) | RunnableLambda(self._context)
        self._finish = RunnableLambda(self._validate) | RunnableLambda(self._ground)

    def __call__(self, request: Request) -> Iterator[Event]:
        state: AskState = self._prepare.invoke(request)
        retrieval = state.retrieval
        if not retrieval.parsed_filters.is_empty():
            yield Event("status", f"Filters: {retrieval.parsed_filters.describe()}")
        if not retrieval.relevant:
            yield from self.writer.not_covered(state.question, retrieval.filters, parsed=retrieval)
            return
        raw = yield from self._draft(state)
        yield Event("final", answer=self._finish.invoke(dataclasses.replace(state, raw=raw)))

    def _retrieve(self, request: Request) -> AskState:
        found = self.writer.retriever.retrieve(request.standalone, k=request.k, filters=request.filters)
        return AskState(request, found)

    def _context(self, state: AskState) -> AskState:
        writer = self.writer
        budget = writer.source_budget(
            prompts.render("answer", question=state.question, sources=""),
            local_budget=writer.settings.chain.local_context_budget,
        )
        context = build_context(
            state.retrieval.results, writer.llm, budget=budget, question=state.question, scorer=writer.scorer
        )
        return dataclasses.replace(state, context=context)

    def _draft(self, state: AskState) -> Generator[Event, None, str]:
        """The reply, streamed: written by the model, or the sources' best sentences."""
        sources = state.context.sources
        if self.writer.llm.generates:
            prompt = prompts.render("answer", question=state.question, sources=state.context.text)
            return (yield from self.writer.generate(prompt, len(sources)))
        raw, _ = extractive_answer(state.question, sources, self.writer.scorer)
        yield from token_events(raw)
        return raw

    def _validate(self, state: AskState) -> AskState:
        return dataclasses.replace(state, checked=self.writer.validate(state.raw, state.context.sources))

    def _ground(self, state: AskState) -> Answer:
        """The answer: the checked reply; the nearest papers when the model found nothing in the sources;
        the sources' best sentences when no statement of the reply is supported."""
        checked, retrieval = state.checked, state.retrieval
        assert checked is not None, "validated before grounding"
        if _NOT_IN_CORPUS.search(state.raw):
            return _last_final(self.writer.not_covered(state.question, retrieval.filters, parsed=retrieval))
        shown, notice = checked, ""
        if checked.checked == 0 or checked.supported == 0:
            text, _ = extractive_answer(state.question, state.context.sources, self.writer.scorer)
            shown, notice = self.writer.validate(text, state.context.sources), NO_SUPPORT
        return Answer(
            shown.text,
            True,
            "ask",
            state.question,
            shown.citations,
            list(state.context.sources),
            retrieval.filters,
            shown.unsupported,
            checked.removed,
            notice,
        )


def _last_final(events: Iterator[Event]) -> Answer:
    answer = None
    for event in events:
        answer = event.answer or answer
    assert answer is not None
    return answer
