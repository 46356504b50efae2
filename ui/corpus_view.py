"""The corpus mode's result in the UI: the matching papers as a sortable table (title, venue, status, area,
link), a CSV of them to download, a bar chart when a breakdown was asked for, and the criterion to edit and
ask again. Everything shown is the `CorpusResult` the query computed (assistant.corpus_stats).

The chart is horizontal HTML bars, not a plot component: group names such as "alignment, fairness, safety,
privacy, and societal considerations" are unreadable as slanted axis labels in a side panel, and the
bars show at once, with each group's count and share written beside it."""

from __future__ import annotations

import csv
import html
import re
import tempfile
from pathlib import Path
from typing import Any, Literal

import gradio as gr
import pandas as pd

from assistant.corpus_stats import CorpusResult, Group
from assistant.types import Answer

__all__ = [
    "COLUMNS",
    "COLUMN_WIDTHS",
    "DATATYPES",
    "link_cell",
    "CHART_GROUPS",
    "papers_frame",
    "groups_frame",
    "groups_html",
    "write_csv",
    "corpus_updates",
    "HIDDEN",
]

COLUMNS = ["title", "venue", "status", "area", "link"]
# In pixels: the panel is narrow, so the table scrolls sideways rather than squeezing titles to a word a line.
COLUMN_WIDTHS: list[str | int] = ["320px", "96px", "76px", "220px", "110px"]
DATATYPES: list[Literal["str", "markdown"]] = [
    "str",
    "str",
    "str",
    "str",
    "markdown",
]  # the link is a short "[openreview.net](…)" link
CHART_GROUPS = 20  # bars in the chart; the answer's text and the CSV keep every group
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def papers_frame(result: CorpusResult) -> pd.DataFrame:
    """The matching papers, one row each, in the answer's order."""
    rows = [{**r, "link": link_cell(r["link"])} for r in result.rows()]
    return pd.DataFrame([[r[c] for c in COLUMNS] for r in rows], columns=COLUMNS)


def link_cell(url: str) -> str:
    """A table cell linking `url` by its host ("[openreview.net](https://…)"); anything but an http(s) URL
    is shown as plain text, so a list cannot put a javascript: link or markup in the table."""
    match = re.fullmatch(r"https?://([^/\s?#]+)[^\s]*", url.strip())
    if not match:
        return re.sub(r"[\[\]()<>`*_]", " ", url)
    target = url.strip().replace("(", "%28").replace(")", "%29").replace("<", "%3C").replace(">", "%3E")
    return f"[{match.group(1).removeprefix('www.')}]({target})"


def groups_frame(result: CorpusResult) -> pd.DataFrame | None:
    """The breakdown's groups (name, papers; most first) for the bar chart, or None without a breakdown."""
    shown = _largest(result)
    if shown is None:
        return None
    return pd.DataFrame({"group": [g.name for g in shown], "papers": [g.count for g in shown]})


def _largest(result: CorpusResult) -> list[Group] | None:
    """The `CHART_GROUPS` largest groups of a breakdown, most papers first; None without a breakdown."""
    if not result.criterion.group or not result.groups:
        return None
    return sorted(result.groups, key=lambda g: -g.count)[:CHART_GROUPS]


def groups_html(result: CorpusResult) -> str | None:
    """The breakdown as horizontal bars (most papers first, the `CHART_GROUPS` largest), each labelled with
    its group, count and share; None without a breakdown. Group names are escaped: they come from the lists."""
    shown = _largest(result)
    if shown is None:
        return None
    top = max(g.count for g in shown) or 1
    whole = result.count or sum(g.count for g in result.groups) or 1
    rows = []
    for group in shown:
        if group.total:  # a share of the group's own denominator ("12 of 224 ICLR orals")
            figure = f"{group.count:,} of {group.total:,} ({group.count / group.total:.1%})"
        else:
            figure = f"{group.count:,} ({group.count / whole:.1%})"
        name = html.escape(group.name or "(none)")
        rows.append(
            f'<div class="pc-bar-row" data-group="{name}" data-count="{group.count}">'
            f'<span class="pc-bar-label" title="{name}">{name}</span>'
            f'<span class="pc-bar-track"><span class="pc-bar" style="width:{100 * group.count / top:.1f}%">'
            f'</span></span><span class="pc-bar-n">{figure}</span></div>'
        )
    more = len(result.groups) - len(shown)
    tail = (
        f'<div class="pc-bar-more">… and {more:,} smaller groups (all in the answer and the CSV)</div>'
        if more > 0
        else ""
    )
    title = html.escape(f"Papers by {result.criterion.group}")
    return f'<div class="pc-bars" role="figure" aria-label="{title}"><div class="pc-bars-title">{title}</div>{"".join(rows)}{tail}</div>'


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
    gr.update(value="", visible=False),
    gr.update(value=None),
    gr.update(value=None, interactive=False),
)


def corpus_updates(answer: Answer | None, folder: Path) -> tuple[Any, ...]:
    """(the panel, the criterion box, the chart, the table, the CSV button) for `answer`: shown for a corpus
    answer, hidden for any other."""
    result = answer.corpus if answer is not None else None
    if result is None:
        return HIDDEN
    chart = groups_html(result)
    count = "unknown" if result.count is None else f"{result.count:,}"
    return (
        gr.update(visible=True, label=f"Matching papers · {count}"),
        gr.update(value=result.criterion.to_text()),
        gr.update(value=chart or "", visible=chart is not None),
        gr.update(value=papers_frame(result)),
        gr.update(value=str(write_csv(result, folder)), interactive=bool(result.papers)),
    )
