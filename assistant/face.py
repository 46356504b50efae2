"""What the UI sees of the assistant: one small protocol, `AssistantFace`, that `Assistant` satisfies.

The UI talks to this object only: it asks and streams, surveys the papers for its examples, shows the
store's figures, ingests uploads and switches the language model by name. The faces for other tools (the
MCP server, the OpenAI-compatible endpoint) also search and look papers up by id. None of them reaches the
store, the retriever or a backend itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from assistant.follow_up import clean_question
from assistant.llm.registry import backend_names
from assistant.modes import MODES
from assistant.settings import Settings
from assistant.types import Answer, Event, Filters, Paper, Retrieval, Turn

if TYPE_CHECKING:
    from vectorstore.ingest import IngestReport

__all__ = ["AssistantFace", "Limits", "MODES", "backend_names", "clean_question"]


@dataclasses.dataclass(frozen=True)
class Limits:
    """The bounds the UI shows and enforces before it asks."""

    max_question_chars: int
    default_k: int

    @classmethod
    def from_settings(cls, settings: Settings) -> Limits:
        return cls(settings.chain.max_question_chars, settings.retrieval.k)


class AssistantFace(Protocol):
    """A ready assistant, as the UI uses it."""

    @property
    def settings(self) -> Settings: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def backend_name(self) -> str: ...

    def stream(
        self,
        question: str,
        history: Sequence[Turn] = (),
        *,
        mode: str = "auto",
        filters: Filters | None = None,
        k: int | None = None,
    ) -> Iterator[Event]: ...

    def ask(self, question: str, history: Sequence[Turn] = (), **kwargs: Any) -> Answer: ...

    def papers(self) -> Iterable[Paper]: ...

    def search(self, query: str, *, filters: Filters | None = None, k: int | None = None) -> Retrieval: ...

    def paper(self, paper_id: str) -> Paper | None: ...

    def topic_score(self, topic: str) -> float: ...

    def stats(self) -> dict[str, Any]: ...

    def ingest(self, paths: list[Path], on_progress: Callable[[int], None] | None = None) -> IngestReport: ...

    def key_note(self) -> str: ...

    def with_backend(self, name: str, model: str = "", base_url: str = "") -> AssistantFace: ...
