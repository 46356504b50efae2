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
from collections.abc import Generator, Iterator, Sequence

from langchain_core.runnables import RunnableLambda

import prompts
from assistant.citations import Validated, cite_plain
from assistant.context import Context, build_context
from assistant.extractive import extractive_answer, short_name, token_events
from assistant.follow_up import asks_authors
from assistant.retrieval import STRONG_MATCH, HybridRetriever
from assistant.types import Answer, Citation, Event, Request, Retrieval
from assistant.writing import Writer

__all__ = ["AskChain", "AskState", "run_ask"]

_NOT_IN_CORPUS = re.compile(r"NOT[_ ]IN[_ ]CORPUS", re.IGNORECASE)
MODEL_FOUND_NONE = (
    "The language model found no answer in the sources, but they match the question closely; showing "
    "their sentences closest to it instead."
)
FOCUSED_NONE = (
    "The language model found no answer to this in the paper under discussion; showing the sentences of its "
    "abstract closest to the question instead."
)
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
    focused: bool = False  # the papers are the ones under discussion, found by `HybridRetriever.focused`

    @property
    def question(self) -> str:
        """The standalone question being answered."""
        return self.request.standalone

    @property
    def sentence_query(self) -> str:
        """What the sources' sentences are ranked against. Once a follow-up's papers are known, the user's
        own words ("From what data does it learn?"): the history folded into the standalone question would
        favour the sentences that name the paper over those that answer."""
        return self.request.question if self.focused else self.request.standalone


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
        if asks_authors(state.question) and self._about_one(state):
            yield from self._authors(state)
            return
        raw = yield from self._draft(state)
        yield Event("final", answer=self._finish.invoke(dataclasses.replace(state, raw=raw)))

    def _retrieve(self, request: Request) -> AskState:
        retriever = self.writer.retriever
        if request.focus:  # a follow-up about the papers of the last answer
            found = retriever.focused(request.standalone, request.focus, k=request.k)
            if found.results:
                return AskState(request, found, focused=True)
        return AskState(request, retriever.retrieve(request.standalone, k=request.k, filters=request.filters))

    def _context(self, state: AskState) -> AskState:
        writer = self.writer
        chain = writer.settings.chain
        one = state.focused and not _asks_about_several(state.request.question)
        budget = writer.source_budget(
            prompts.render("answer", question=state.question, sources=""),
            local_budget=chain.local_follow_up_budget if one else chain.local_context_budget,
        )
        context = build_context(
            state.retrieval.results,
            writer.llm,
            budget=budget,
            question=state.sentence_query if one else state.question,
            scorer=writer.scorer,
            one_paper=one,
        )
        return dataclasses.replace(state, context=context)

    def _draft(self, state: AskState) -> Generator[Event, None, str]:
        """The reply, streamed: written by the model, or the sources' best sentences."""
        sources = state.context.sources
        if self.writer.llm.generates:
            prompt = prompts.render("answer", question=state.question, sources=state.context.text)
            return (yield from self.writer.generate(prompt, len(sources)))
        raw = self._extractive(state)
        yield from token_events(raw)
        return raw

    def _validate(self, state: AskState) -> AskState:
        return dataclasses.replace(state, checked=self.writer.validate(state.raw, state.context.sources))

    def _ground(self, state: AskState) -> Answer:
        """The answer: the checked reply; the nearest papers when the model found nothing in the sources;
        the sources' best sentences when no statement of the reply is supported."""
        checked, retrieval = state.checked, state.retrieval
        assert checked is not None, "validated before grounding"
        shown, notice = checked, ""
        if _NOT_IN_CORPUS.search(state.raw):
            if state.focused:  # the paper is known: what its abstract says closest to the question
                notice = FOCUSED_NONE
            elif not self._strong(retrieval):
                reason = (
                    "the language model found no answer in the papers retrieved, and none matches the "
                    f"question closely (the best scores {retrieval.results[0].score:.2f})"
                )
                events = self.writer.not_covered(
                    state.question, retrieval.filters, parsed=retrieval, reason=reason
                )
                return _last_final(events)
            else:
                notice = MODEL_FOUND_NONE  # a small model's verdict is not trusted over a close match
        if notice or checked.checked == 0 or checked.supported == 0:
            text = self._extractive(state)
            shown, notice = self.writer.validate(text, state.context.sources), notice or NO_SUPPORT
        else:
            shown = dataclasses.replace(shown, text=name_leading_markers(shown.text, shown.citations))
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

    def _extractive(self, state: AskState) -> str:
        """The sources' sentences that answer best. A follow-up's answer comes from the paper under discussion
        alone (the best of the last answer's papers for the standalone question), its sentences ranked
        against the user's own words."""
        sources, scorer = state.context.sources, self.writer.scorer
        if state.focused:
            return extractive_answer(state.sentence_query, sources[:1], scorer, papers=1, per_paper=3)[0]
        return extractive_answer(state.question, sources, scorer)[0]

    def _about_one(self, state: AskState) -> bool:
        """Whether the question is about one known paper: the one a follow-up points at, or one it names."""
        results = state.retrieval.results
        if not results:
            return False
        if state.focused or len(state.request.focus) == 1:
            return True  # the best of the papers under discussion
        return HybridRetriever.names_a_paper(state.question, results[:1])

    def _authors(self, state: AskState) -> Iterator[Event]:
        """Who wrote the paper, from the list's metadata; where the list gives no authors (ICLR's is
        anonymous), the answer says so rather than guess."""
        result = state.retrieval.results[0]
        paper, name = result.paper, short_name(result) or result.paper.label
        where = " ".join(str(x) for x in (paper.venue, paper.year) if x) or "paper"
        if paper.authors:
            text = f"**{name}** [1] is by {', '.join(paper.authors)} (as the {where} list gives them)."
        else:
            text = f"The {where} list gives no authors for **{name}** [1], so the corpus cannot say who wrote it."
        text, citations = cite_plain(text, [result])
        yield from token_events(text)
        answer = Answer(text, True, "ask", state.question, citations, [result], state.retrieval.filters)
        yield Event("final", answer=answer)

    def _strong(self, retrieval: Retrieval) -> bool:
        """Whether the best paper matches the question closely enough to answer from its sentences when
        the model found nothing: a score above `STRONG_MATCH`, or the question names the paper."""
        results = retrieval.results
        return bool(results) and (
            results[0].score >= STRONG_MATCH or HybridRetriever.names_a_paper(retrieval.query, results)
        )


