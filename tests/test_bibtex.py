"""BibTeX export (issue 23): every export parses back with bibtexparser, over both full conference lists,
hostile titles and names, repeated keys and anonymous papers."""

from __future__ import annotations

import collections
import html
import re

import bibtexparser
import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware

from assistant.bibtex import bibtex_entries, bibtex_key, booktitle, latex_text, ordinal, paper_url
from tests.conftest import ROOT
from vectorstore.loaders import read_papers
from vectorstore.paper import Paper

LISTS = sorted((ROOT / "corpus" / "conferences").glob("*.jsonl.gz"))
SEEDS = sorted((ROOT.parent / "shared" / "corpus" / "seeds").glob("*.txt"))
_UNESCAPE = [
    (r"\textbackslash{}", "\\"),
    (r"\textbraceleft{}", "{"),
    (r"\textbraceright{}", "}"),
    (r"\textasciicircum{}", "^"),
    (r"\textasciitilde{}", "~"),
    *((f"\\{c}", c) for c in "&%#_$"),
]


def unlatex(value: str) -> str:
    """The inverse of latex_text's escaping, applied left to right as a LaTeX reader would."""
    pattern = re.compile("|".join(re.escape(k) for k, _ in _UNESCAPE))
    table = dict(_UNESCAPE)
    return pattern.sub(lambda m: table[m.group(0)], value)


def parse(text: str) -> bibtexparser.Library:
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    assert len(library.entries) == text.count("\n@") + text.startswith("@")
    return library


def balanced(text: str) -> bool:
    """BibTeX's own rule: braces counted with no regard to backslashes never go below zero and end at zero."""
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


@pytest.fixture(scope="module")
def full_lists() -> list[Paper]:
    papers = [p for path in LISTS for p in read_papers(path, [])]
    assert {p.venue for p in papers} == {"ICLR", "ICML"} and len(papers) > 11_000
    return papers


def test_both_full_lists_export_and_parse_back_field_for_field(full_lists: list[Paper]) -> None:
    text = bibtex_entries(full_lists)
    library = parse(text)
    entries = library.entries
    assert len(entries) == len(full_lists)
    keys = [e.key for e in entries]
    assert len(set(keys)) == len(keys)
    assert all(re.fullmatch(r"[a-z]+2026[a-z0-9]*", k) for k in keys)
    for paper, entry in zip(full_lists, entries, strict=True):
        assert entry.entry_type == "inproceedings"
        assert entry.raw is not None and balanced(entry.raw)
        assert unlatex(entry["title"]) == paper.title
        assert entry["year"] == "2026"
        if paper.venue == "ICLR":
            assert entry["author"] == "Anonymous"  # the ICLR list names no authors
            assert entry["booktitle"] == "The Fourteenth International Conference on Learning Representations"
            assert entry["url"] == f"https://openreview.net/forum?id={paper.paper_id}"
        else:
            names = [html.unescape(html.unescape(a)) for a in paper.authors]  # 15 names are HTML-escaped
            assert unlatex(entry["author"]).split(" and ") == names
            assert entry["booktitle"] == "Forty-third International Conference on Machine Learning"
            forum = [u for u in paper.urls if u.startswith("https://openreview.net/forum?id=")]
            page = [u for u in paper.urls if u.startswith("https://icml.cc/virtual/2026/poster/")]
            assert entry["url"] == (forum or page)[0]  # most ICML papers have an OpenReview forum too


def test_keys_are_surname_year_first_title_word_and_repeats_get_letters(full_lists: list[Paper]) -> None:
    adam = next(p for p in full_lists if p.title.startswith("Do We Need Adam?"))
    assert bibtex_key(adam) == "mukherjee2026do"
    keys = [e.key for e in parse(bibtex_entries(full_lists)).entries]
    base = collections.Counter(bibtex_key(p) for p in full_lists)
    crowded, count = base.most_common(1)[0]
    assert count > 2  # 'anonymous2026towards' and the like repeat in the anonymous list
    assert [k for k in keys if k.startswith(crowded) and len(k) <= len(crowded) + 1][:3] == [
        crowded,
        crowded + "b",
        crowded + "c",
    ]


@pytest.mark.parametrize(
    ("title", "authors", "key"),
    [
        ("On the Scaling of Transformers", ["Ada Lovelace"], "lovelace2026scaling"),
        ("A Survey of Things", ["Dilek Hakkani-Tür"], "hakkanitur2026survey"),
        ("The Öffnung of Straße", ["Łukasz Kaiser"], "kaiser2026offnung"),
        ("Self-Supervised Learning", ["Smith, John"], "smith2026self"),
        ("Towards Robustness", ["Martin Luther King Jr."], "king2026towards"),
        ("$\\alpha$-Divergences", ["张伟", "Wei Zhang"], "unknown2026alpha"),
        ("", ["Ann Lee"], "lee2026we"),
        ("Induction Heads", ["Francesco D&amp;#x27;Angelo"], "dangelo2026induction"),
    ],
)
def test_key_rules(title: str, authors: list[str], key: str) -> None:
    paper = Paper(
        paper_id="p1", abstract="We study things.", title=title, venue="ICML", year=2026, authors=authors
    )
    assert bibtex_key(paper) == key


