"""Sources look like a conference site: title, venue and year, status, authors, area and keywords, links."""

from __future__ import annotations

from assistant.types import Answer, Citation, Filters, Paper, SearchResult
from ui.render import header_html, link_label, loaded_summary, sources_html, stats_html

ICLR = Paper(
    paper_id="02NbD16OnA",
    title="Seeing Through Deception",
    abstract="We introduce DeceptionDecoded.",
    venue="ICLR",
    year=2026,
    status="Oral",
    keywords=["misinformation", "vision-language models"],
    urls=["https://openreview.net/forum?id=02NbD16OnA", "https://openreview.net/pdf?id=02NbD16OnA"],
    extra={"primary_area": "datasets and benchmarks", "decision": "ConditionalOral"},
)
ICML = Paper(
    paper_id="71027",
    title="Do We Need Adam?",
    abstract="We study optimizers. Code: https://github.com/x/y",
    venue="ICML",
    year=2026,
    status="Poster",
    authors=[f"Author {i}" for i in range(9)],
    urls=["https://icml.cc/virtual/2026/poster/71027"],
)
STATS = {
    "papers": 11226,
    "chunks": 20000,
    "embedding_model": "m",
    "venues": {"ICLR 2026": 5358, "ICML 2026": 5868},
    "statuses": {
        "ICLR 2026": {"Oral": 224, "Poster": 5134},
        "ICML 2026": {"Oral": 167, "Poster": 5695, "unknown": 6},
    },
}


def _answer() -> Answer:
    results = [SearchResult(paper=p, chunk=p.abstract, score=0.5, span=(0, 0)) for p in (ICLR, ICML)]
    citation = Citation(
        n=1,
        paper_id=ICLR.paper_id,
        label=ICLR.label,
        title=ICLR.title,
        venue="ICLR",
        year=2026,
        abstract=ICLR.abstract,
    )
    return Answer("DeceptionDecoded [1].", True, "ask", "q", [citation], results, Filters())


def test_a_card_shows_what_a_conference_site_shows() -> None:
    html = sources_html(_answer(), turn=1)
    iclr, icml = html.split('<div class="pc-card"')[1:3]
    assert "Seeing Through Deception" in iclr and "ICLR 2026" in iclr
    assert 'class="pc-status pc-status-oral">Oral (conditional)</span>' in iclr
    assert "<b>datasets and benchmarks</b> · misinformation, vision-language models" in iclr
    assert (
        ">OpenReview</a>" in iclr
        and ">PDF</a>" in iclr
        and 'href="https://openreview.net/pdf?id=02NbD16OnA"' in iclr
    )
    assert "pc-authors" not in iclr  # the ICLR list has no authors: no empty line
    assert "Author 0, Author 1, Author 2, Author 3, Author 4, Author 5 and 3 more" in icml
    assert ">ICML page</a>" in icml and ">code: github.com</a>" in icml and "pc-status-poster" in icml


def test_link_labels() -> None:
    assert link_label("https://openreview.net/forum?id=x") == "OpenReview"
    assert link_label("https://icml.cc/virtual/2026/poster/1") == "ICML page"
    assert link_label("https://arxiv.org/abs/1") == "arxiv.org"


def test_the_header_and_the_corpus_tab_say_what_is_loaded() -> None:
    assert loaded_summary(STATS) == (
        "ICLR 2026: 5,358 papers (5,134 posters, 224 orals); "
        "ICML 2026: 5,868 papers (5,695 posters, 167 orals)"
    )
    header = header_html(STATS, "local")
    assert "11,226 research-paper abstracts" in header and "ICML 2026: 5,868 papers" in header
    table = stats_html(STATS)
    assert "<th>Oral</th><th>Poster</th><th>unknown</th>" in table
    assert "<td>ICML 2026</td><td>5,868</td><td>167</td><td>5,695</td><td>6</td>" in table
