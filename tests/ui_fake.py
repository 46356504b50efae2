"""A stand-in for the assistant as the UI sees it (`AssistantFace`), over real `Paper` records from `corpus/`.

For the UI's unit tests: instant, deterministic, no embedder. Retrieval is word overlap; the answer quotes
the first sentence of each source with a citation marker; follow-ups get a visible standalone question.
Other backends are built by the real registry and cached by the real `BackendCache`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from assistant.chain import Assistant
from assistant.errors import BackendError
from assistant.face import AssistantFace, Limits
from assistant.llm.base import ChatBackend, Message
from assistant.llm.cache import BackendCache, key_note
from assistant.settings import Settings
from assistant.types import Answer, Citation, Event, Filters, Retrieval, SearchResult, Turn
from vectorstore.ingest import IngestReport
from vectorstore.loaders import read_papers
from vectorstore.paper import Paper

_WORD = re.compile(r"[a-z0-9]+")


class FakeLLM(ChatBackend):
    def __init__(self, name: str = "extractive", fail: str = "") -> None:
        self.name, self.fail = name, fail
        self.generates = bool(fail)

    def stream(
        self, messages: list[Message], *, max_tokens: int, temperature: float, stop: list[str] | None = None
    ) -> Iterator[str]:
        if self.fail:
            raise BackendError(self.fail)
        yield ""


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 3}


class FakeAssistant:
    """Answers from `corpus` (shared with its copies for other backends, as is `calls`)."""

    def __init__(
        self, corpus: list[Paper], llm: ChatBackend | None = None, settings: Settings | None = None
    ) -> None:
        self.settings = settings or Settings()
        self.llm = llm or FakeLLM()
        self.corpus = corpus
        self.calls: list[dict[str, Any]] = []
        self._backends = BackendCache(self, self.llm.name, self.settings.llm, self._with_llm)

    @classmethod
    def from_files(cls, paths: Sequence[Path], **kwargs: Any) -> FakeAssistant:
        papers = [p for path in paths for p in read_papers(path, [])]
        return cls(papers, **kwargs)

    @property
    def limits(self) -> Limits:
        return Limits.from_settings(self.settings)

    @property
    def backend_name(self) -> str:
        return self.llm.name

    def papers(self) -> Iterator[Paper]:
        return iter(list(self.corpus))

    def topic_score(self, topic: str) -> float:
        return -1.0  # no topic covered: the examples take the most frequent one

    def key_note(self) -> str:
        return key_note(self.settings.llm)

    def with_backend(self, name: str, model: str = "", base_url: str = "") -> FakeAssistant:
        return self._backends.get(name, model, base_url)

    def _with_llm(self, llm: ChatBackend) -> FakeAssistant:
        twin = FakeAssistant(self.corpus, llm=llm, settings=self.settings)
        twin.calls = self.calls
        return twin

    def stats(self) -> dict[str, Any]:
        venues: dict[str, int] = {}
        for p in self.corpus:
            venues[p.venue] = venues.get(p.venue, 0) + 1
        return {
            "papers": len(self.corpus),
            "chunks": 2 * len(self.corpus),
            "venues": venues,
            "embedding_model": "fake-embedder",
        }

    def search(self, query: str, *, filters: Filters | None = None, k: int | None = None) -> Retrieval:
        results = self._search(query, filters, k or self.settings.retrieval.k)
        return Retrieval(query, results, filters or Filters(), Filters(), bool(results), 0.0)

    def paper(self, paper_id: str) -> Paper | None:
        return next((p for p in self.corpus if paper_id in (p.paper_id, *p.aliases)), None)

    def _search(self, query: str, filters: Filters | None, k: int) -> list[SearchResult]:
        wanted = _words(query)
        scored = []
        for p in self.corpus:
            if filters and not filters.matches(p):
                continue
            overlap = len(wanted & _words(p.abstract + " " + p.label))
            if overlap:
                end = p.abstract.find(". ") + 1 or len(p.abstract)
                scored.append(SearchResult(p, overlap / (len(wanted) or 1), p.abstract[:end], (0, end)))
        return sorted(scored, key=lambda r: -r.score)[:k]

    def stream(
        self,
        question: str,
        history: Sequence[Turn] = (),
        *,
        mode: str = "auto",
        filters: Filters | None = None,
        k: int | None = None,
    ) -> Iterator[Event]:
        self.calls.append(
            {"question": question, "history": list(history), "mode": mode, "filters": filters, "k": k}
        )
        standalone = question
        if history:
            standalone = f"{question} (about: {history[-1].question})"
            yield Event("status", f"Standalone question: {standalone}")
        if filters and not filters.is_empty():
            yield Event("status", f"Filters: {filters.describe()}")
        failure = self._llm_failure()
        if failure:
            message = f"The language model failed: {failure}"
            yield Event("error", failure)
            yield Event("final", answer=Answer("", False, mode, standalone, [], [], notice=message))
            return
        results = self._search(standalone, filters, k or self.settings.retrieval.k)
        citations = [
            Citation(
                n,
                r.paper.paper_id,
                r.paper.title,
                r.paper.label,
                r.paper.venue,
                r.paper.year,
                r.paper.abstract,
                r.span,
            )
            for n, r in enumerate(results, 1)
        ]
        text = (
            " ".join(f"{r.chunk} [{n}]" for n, r in enumerate(results, 1))
            or "No paper in the corpus covers it."
        )
        for piece in re.findall(r"\S+\s*", text):
            yield Event("token", piece)
        yield Event(
            "final",
            answer=Answer(text, bool(results), mode, standalone, citations, results, filters or Filters()),
        )

    def _llm_failure(self) -> str:
        """Call a generating backend once (the real ones, e.g. openai, included); its error, if any."""
        if not self.llm.generates:
            return ""
        try:
            "".join(self.llm.stream([{"role": "user", "content": "ping"}], max_tokens=8, temperature=0.0))
        except BackendError as exc:
            return str(exc)
        return ""

    def ask(self, question: str, history: Sequence[Turn] = (), **kwargs: Any) -> Answer:
        final = [e.answer for e in self.stream(question, history, **kwargs) if e.kind == "final"]
        assert final[0] is not None
        return final[0]

    def ingest(self, paths: list[Path], on_progress: Callable[[int], None] | None = None) -> IngestReport:
        report = IngestReport(files=[str(p) for p in paths])
        for path in paths:
            for paper in read_papers(path, report.issues):
                report.read += 1
                if all(p.content_hash != paper.content_hash for p in self.corpus):
                    self.corpus.append(dataclasses.replace(paper))
                    report.new += 1
                if on_progress:
                    on_progress(report.read)
        report.rejected = sum(1 for i in report.issues if i.rejected)
        return report


def _as_face(fake: FakeAssistant, real: Assistant) -> tuple[AssistantFace, AssistantFace]:
    """Never called: mypy checks here that the fake and the real assistant both satisfy the protocol."""
    return fake, real
