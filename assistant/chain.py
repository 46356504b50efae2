"""The assistant: condense -> retrieve -> build context -> generate -> validate citations -> ground.

The steps are LangChain runnables over one state dict; generation is streamed between the preparing
chain and the finishing chain so that tokens reach the caller as they come. Whether an answer is grounded
never depends on the model refusing: a question nothing in the corpus clears the cutoff for is answered by
naming the nearest papers, without calling the model at all.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableLambda, RunnablePassthrough

import prompts
from assistant.citations import LiveRenumber, SupportScorer, cite_plain, validate_citations
from assistant.context import LOCAL_CONTEXT_BUDGET, available_budget, build_context
from assistant.errors import BackendError, QuestionError
from assistant.extractive import extractive_answer, short_name, token_events
from assistant.llm.base import ChatBackend, Message
from assistant.llm.extractive import ExtractiveBackend
from assistant.modes import detect_mode, run_compare, run_summarize
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from assistant.types import Answer, Event, Filters, Retrieval, Turn
from vectorstore.ingest import IngestReport, ingest
from vectorstore.lexical import tokenize

__all__ = ["Assistant", "NOT_IN_CORPUS", "clean_question", "rewrite_follow_up"]

log = logging.getLogger(__name__)

NOT_IN_CORPUS = "NOT_IN_CORPUS"
_NOT_IN_CORPUS = re.compile(r"NOT[_ ]IN[_ ]CORPUS", re.IGNORECASE)
_FOLLOW_UP = re.compile(r"\b(?:it|its|they|them|their|those|these|this|that|such|the same|one|ones|both|former|"
                        r"latter)\b|^\s*(?:and|also|what about|how about)\b", re.IGNORECASE)
_GENERIC = frozenset("paper papers work works study studies method methods approach which what how does do "
                     "is are the a an of on in for about any there show tell me give".split())
NEAREST = 3


def clean_question(question: str, max_chars: int) -> str:
    """The question as the chain sees it: control and invisible formatting characters (bidi overrides,
    zero-width marks) become spaces, runs of whitespace collapse. Raises `QuestionError` when nothing is left or
    when it is longer than `max_chars` (a clear refusal, not a silent cut)."""
    kept = "".join(" " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch not in "\n\t" else ch
                   for ch in question or "")
    text = re.sub(r"[ \t]+", " ", re.sub(r"\s*\n\s*", "\n", kept)).strip()
    if not text:
        raise QuestionError("the question is empty: type a question about the papers")
    if len(text) > max_chars:
        raise QuestionError(f"the question is {len(text):,} characters long; the limit is {max_chars:,} "
                            "(PAPERCHAT_CHAIN__MAX_QUESTION_CHARS). Ask about the point you need, or quote less.")
    return text


def _is_follow_up(question: str) -> bool:
    return bool(_FOLLOW_UP.search(question)) or len(question.split()) <= 3


def rewrite_follow_up(question: str, history: Sequence[Turn]) -> str:
    """A deterministic standalone question: a follow-up that leans on the previous question gets its topic."""
    if not history or not _is_follow_up(question):
        return question
    # the topic comes from the latest question that stood on its own: a chain of follow-ups keeps it
    previous = next((t.question for t in reversed(history) if not _is_follow_up(t.question)), history[-1].question)
    own = set(tokenize(question))
    terms = [w for w in re.findall(r"[\w-]+", previous)
             if w.lower() not in _GENERIC and tokenize(w) and not set(tokenize(w)) <= own]
    if not terms:
        return question
    return f"Regarding {' '.join(dict.fromkeys(terms))}: {question.strip()}"


class Assistant:
    """Answers questions about the papers of `retriever.store` with `llm`, citing them."""

    def __init__(self, retriever: HybridRetriever, llm: ChatBackend, settings: Settings | None = None) -> None:
        self.retriever = retriever
        self.llm = llm
        self.settings = settings or Settings()
        self.store = retriever.store
        self.scorer = SupportScorer(retriever.embed, cache={})
        self.system = prompts.render("system", marker=NOT_IN_CORPUS)  # constant: a reusable prompt-cache prefix
        self._condense_step = RunnablePassthrough.assign(standalone=RunnableLambda(self._condense))
        self._prepare = (RunnablePassthrough.assign(retrieval=RunnableLambda(self._retrieve))
                         | RunnablePassthrough.assign(context=RunnableLambda(self._context)))
        self._finish = RunnableLambda(self._validate) | RunnableLambda(self._ground)

    # ------------------------------------------------------------------ public API

    def stream(self, question: str, history: Sequence[Turn] = (), *, mode: str = "auto",
               filters: Filters | None = None, k: int | None = None) -> Iterator[Event]:
        question = clean_question(question, self.settings.chain.max_question_chars)
        state: dict[str, Any] = {"question": question, "history": list(history), "filters": filters,
                                 "k": k, "mode": mode}
        try:
            yield from self._run(state)
        except BackendError as exc:
            log.warning("backend failed: %s", exc)
            yield Event("error", str(exc))
            yield Event("final", answer=self._fallback(state, str(exc)))

    def ask(self, question: str, history: Sequence[Turn] = (), **kwargs: Any) -> Answer:
        answer = None
        for event in self.stream(question, history, **kwargs):
            if event.kind == "final":
                answer = event.answer
        assert answer is not None, "stream always ends with a final event"
        return answer

    def with_llm(self, llm: ChatBackend) -> Assistant:
        twin = Assistant(self.retriever, llm, self.settings)
        twin.scorer = self.scorer
        return twin

    def stats(self) -> dict[str, Any]:
        return self.store.stats()

    def ingest(self, paths: list[Path], on_progress: Callable[[int], None] | None = None) -> IngestReport:
        report = ingest(self.store, paths, batch_papers=self.settings.store.batch_papers, on_progress=on_progress)
        refresh = getattr(self.retriever, "refresh", None)
        if callable(refresh):
            refresh()
        return report

    # ------------------------------------------------------------------ helpers the modes share

    def source_budget(self, prompt_without_sources: str, *, local_budget: int = LOCAL_CONTEXT_BUDGET) -> int:
        return available_budget(self.llm, budget=self.settings.chain.context_budget,
                                reserved_text=[self.system, prompt_without_sources],
                                max_tokens=self.settings.llm.max_tokens, local_budget=local_budget)

    def messages(self, prompt: str) -> list[Message]:
        return [{"role": "system", "content": self.system}, {"role": "user", "content": prompt}]

    def complete(self, prompt: str, max_tokens: int | None = None) -> str:
        return self.llm.complete(self.messages(prompt), max_tokens=max_tokens or self.settings.llm.max_tokens,
                                 temperature=self.settings.llm.temperature)

    def generate(self, prompt: str, n_sources: int) -> Generator[Event, None, str]:
        """Stream the reply as token events (markers renumbered live); returns the raw reply."""
        live = LiveRenumber(n_sources)
        pieces: list[str] = []
        for piece in self.llm.stream(self.messages(prompt), max_tokens=self.settings.llm.max_tokens,
                                     temperature=self.settings.llm.temperature):
            pieces.append(piece)
            if shown := live.feed(piece):
                yield Event("token", shown)
        if rest := live.flush():
            yield Event("token", rest)
        return "".join(pieces)

    def not_covered(self, question: str, filters: Filters | None, *, mode: str = "ask",
                    parsed: Retrieval | None = None) -> Iterator[Event]:
        """Say the corpus does not answer `question`, naming (and citing) the nearest papers."""
        nearest = self.retriever.retrieve(question, k=NEAREST, filters=filters).results[:NEAREST]
        where = f" (filters: {parsed.filters.describe()})" if parsed and not parsed.filters.is_empty() else ""
        text = f"The corpus does not cover this question{where}."
        if nearest:
            names = ", ".join(f"{short_name(r) or _opening(r)} [{n}]" for n, r in enumerate(nearest, 1))
            text += f" The nearest papers are: {names}."
        text, citations = cite_plain(text, nearest)
        yield from token_events(text)
        yield Event("final", answer=Answer(text, False, mode, question, citations, nearest,
                                           parsed.filters if parsed else filters or Filters()))

    # ------------------------------------------------------------------ the steps

    def _run(self, state: dict[str, Any]) -> Iterator[Event]:
        state = self._condense_step.invoke(state)
        standalone = state["standalone"]
        if standalone != state["question"]:
            yield Event("status", f"Standalone question: {standalone}")
        mode = detect_mode(standalone, state["mode"])
        if mode == "summarize":
            yield from run_summarize(self, state["question"], standalone, state["filters"])
            return
        if mode == "compare":
            yield from run_compare(self, state["question"], standalone, state["filters"])
            return
        state = self._prepare.invoke(state)
        retrieval: Retrieval = state["retrieval"]
        if not retrieval.parsed_filters.is_empty():
            yield Event("status", f"Filters: {retrieval.parsed_filters.describe()}")
        if not retrieval.relevant:
            yield from self.not_covered(standalone, retrieval.filters, parsed=retrieval)
            return
        if self.llm.generates:
            prompt = prompts.render("answer", question=standalone, sources=state["context"].text)
            state["raw"] = yield from self.generate(prompt, len(state["context"].sources))
        else:
            state["raw"], _ = extractive_answer(standalone, state["context"].sources, self.scorer)
            yield from token_events(state["raw"])
        yield Event("final", answer=self._finish.invoke(state))

    def _condense(self, state: dict[str, Any]) -> str:
        question, history = state["question"], state["history"]
        if not history:
            return question
        if self.llm.generates:
            lines = "\n".join(f"User: {t.question}\nAssistant: {_clip(t.answer)}" for t in history[-3:])
            try:
                reply = self.llm.complete([{"role": "user", "content": prompts.render(
                    "condense", history=lines, question=question)}], max_tokens=64, temperature=0.0)
                rewritten = _clean_condensed(reply)
                if rewritten and len(rewritten) <= 4 * len(question) + 200:
                    return rewritten
            except BackendError as exc:
                log.warning("condensing the follow-up failed (%s); rewriting it without the model", exc)
        return rewrite_follow_up(question, history)

    def _retrieve(self, state: dict[str, Any]) -> Retrieval:
        return self.retriever.retrieve(state["standalone"], k=state["k"], filters=state["filters"])

    def _context(self, state: dict[str, Any]) -> Any:
        budget = self.source_budget(prompts.render("answer", question=state["standalone"], sources=""),
                                    local_budget=self.settings.chain.local_context_budget)
        return build_context(state["retrieval"].results, self.llm, budget=budget, question=state["standalone"],
                             scorer=self.scorer)

    def _validate(self, state: dict[str, Any]) -> dict[str, Any]:
        checked = validate_citations(state["raw"], state["context"].sources, self.scorer,
                                     threshold=self.settings.chain.support_threshold)
        return {**state, "checked": checked}

    def _ground(self, state: dict[str, Any]) -> Answer:
        checked, retrieval, standalone = state["checked"], state["retrieval"], state["standalone"]
        sources = state["context"].sources
        if _NOT_IN_CORPUS.search(state["raw"]):
            return _last_final(self.not_covered(standalone, retrieval.filters, parsed=retrieval))
        notice = ""
        if checked.checked == 0 or checked.supported == 0:
            notice = ("The model's reply had no statement the sources support; showing the most relevant "
                      "sentences of the sources instead.")
            text, _ = extractive_answer(standalone, sources, self.scorer)
            checked = validate_citations(text, sources, self.scorer, threshold=self.settings.chain.support_threshold)
        return Answer(checked.text, True, "ask", standalone, checked.citations, list(sources), retrieval.filters,
                      checked.unsupported, state["checked"].removed, notice)

    def _fallback(self, state: dict[str, Any], message: str) -> Answer:
        """After a backend failure: an extractive answer, with the failure as its notice."""
        extractive = self.with_llm(ExtractiveBackend(self.llm.context_window))
        answer = extractive.ask(state["question"], state["history"], mode=state["mode"], filters=state["filters"],
                                k=state["k"])
        answer.notice = f"The language model failed: {message}. Showing an answer drawn from the sources instead."
        return answer


def _last_final(events: Iterator[Event]) -> Answer:
    answer = None
    for event in events:
        answer = event.answer or answer
    assert answer is not None
    return answer


def _clean_condensed(reply: str) -> str:
    lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    line = re.sub(r"^(?:standalone question|question)\s*:\s*", "", lines[0], flags=re.IGNORECASE)
    return line.strip(" \"'“”`")


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " …"


def _opening(result: Any) -> str:
    return " ".join(result.paper.abstract.split()[:6]) + " …"
