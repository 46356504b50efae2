"""One browser session's conversation: the turns the chains need, and the answers to export."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import tempfile
from pathlib import Path

from assistant.types import Answer, Turn

__all__ = ["Exchange", "Conversation", "export_markdown", "write_export"]


@dataclasses.dataclass
class Exchange:
    question: str
    answer: Answer | None
    status: list[str] = dataclasses.field(default_factory=list)
    error: str = ""


@dataclasses.dataclass
class Conversation:
    """Kept in a `gr.State`, so every browser session has its own (Gradio deep-copies the initial value)."""

    exchanges: list[Exchange] = dataclasses.field(default_factory=list)

    def history(self) -> list[Turn]:
        """The completed turns, oldest first, as `Assistant.stream` takes them."""
        turns = []
        for ex in self.exchanges:
            if ex.answer is not None and not ex.error:
                ids = [c.paper_id for c in ex.answer.citations] or [
                    s.paper.paper_id for s in ex.answer.sources
                ]
                turns.append(Turn(ex.question, ex.answer.answer, list(dict.fromkeys(ids))))
        return turns

    @property
    def last_answer(self) -> Answer | None:
        return self.exchanges[-1].answer if self.exchanges else None


def _source_lines(answer: Answer) -> list[str]:
    by_id = {s.paper.paper_id: s for s in answer.sources}
    lines = []
    for c in sorted(answer.citations, key=lambda c: c.n):
        result = by_id.get(c.paper_id)
        paper = result.paper if result else None
        name = (paper.display_name if paper else "") or c.title or c.label
        where = " ".join(str(x) for x in (c.venue, paper.status if paper else "") if x)
        links = [*(paper.urls if paper else []), *(paper.code_links if paper else [])]
        tail = f" — {', '.join(links)}" if links else ""
        lines.append(f"[{c.n}] {name} ({where}){tail}")
    return lines


def export_markdown(conversation: Conversation) -> str:
    """The conversation with each answer's sources, as a Markdown document."""
    out = ["# paperchat conversation", "", f"_Exported {dt.datetime.now():%Y-%m-%d %H:%M}_", ""]
    for i, ex in enumerate(conversation.exchanges, 1):
        out += [f"## {i}. {ex.question}", ""]
        out += [f"> {line}" for line in ex.status]
        if ex.status:
            out.append("")
        if ex.error:
            out += [f"**Error:** {ex.error}", ""]
        if ex.answer is not None:
            out += [ex.answer.answer, ""]
            if ex.answer.notice:
                out += [f"_{ex.answer.notice}_", ""]
            sources = _source_lines(ex.answer)
            if sources:
                out += ["**Sources**", "", *[f"- {s}" for s in sources], ""]
    return "\n".join(out).rstrip() + "\n"


def write_export(conversation: Conversation, folder: Path | None = None) -> Path:
    """Write the export to a fresh file (in `folder` or a temporary one) and return its path."""
    folder = folder or Path(tempfile.mkdtemp(prefix="paperchat-export-"))
    first = conversation.exchanges[0].question if conversation.exchanges else "conversation"
    slug = re.sub(r"[^a-z0-9]+", "-", first.lower()).strip("-")[:40] or "conversation"
    path = folder / f"paperchat-{slug}.md"
    path.write_text(export_markdown(conversation), encoding="utf-8")
    return path
