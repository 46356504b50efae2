"""The names and words a question asks about that no paper mentions (assistant.coverage), over the real lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.coverage import MIN_PAPERS_FOR_WORDS, NameIndex, question_names
from vectorstore.lexical import LexicalIndex
from vectorstore.loaders import read_papers
from vectorstore.paper import Paper

ROOT = Path(__file__).resolve().parent.parent
LISTS = sorted((ROOT / "corpus" / "conferences").glob("*.jsonl.gz"))


@pytest.fixture(scope="module")
def papers() -> list[Paper]:
    out: list[Paper] = []
    for path in LISTS:
        out.extend(read_papers(path, []))
    assert len(out) > MIN_PAPERS_FOR_WORDS
    return out


@pytest.fixture(scope="module")
def index(papers: list[Paper]) -> NameIndex:
    return NameIndex(papers)


def test_names_are_what_a_reader_takes_for_names() -> None:
    q = "What speedup does the FlashGlide kernel report over FlashAttention-2 on LIGO data from Kenya in 2024?"
    assert question_names(q) == ["FlashGlide", "FlashAttention-2", "LIGO", "Kenya"]
    assert question_names("Which paper uses a 15-day window?") == []  # the opening word and a duration
    assert question_names("How are TransLingua-7B and ERA5 used?") == ["TransLingua-7B", "ERA5"]


@pytest.mark.parametrize(
    "question, absent",
    [
        ("What speedup does the FlashGlide attention kernel report over FlashAttention-2?", ["FlashGlide"]),
        ("How does the QuasarAdam optimizer adapt its learning rate?", ["QuasarAdam"]),
        ("How are LIGO detector glitches classified with deep learning?", ["LIGO"]),
        ("What benchmark results does HyperMamba-X report on long-range arena?", ["HyperMamba-X"]),
        ("What is the perplexity of TransLingua-7B on WMT?", ["TransLingua-7B"]),  # WMT is context
        ("How is the PRISMA-9 tokenizer trained?", ["PRISMA-9"]),  # PRISMA has no versions in the lists
    ],
)
def test_made_up_names_are_absent(index: NameIndex, question: str, absent: list[str]) -> None:
    assert index.absent(question) == absent


@pytest.mark.parametrize(
    "question",
    [
        "How much faster is PBS-Attn than FlashAttention-2?",
        "Does anything beat flash attention or Flash-Attention on long contexts?",  # spelling variants
        "What does FlashAttention-7 change?",  # another version of a versioned name
        "Which forecasting network beats ECMWF on ERA5?",  # ECMWF occurs as part of "ECMWF-S2S"
        "Which study shows AI-text detectors wrongly flag LLM-edited reviews?",  # a compound of known parts
        "How do LLMs and GNNs compare on CIFAR-10 and ImageNet?",
    ],
)
def test_names_the_papers_use_are_present(index: NameIndex, question: str) -> None:
    assert index.absent(question) == []


def test_unknown_words_and_misspellings(index: NameIndex, papers: list[Paper]) -> None:
    assert index.unknown_words("Which graph network predicts groundwater levels?") == ["groundwater"]
    assert index.unknown_words("Can a transformer forecast volcanic eruptions?") == ["volcanic", "eruptions"]
    assert index.unknown_words("Which transfomer models use sparse atention?") == []  # typos of used words
    assert index.unknown_words("Which papers study diffusion models?") == []
    small = NameIndex(papers[:50])  # a few dozen abstracts: an unused word says little
    assert small.unknown_words("Which graph network predicts groundwater levels?") == []
    assert small.absent("How does the QuasarAdam optimizer work?") == ["QuasarAdam"]


def test_nearest_names_for_did_you_mean(index: NameIndex) -> None:
    assert "FlashVID" in index.nearest("FlashVD")


def test_rare_words_none_of_the_closest_papers_use(index: NameIndex, papers: list[Paper]) -> None:
    """A subject the corpus lacks although its words occur somewhere: the closest papers miss the question's
    rarest words and most of its weight. Where they use them, or cover most of the question, nothing is
    flagged; nor over a small store."""
    by_id = {p.paper_id: p for p in papers}
    lexical = LexicalIndex()
    lexical.add_many((p.paper_id, f"{p.title} {p.abstract}") for p in papers)
    used = lexical.doc_freq
    near = [p for p in papers if "satellite" in p.abstract.lower() and "forecast" in p.abstract.lower()][:5]
    question = "Which model forecasts coral bleaching from sea-surface temperature satellite data?"
    assert near and not any("bleach" in p.abstract.lower() for p in near)
    assert "bleaching" in index.unmatched(question, near, used)
    bleaching = [p for p in papers if "bleaching" in p.abstract.lower()]
    if bleaching:  # a paper that does use the word answers the question's subject
        assert "bleaching" not in index.unmatched(question, [*near, bleaching[0]], used)
    paraphrase = "Which plug-in strategy cuts the data used per epoch by up to 57% with no loss in accuracy?"
    gold = by_id.get("TUADW7db5n")
    assert gold is not None and index.unmatched(paraphrase, [gold], used) == []
    assert NameIndex(papers[:100]).unmatched(question, near, used) == []  # too few papers to judge words by


def test_a_word_no_paper_writes_weighs_as_unseen_whatever_its_stem(
    index: NameIndex, papers: list[Paper]
) -> None:
    """ "elevators" stems to "elev", which "elevate" and "elevation" make common, but no abstract is about
    elevators: the closest graph-network papers miss the question's subject, and it is flagged."""
    lexical = LexicalIndex()
    lexical.add_many((p.paper_id, f"{p.title} {p.abstract}") for p in papers)
    used = lexical.doc_freq
    assert used("elev") > 20  # the stem alone is not rare
    near = [p for p in papers if "graph neural network" in p.abstract.lower()][:5]
    question = "Which paper uses graph neural networks to schedule elevators in high-rise buildings?"
    assert index.unknown_words(question) == []  # its stem is used, so this check lets it through
    assert "elevators" in index.unmatched(question, near, used)
