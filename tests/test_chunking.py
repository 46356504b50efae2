"""Sentence splitting and chunking, on the sample abstracts and on texts built to hit the edge cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from vectorstore.chunking import Chunk, chunk_text, split_sentences
from vectorstore.loaders import read_papers


@pytest.fixture(scope="module")
def abstracts(sample_files: list[Path]) -> list[str]:
    issues: list = []
    texts = [p.abstract for f in sample_files for p in read_papers(f, issues)]
    assert len(texts) == 38 and not issues
    return texts


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


# ---------------------------------------------------------------------------------------------- sentences


def test_splits_plain_sentences() -> None:
    text = "We study graphs. Our method is fast! Does it scale? Yes, to 10 million nodes."
    assert sentences(text) == [
        "We study graphs.",
        "Our method is fast!",
        "Does it scale?",
        "Yes, to 10 million nodes.",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Many tasks, e.g. Image classification and detection, benefit from this.",
        "We use a single model, i.e. One network, for all tasks.",
        "As shown by Smith et al. This effect is robust.",
        "We compare against baselines (cf. Table 2) and report results.",
        "The method improves accuracy by 3.5 points and reduces error by 0.27.",
        "Results in Fig. 3 show the trend.",
    ],
)
def test_abbreviations_and_decimals_do_not_end_a_sentence(text: str) -> None:
    assert sentences(text) == [text]


def test_abbreviation_then_real_boundary() -> None:
    text = "We follow Lee et al. Their model reaches 91.2% accuracy. We then improve it by 2.5 points."
    assert sentences(text) == [
        "We follow Lee et al. Their model reaches 91.2% accuracy.",
        "We then improve it by 2.5 points.",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'They call it "robust." Then (as expected.) It fails.',
            ['They call it "robust."', "Then (as expected.)", "It fails."],
        ),
        (  # a LaTeX brace and curly quotes
            "This raises a question: \\emph{what is the minimal capacity?} To address it, we call it “robust.” It fails.",
            [
                "This raises a question: \\emph{what is the minimal capacity?}",
                "To address it, we call it “robust.”",
                "It fails.",
            ],
        ),
    ],
)
def test_closing_quote_brace_or_bracket_stays_with_its_sentence(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_sentence_spans_cover_the_text_apart_from_whitespace(abstracts: list[str]) -> None:
    for text in abstracts:
        spans = split_sentences(text)
        assert len(spans) >= 3
        assert spans[0][0] == 0 and spans[-1][1] == len(text)
        for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
            assert end <= start and text[end:start].strip() == ""


def test_empty_and_blank_text_have_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences("   \n ") == []
    assert chunk_text("") == []


# ---------------------------------------------------------------------------------------------- chunks


def assert_spans_exact(text: str, chunks: list[Chunk]) -> None:
    for index, chunk in enumerate(chunks):
        assert chunk.index == index
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.text.strip() == chunk.text and chunk.text


def assert_covers(text: str, chunks: list[Chunk]) -> None:
    covered = bytearray(len(text))
    for chunk in chunks:
        covered[chunk.start : chunk.end] = b"\x01" * (chunk.end - chunk.start)
    missing = [i for i, c in enumerate(covered) if not c and not text[i].isspace()]
    assert missing == [], f"characters not in any chunk: {text[missing[0] : missing[0] + 40]!r}"


@pytest.mark.parametrize("size", [120, 300, 700, 1000])
@pytest.mark.parametrize("overlap", [0, 1, 2])
def test_chunks_slice_exactly_and_cover_the_abstract(abstracts: list[str], size: int, overlap: int) -> None:
    for text in abstracts:
        chunks = chunk_text(text, size=size, overlap=overlap)
        assert chunks
        assert_spans_exact(text, chunks)
        assert_covers(text, chunks)


@pytest.mark.parametrize("size", [300, 700, 1000])
def test_chunks_respect_the_size(abstracts: list[str], size: int) -> None:
    n_multi = 0
    for text in abstracts:
        spans = split_sentences(text)
        for chunk in chunk_text(text, size=size, overlap=1):
            inside = [s for s in spans if chunk.start <= s[0] and s[1] <= chunk.end]
            if len(inside) > 1:
                n_multi += 1
                assert len(chunk.text) <= size
            else:  # a sentence longer than `size` stands alone, but never exceeds twice the size
                assert len(chunk.text) <= size * 2
    assert n_multi > 0  # the samples do produce multi-sentence chunks at these sizes


def test_chunks_start_and_end_on_sentence_boundaries(abstracts: list[str]) -> None:
    for text in abstracts:
        spans = split_sentences(text)
        starts, ends = {s for s, _ in spans}, {e for _, e in spans}
        assert max(e - s for s, e in spans) <= 1000  # no sentence needs cutting at size 500
        for chunk in chunk_text(text, size=500, overlap=1):
            assert chunk.start in starts and chunk.end in ends


@pytest.mark.parametrize("overlap", [0, 1, 2])
def test_consecutive_chunks_share_the_overlap_in_sentences(abstracts: list[str], overlap: int) -> None:
    size = 400
    shared_counts = []
    for text in abstracts:
        spans = split_sentences(text)
        chunks = chunk_text(text, size=size, overlap=overlap)
        for a, b in zip(chunks, chunks[1:], strict=False):
            shared = [s for s in spans if b.start <= s[0] and s[1] <= a.end]
            assert len(shared) <= overlap
            assert b.end > a.end  # every chunk brings at least one sentence the previous one lacked
            shared_counts.append(len(shared))
            if len(shared) < overlap:  # overlap shrinks only when the full overlap leaves no room
                first_shared = next(i for i, s in enumerate(spans) if s[0] == b.start)
                bigger = spans[first_shared - 1][0]
                assert max(e for _, e in spans if e <= b.end) - bigger > size or first_shared == 0
    assert shared_counts and max(shared_counts) == overlap


def test_no_chunk_is_contained_in_the_previous_one() -> None:
    # three 90-character sentences then one of 200: with size 250 and overlap 1 the old code emitted the
    # third sentence again as a chunk of its own, adding nothing.
    s = "Alpha " + "word " * 16 + "end."
    long = "Omega " + "word " * 38 + "end."
    text = " ".join([s, s.replace("Alpha", "Beta"), s.replace("Alpha", "Gamma"), long])
    chunks = chunk_text(text, size=250, overlap=1)
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert not (a.start <= b.start and b.end <= a.end)
    assert_covers(text, chunks)


def test_overlap_zero_chunks_are_disjoint(abstracts: list[str]) -> None:
    for text in abstracts:
        chunks = chunk_text(text, size=300, overlap=0)
        for a, b in zip(chunks, chunks[1:], strict=False):
            assert a.end <= b.start


def test_a_short_abstract_is_one_chunk() -> None:
    text = "We propose X. It works well."
    assert chunk_text(text, size=700) == [Chunk(0, text, 0, len(text))]


def test_a_sentence_longer_than_twice_the_size_is_cut_but_not_lost() -> None:
    # a run-on "sentence" with no boundary (e.g. an abstract without periods, or in Chinese)
    text = "We propose a method " + "that keeps going and going " * 200 + "until the end."
    size = 300
    chunks = chunk_text(text, size=size, overlap=1)
    assert len(chunks) > 1
    assert all(len(c.text) <= size * 2 for c in chunks)
    assert_spans_exact(text, chunks)
    assert_covers(text, chunks)
    chinese = "我们提出了一种新的方法" * 300
    chunks = chunk_text(chinese, size=size)
    assert "".join(c.text for c in chunks) == chinese