HOSTILE = [
    "Evil } title {{ with % & # _ $x^2$ ~ \\end{document}",
    "@misc{injected, title={x}}",
    "}, author={Mallory}, note={",
    "Line one\nline two\ttabbed\x00nul\u2028sep",
    "Unicode stays: Ünïcödé 中文 — “quoted”",
    "\\",
    "{",
]


@pytest.mark.parametrize("title", HOSTILE)
def test_hostile_titles_stay_one_literal_field(title: str) -> None:
    paper = Paper(paper_id="h1", abstract="x", title="placeholder", venue="ICLR", year=2026)
    paper.title = title  # as a caller could set it, without the loader's normalisation
    text = bibtex_entries([paper, paper])
    (first, second) = parse(text).entries
    assert first.key != second.key
    for entry in (first, second):
        assert entry.raw is not None and balanced(entry.raw)
        assert set(entry.fields_dict) == {"title", "author", "booktitle", "year"}
        assert entry["author"] == "Anonymous"
        assert "\n" not in entry["title"] and "\x00" not in entry["title"]
        assert unlatex(entry["title"]) == " ".join(re.split(r"[\s\x00\u2028]+", title)).strip()
    assert "Ünïcödé 中文" in text or "Ünïcödé" not in title  # UTF-8 kept, not transliterated


def test_specials_decode_back_to_the_text_through_a_latex_reader() -> None:
    paper = Paper(
        paper_id="s1",
        abstract="x",
        title="Cost & Benefit: 50% of #1 in snake_case $5",
        venue="ICML",
        year=2026,
    )
    library = bibtexparser.parse_string(
        bibtex_entries([paper]), append_middleware=[LatexDecodingMiddleware()]
    )
    assert library.entries[0]["title"] == paper.title


def test_author_names_that_bibtex_would_split_or_reorder_are_braced() -> None:
    authors = ["Jane and Doe", "Smith, John", "Zoë Ørsted", "Ann {Lee}", "Charles O&amp;#x27;Neill"]
    paper = Paper(paper_id="a1", abstract="x", title="T", venue="ICML", year=2026, authors=authors)
    (entry,) = parse(bibtex_entries([paper])).entries
    assert entry["author"] == (
        "{Jane and Doe} and {Smith, John} and Zoë Ørsted and Ann \\textbraceleft{}Lee\\textbraceright{}"
        " and Charles O'Neill"
    )
    assert entry.raw is not None and balanced(entry.raw)


def test_urls_are_web_links_made_safe_inside_braces() -> None:
    paper = Paper(
        paper_id="u1",
        abstract="x",
        title="T",
        venue="ICLR",
        year=2026,
        urls=[
            "javascript:alert(1)",
            "https://openreview.net/pdf?id=u1",
            "https://openreview.net/forum?id=u1",
        ],
    )
    assert paper_url(paper) == "https://openreview.net/forum?id=u1"
    paper.urls = ["https://example.org/a b{c}\\d"]
    assert paper_url(paper) == "https://example.org/a%20b%7Bc%7D%5Cd"
    paper.urls = ["javascript:alert(1)", "file:///etc/passwd"]
    (entry,) = parse(bibtex_entries([paper])).entries
    assert "url" not in entry.fields_dict


def test_booktitles_for_other_years_and_venues() -> None:
    assert booktitle("ICLR", 2025) == "The Thirteenth International Conference on Learning Representations"
    assert booktitle("ICML", 2025) == "Forty-second International Conference on Machine Learning"
    assert booktitle("NeurIPS", 2025) == "NeurIPS 2025"
    assert booktitle("Workshop on X 2024", 2024) == "Workshop on X 2024"
    assert [ordinal(n) for n in (1, 14, 20, 43, 99)] == [
        "First",
        "Fourteenth",
        "Twentieth",
        "Forty-third",
        "Ninety-ninth",
    ]
    no_venue = Paper(paper_id="m1", abstract="We do x.", title="Loose Paper", authors=["Ann Lee"])
    (entry,) = parse(bibtex_entries([no_venue])).entries
    assert entry.entry_type == "misc" and entry.key == "leeloose" and "year" not in entry.fields_dict


def test_seed_papers_without_titles_export_with_a_note() -> None:
    papers = [p for path in SEEDS for p in read_papers(path, [])]
    assert papers and any(not p.title for p in papers)
    entries = parse(bibtex_entries(papers)).entries
    assert len({e.key for e in entries}) == len(papers)
    for paper, entry in zip(papers, entries, strict=True):
        assert unlatex(entry["title"]) == (paper.title or paper.label)
        assert ("note" in entry.fields_dict) == (not paper.title)


def test_empty_export_is_empty_and_latex_text_is_idempotent_free() -> None:
    assert bibtex_entries([]) == ""
    assert latex_text("a\\b") == "a\\textbackslash{}b"  # escaped once, never re-read as a command
