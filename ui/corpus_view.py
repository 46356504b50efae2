"""The corpus mode's result in the UI: the matching papers as a sortable table (title, venue, status, area,
link), a CSV of them to download, a bar chart when a breakdown was asked for, and the criterion to edit and
ask again. Everything shown is the `CorpusResult` the query computed (assistant.corpus_stats)."""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from assistant.corpus_stats import CorpusResult
from assistant.types import Answer

__all__ = ["COLUMNS", "CHART_GROUPS", "papers_frame", "groups_frame", "write_csv", "corpus_updates", "HIDDEN"]

COLUMNS = ["title", "venue", "status", "area", "link"]
CHART_GROUPS = 20  # bars in the chart; the answer's text and the CSV keep every group
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def papers_frame(result: CorpusResult) -> pd.DataFrame:
    """The matching papers, one row each, in the answer's order."""
    rows = result.rows()
    return pd.DataFrame([[r[c] for c in COLUMNS] for r in rows], columns=COLUMNS)


def groups_frame(result: CorpusResult) -> pd.DataFrame | None:
    """The breakdown's groups (name, papers; most first) for the bar chart, or None without a breakdown."""
    if not result.criterion.group or not result.groups:
        return None
    shown = sorted(result.groups, key=lambda g: -g.count)[:CHART_GROUPS]
    return pd.DataFrame({"group": [g.name for g in shown], "papers": [g.count for g in shown]})


def _cell(value: str) -> str:
    """A CSV cell a spreadsheet shows as text: a leading formula character is quoted with "'"."""
    return "'" + value if value.startswith(_FORMULA) else value


def write_csv(result: CorpusResult, folder: Path) -> Path:
    """All matching papers as CSV (paper id first), in a new file under `folder`."""
    path = Path(tempfile.mkdtemp(dir=folder)) / "paperchat-papers.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["paper_id", *COLUMNS])
        for row in result.rows():
            writer.writerow([_cell(row["paper_id"]), *(_cell(row[c]) for c in COLUMNS)])
    return path


HIDDEN: tuple[Any, ...] = (
    gr.update(visible=False),
    gr.update(value=""),
    gr.update(value=None, visible=False),
    gr.update(value=None),
    gr.update(value=None, interactive=False),
)


def corpus_updates(answer: Answer | None, folder: Path) -> tuple[Any, ...]:
    """(the panel, the criterion box, the chart, the table, the CSV button) for `answer`: shown for a corpus
    answer, hidden for any other."""
    result = answer.corpus if answer is not None else None
    if result is None:
        return HIDDEN
    chart = groups_frame(result)
    title = f"By {result.criterion.group}" if chart is not None else None
    count = "unknown" if result.count is None else f"{result.count:,}"
    return (
        gr.update(visible=True, label=f"Matching papers · {count}"),
        gr.update(value=result.criterion.to_text()),
        gr.update(value=chart, visible=chart is not None, title=title),
        gr.update(value=papers_frame(result)),
        gr.update(value=str(write_csv(result, folder)), interactive=bool(result.papers)),
    )