_LEADING_MARKER = re.compile(
    r"^(?P<lead>[ \t]*(?:[-*•][ \t]+|\d+\.[ \t]+)?)\[(?P<n>\d+)\][ \t]+(?=[A-Z])", re.M
)


def name_leading_markers(text: str, citations: Sequence[Citation]) -> str:
    """Name the paper where a line of the reply opens with its bare marker as the subject ("[1] Models
    specular reflections …", a small model's answer to "Which paper …?"): "**Augmented Radiance Field**
    [1]: Models …". A line that names the paper itself is left alone."""
    by_n = {c.n: c for c in citations}

    def sub(match: re.Match[str]) -> str:
        cited = by_n.get(int(match.group("n")))
        if cited is None:
            return match.group(0)
        name = cited.title if cited.label.endswith("…") and cited.title else cited.label
        end = text.find("\n", match.end())
        line = text[match.end() : end if end >= 0 else None].lower()
        if any(x and x.lower() in line for x in (cited.label, cited.title)):
            return match.group(0)
        return f"{match.group('lead')}**{name}** [{cited.n}]: "

    return _LEADING_MARKER.sub(sub, text)


_SEVERAL = re.compile(
    r"\b(?:both|each\s+of|all\s+of|which\s+of|either|neither|compare[sd]?|differ\w*|difference\w*|versus|vs\.?|"
    r"than|between|the\s+(?:two|three|four|five)|these\s+papers|those\s+papers|the\s+others?)\b",
    re.IGNORECASE,
)


def _asks_about_several(question: str) -> bool:
    """Whether a follow-up is about several of the papers under discussion ("Which of them is faster?",
    "How do both differ?") rather than the one it points at."""
    return bool(_SEVERAL.search(question))


def _last_final(events: Iterator[Event]) -> Answer:
    answer = None
    for event in events:
        answer = event.answer or answer
    assert answer is not None
    return answer
