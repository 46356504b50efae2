"""Citation checking on real abstracts with the real MiniLM embedder."""

from __future__ import annotations

import pytest

from assistant.citations import (
    MISCITE_MARGIN,
    LiveRenumber,
    SupportScorer,
    cite_plain,
    parse_numbers,
    validate_citations,
)
from assistant.types import SearchResult
from tests.chat_support import sample_retriever

THRESHOLD = 0.5


@pytest.fixture(scope="module")
def sources() -> list[SearchResult]:
    found = sample_retriever().retrieve("spiking neural networks language modeling energy efficiency", k=5)
    labels = [r.paper.label for r in found.results]
    assert "SmoothSpike" in labels and "Spik4lite" in labels
    return found.results


@pytest.fixture(scope="module")
def scorer() -> SupportScorer:
    return SupportScorer(sample_retriever().embed)


def number_of(sources: list[SearchResult], label: str) -> int:
    return next(i for i, r in enumerate(sources, 1) if r.paper.label == label)


def test_parse_numbers() -> None:
    assert parse_numbers("1") == [1]
    assert parse_numbers("2, 3") == [2, 3]
    assert parse_numbers("1-3") == [1, 2, 3]
    assert parse_numbers("4–5, 1") == [4, 5, 1]
    assert parse_numbers("Source 2") == [2]


def test_invalid_numbers_are_removed_counted_and_never_shown(sources, scorer) -> None:
    smooth = number_of(sources, "SmoothSpike")
    text = (
        f"SmoothSpike smooths pre-activation inputs with a randomized Hadamard transform [{smooth}, 9]. [12]"
    )
    checked = validate_citations(text, sources, scorer, threshold=THRESHOLD)
    assert checked.removed == 2
    assert "9" not in checked.text and "12" not in checked.text
    assert checked.text.endswith("[1].")
    assert [c.label for c in checked.citations] == ["SmoothSpike"]


def test_citations_are_renumbered_by_first_use_and_match_the_text(sources, scorer) -> None:
    smooth, lite = number_of(sources, "SmoothSpike"), number_of(sources, "Spik4lite")
    text = (
        f"Spik4lite zeroes out low-efficiency channels of spiking networks on edge devices [{lite}]. "
        f"SmoothSpike applies a randomized Hadamard transformation to pre-activation inputs [{smooth}]."
    )
    checked = validate_citations(text, sources, scorer, threshold=THRESHOLD)
    assert "[1]" in checked.text and "[2]" in checked.text
    assert checked.text.index("[1]") < checked.text.index("[2]")
    assert [(c.n, c.label) for c in checked.citations] == [(1, "Spik4lite"), (2, "SmoothSpike")]


def test_wrong_citation_is_replaced_by_the_supporting_source(sources, scorer) -> None:
    lite = number_of(sources, "Spik4lite")
    text = (
        f"SmoothSpike applies a randomized Hadamard transformation to smooth pre-activation inputs [{lite}]."
    )
    checked = validate_citations(text, sources, scorer, threshold=THRESHOLD)
    assert [c.label for c in checked.citations] == ["SmoothSpike"]
    assert checked.unsupported == []


def test_a_citation_to_a_paper_on_the_same_topic_is_replaced_when_another_supports_it_far_better(
    sources, scorer
) -> None:
    """Spik4lite supports the sentence above the threshold (it shares the spiking-network topic), but SmoothSpike,
    uncited, supports it by more than `MISCITE_MARGIN` more: the citation is the wrong paper. Within that
    margin (MEOM), or beside the best source, a citation stays."""
    smooth, lite, meom = (number_of(sources, label) for label in ("SmoothSpike", "Spik4lite", "MEOM"))
    claim = "SmoothSpike closes the gap between spiking neural networks and ANNs on language tasks with energy-efficient spikes"
    support, _ = scorer.score([claim + "."], sources)
    assert THRESHOLD <= support[0, lite - 1] <= support[0, smooth - 1] - MISCITE_MARGIN
    assert support[0, smooth - 1] - MISCITE_MARGIN < support[0, meom - 1]

    def cited(numbers: str) -> list[str]:
        checked = validate_citations(f"{claim} [{numbers}].", sources, scorer, threshold=THRESHOLD)
        return [c.label for c in checked.citations]

    assert cited(f"{lite}") == ["SmoothSpike"]
    assert cited(f"{meom}") == ["MEOM"]
    assert cited(f"{smooth}, {lite}") == ["SmoothSpike", "Spik4lite"]


def test_missing_citation_is_attached_with_its_span(sources, scorer) -> None:
    text = "The GLUE experiments show an 8.2% average improvement over the Spikingformer baseline."
    checked = validate_citations(text, sources, scorer, threshold=THRESHOLD)
    assert checked.text.endswith("baseline [1].")
    citation = checked.citations[0]
    assert citation.label == "SmoothSpike"
    assert citation.span is not None
    start, end = citation.span
    assert "8.2" in citation.abstract[start:end]


def test_statement_no_source_supports_is_flagged(sources, scorer) -> None:
    text = "The model reaches 95% top-1 accuracy on ImageNet after training on 10,000 TPUs [1]."
    checked = validate_citations(text, sources, scorer, threshold=THRESHOLD)
    assert checked.unsupported == [
        "The model reaches 95% top-1 accuracy on ImageNet after training on 10,000 TPUs."
    ]
    assert checked.supported == 0


def test_marker_after_the_period_belongs_to_the_sentence(sources, scorer) -> None:
    smooth = number_of(sources, "SmoothSpike")
    text = f"SmoothSpike applies a randomized Hadamard transformation to pre-activation inputs. [{smooth}]"
    checked = validate_citations(text, sources, scorer, threshold=THRESHOLD)
    assert checked.text.count("[1]") == 1 and len(checked.citations) == 1


def test_table_cells_are_checked_one_by_one(sources, scorer) -> None:
    smooth, lite = number_of(sources, "SmoothSpike"), number_of(sources, "Spik4lite")
    text = (
        "| | A | B |\n|---|---|---|\n"
        f"| Method | randomized Hadamard transformation of pre-activation inputs [{lite}] | "
        f"zeroing out low-efficiency channels on edge devices [{lite}] |"
    )
    checked = validate_citations(text, sources, scorer, threshold=THRESHOLD)
    assert [c.label for c in checked.citations] == ["SmoothSpike", "Spik4lite"]
    assert "|---|---|---|" in checked.text
    assert smooth  # both numbers existed before


def test_live_renumbering_matches_validation(sources, scorer) -> None:
    text = (
        "Spik4lite compensates for eliminated spikes [3]. Also [9] SmoothSpike uses a Hadamard transform [1]."
    )
    live = LiveRenumber(len(sources))
    streamed = "".join(live.feed(text[i : i + 3]) for i in range(0, len(text), 3)) + live.flush()
    assert "[9]" not in streamed and "Also SmoothSpike" in streamed
    assert streamed.index("[1]") < streamed.index("[2]")


def test_cite_plain_renumbers_without_checking(sources) -> None:
    text, citations = cite_plain("Nearest: A [3], B [1], C [7].", sources)
    assert text == "Nearest: A [1], B [2], C."
    assert [c.paper_id for c in citations] == [sources[2].paper.paper_id, sources[0].paper.paper_id]
