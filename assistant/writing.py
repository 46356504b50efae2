"""The writing steps every answering mode shares: prompts as messages, the model's reply (streamed with
its citation numbers renumbered live), the sources' share of the prompt, citation checks, and the answer
given when the corpus does not cover a question.

A `Writer` holds what these steps need (the model, the settings, the sentence scorer and the retriever
that finds the nearest papers); the chain builds one and hands it to each mode.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Iterator, Sequence

import prompts
from assistant.citations import LiveRenumber, SupportScorer, Validated, cite_plain, validate_citations
from assistant.context import available_budget
from assistant.extractive import short_name, token_events
from assistant.llm.base import ChatBackend, Message
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from assistant.types import Answer, Event, Filters, Retrieval, SearchResult

__all__ = ["Writer", "NOT_IN_CORPUS", "system_prompt"]

NOT_IN_CORPUS = "NOT_IN_CORPUS"


def system_prompt() -> str:
    """The system prompt every model call starts with."""
    return prompts.render("system", marker=NOT_IN_CORPUS)


@dataclasses.dataclass
class Writer:
    """Writes with `llm` under `settings`; `scorer` checks citations, `retriever` names the nearest papers."""

    retriever: HybridRetriever
    llm: ChatBackend
    settings: Settings
    scorer: SupportScorer
    # the system prompt is constant: a prefix the servers' prompt caches reuse
    system: str = dataclasses.field(default_factory=system_prompt)

    def messages(self, prompt: str) -> list[Message]:
        """The system prompt, then `prompt` as the user's message."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": prompt}]

    def complete(self, prompt: str, max_tokens: int | None = None) -> str:
        """The model's whole reply to `prompt` (after the system prompt)."""
        return self.llm.complete(
            self.messages(prompt),
            max_tokens=max_tokens or self.settings.llm.max_tokens,
            temperature=self.settings.llm.temperature,
        )

    def generate(self, prompt: str, n_sources: int) -> Generator[Event, None, str]:
        """Stream the reply as token events (markers renumbered live); returns the raw reply."""
        live = LiveRenumber(n_sources)
        pieces: list[str] = []
        for piece in self.llm.stream(
            self.messages(prompt),
            max_tokens=self.settings.llm.max_tokens,
            temperature=self.settings.llm.temperature,
        ):
            pieces.append(piece)
            if shown := live.feed(piece):
                yield Event("token", shown)
        if rest := live.flush():
            yield Event("token", rest)
        return "".join(pieces)

    def source_budget(self, prompt_without_sources: str, *, local_budget: int | None = None) -> int:
        """Tokens left for sources in `prompt_without_sources`; local models get at most `local_budget`
        (by default the setting `chain.local_prompt_budget`)."""
        chain = self.settings.chain
        local = chain.local_prompt_budget if local_budget is None else local_budget
        return available_budget(
            self.llm,
            budget=chain.context_budget,
            reserved_text=[self.system, prompt_without_sources],
            max_tokens=self.settings.llm.max_tokens,
            local_budget=local,
        )

    def validate(self, text: str, sources: Sequence[SearchResult]) -> Validated:
        """`text` with its citations checked against `sources` (see `validate_citations`)."""
        return validate_citations(text, sources, self.scorer, threshold=self.settings.chain.support_threshold)

    def not_covered(
        self,
        question: str,
        filters: Filters | None,
        *,
        mode: str = "ask",
        parsed: Retrieval | None = None,
        reason: str = "",
    ) -> Iterator[Event]:
        """Say the corpus does not answer `question` and which check said so (`reason`, else the
        retrieval's own), naming (and citing) the nearest papers."""
        nearest_k = self.settings.chain.nearest
        nearest = self.retriever.retrieve(question, k=nearest_k, filters=filters).results[:nearest_k]
        where = f" (filters: {parsed.filters.describe()})" if parsed and not parsed.filters.is_empty() else ""
        reason = reason or (parsed.refusal_reason() if parsed else "")
        text = f"The corpus does not cover this question{where}" + (f": {reason}." if reason else ".")
        if parsed and parsed.absent:
            alike = [n for name in parsed.absent for n in self.retriever.names.nearest(name)]
            if alike:
                text += f" Method names in the store spelt like it: {', '.join(dict.fromkeys(alike))}."
        if nearest:
            names = ", ".join(f"{short_name(r) or _opening(r)} [{n}]" for n, r in enumerate(nearest, 1))
            text += f" The nearest papers are: {names}."
        text, citations = cite_plain(text, nearest)
        yield from token_events(text)
        yield Event(
            "final",
            answer=Answer(
                text,
                False,
                mode,
                question,
                citations,
                nearest,
                parsed.filters if parsed else filters or Filters(),
            ),
        )


def _opening(result: SearchResult) -> str:
    return " ".join(result.paper.abstract.split()[:6]) + " …"
