"""Hybrid retrieval on the real sample corpus: fusion, filters (explicit and parsed), cutoff, BM25 updates."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from assistant.lc_retriever import PaperRetriever
from assistant.query_filters import parse_filters
from assistant.retrieval import HybridRetriever
from assistant.settings import RetrievalSettings
from assistant.types import Filters, SearchResult
from vectorstore.embedders import get_embedder
from vectorstore.ingest import ingest
from vectorstore.store import PaperStore


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, sample_files: list[Path]) -> PaperStore:
    path = tmp_path_factory.mktemp("retrieval") / "store"
    store = PaperStore(path, get_embedder("minilm-onnx"))
    ingest(store, sample_files)
    return store


@pytest.fixture(scope="module")
def retriever(store: PaperStore) -> HybridRetriever:
    return HybridRetriever(store)


def test_results_are_papers_best_first_with_chunk_and_span(retriever: HybridRetriever) -> None:
    found = retriever.retrieve("Hamiltonian prediction model with SO(2)-equivariant backbone", k=5)
    labels = [r.paper.label for r in found.results]
    assert labels[0] == "QHFlow2"
    assert len({r.paper.paper_id for r in found.results}) == len(found.results)
    scores = [r.score for r in found.results]
    assert scores == sorted(scores, reverse=True)
    top = found.results[0]
    assert top.paper.abstract[top.span[0] : top.span[1]] == top.chunk
    assert found.relevant


def test_fusion_finds_what_only_one_retriever_finds(retriever: HybridRetriever) -> None:
    # An exact rare term: BM25 alone finds it; the fused ranking must keep it on top.
    found = retriever.retrieve("NanoAssemblyGym", k=3)
    assert found.results[0].paper.label == "NanoAssemblyGym"
    assert found.results[0].lexical_score > 0
    # A paraphrase with few shared words: dense similarity carries it.
    found = retriever.retrieve(
        "forecasting global weather with a plain U-Net instead of huge specialised models", k=3
    )
    assert found.results[0].paper.label == "U-Cast"
    assert found.results[0].dense_score > 0.3


def test_candidates_found_by_bm25_alone_get_their_dense_score(store: PaperStore) -> None:
    # Few dense neighbours, so some BM25 candidates are not among them.
    query = "spiking neural networks energy"
    narrow = RetrievalSettings(candidates=10, cutoff=0.0)
    without = HybridRetriever(store, narrow.model_copy(update={"fill_dense": False})).retrieve(query, k=20)
    filled = HybridRetriever(store, narrow.model_copy(update={"fill_dense": True})).retrieve(query, k=20)
    lexical_only = [r.paper.paper_id for r in without.results if r.dense_score == 0 and r.lexical_score > 0]
    assert lexical_only, "the test needs a candidate only BM25 found"
    by_id = {r.paper.paper_id: r for r in filled.results}
    vector = store.embedder.embed_query(query)
    for pid in lexical_only:
        result = by_id[pid]
        assert result.dense_score > 0
        # the score is the best stored chunk's cosine to the question, and the span is that chunk's
        got = store.chunks.collection.get(where={"paper_id": pid}, include=["metadatas", "embeddings"])
        sims = [float(np.asarray(e) @ vector / np.linalg.norm(e)) for e in got["embeddings"]]
        top = int(np.argmax(sims))
        assert result.dense_score == pytest.approx(sims[top], abs=1e-5)
        assert result.span == (got["metadatas"][top]["start"], got["metadatas"][top]["end"])
        assert result.paper.abstract[result.span[0] : result.span[1]] == result.chunk
        # and the stored vectors are those of the paper's chunks: re-embedded one at a time they agree to within
        # the int8 embedder's batch-dependent activation scales (1 - cosine up to ~0.016 on the sample chunks)
        fresh = max(
            float(store.embedder.embed([f"{result.paper.title}. {c.text}"])[0] @ vector)
            for c in store.chunk(result.paper)
        )
        assert result.dense_score == pytest.approx(fresh, abs=0.03)


def test_rrf_and_score_fusion_are_both_available(store: PaperStore) -> None:
    rrf = HybridRetriever(store, RetrievalSettings(fusion="rrf"))
    dense = HybridRetriever(store, RetrievalSettings(dense_weight=1.0))
    query = "knowledge distillation for spiking neural networks"
    assert rrf.retrieve(query, k=3).results[0].paper.label in {"MEOM", "BSD"}
    dense_only = dense.retrieve(query, k=5).results
    assert all(r.score == pytest.approx(r.dense_score) for r in dense_only)


def test_explicit_filters(retriever: HybridRetriever) -> None:
    found = retriever.retrieve("spiking neural networks", k=10, filters=Filters(venue="ICML"))
    assert found.results and all(r.paper.venue == "ICML" for r in found.results)
    found = retriever.retrieve("spiking neural networks", k=10, filters=Filters(venue="ICLR", year=2026))
    assert found.results and all(r.paper.venue == "ICLR" for r in found.results)
    assert not retriever.retrieve("spiking", k=10, filters=Filters(year=1999)).results


def test_filters_parsed_from_the_question_are_reported(retriever: HybridRetriever) -> None:
    found = retriever.retrieve("ICML papers on spiking neural networks", k=10)
    assert found.parsed_filters.venue == "ICML"
    assert found.filters.venue == "ICML"
    assert "ICML" not in found.query
    assert all(r.paper.venue == "ICML" for r in found.results)
    filters, cleaned = parse_filters("orals about diffusion from 2026", ["ICLR", "ICML"])
    assert filters.status == "Oral" and filters.year == 2026 and "diffusion" in cleaned
    filters, _ = parse_filters("how do transformers scale", ["ICLR", "ICML"])
    assert filters.is_empty()
    filters, cleaned = parse_filters("ICML papers on neuroscience", ["ICLR", "ICML"])
    assert filters.venue == "ICML" and cleaned == "neuroscience"


def test_a_short_summary_topic_also_matches_the_papers_that_name_it(retriever: HybridRetriever) -> None:
    naming = {
        pid for pid, p in retriever.papers.items() if "neuroscience" in f"{p.title} {p.abstract}".lower()
    }
    assert len(naming) >= 2
    found = retriever.retrieve_all("neuroscience", cap=40)
    assert naming <= {r.paper.paper_id for r in found.results} and found.relevant
    assert retriever.count_matching("neuroscience") == len(found.results)
    icml = retriever.retrieve_all("ICML papers on neuroscience", cap=40)
    assert icml.query == "neuroscience" and icml.results
    assert all(r.paper.venue == "ICML" for r in icml.results)
    assert not retriever.retrieve_all("sourdough fermentation", cap=40).results  # no paper names it
    assert len(retriever.retrieve_all("neuroscience", cap=2).results) == 2


def test_cutoff_separates_off_topic_questions(retriever: HybridRetriever) -> None:
    off_topic = retriever.retrieve("best recipe for a sourdough bread with a crispy crust", k=5)
    assert not off_topic.relevant
    assert off_topic.results, "the nearest papers are still returned for the 'not covered' answer"
    on_topic = retriever.retrieve("metrics for single-cell perturbation response models", k=5)
    assert on_topic.relevant
    everything = retriever.retrieve_all("spiking neural networks", cap=40)
    assert 3 <= len(everything.results) < 38
    assert all(r.score >= everything.cutoff for r in everything.results)


def test_find_resolves_method_names(retriever: HybridRetriever) -> None:
    assert retriever.find("HELM")[0].paper.label == "HELM"
    assert retriever.find("qhflow2")[0].paper.label == "QHFlow2"


def test_langchain_retriever(retriever: HybridRetriever) -> None:
    docs = PaperRetriever(hybrid=retriever, k=3).invoke("hyperbolic geometry of hippocampal tuning curves")
    assert len(docs) == 3
    assert docs[0].metadata["paper_id"] and "chunk" in docs[0].metadata and docs[0].page_content
    assert docs[0].metadata["relevant"] is True


def test_lexical_index_updates_incrementally(tmp_path: Path, sample_files: list[Path]) -> None:
    store = PaperStore(tmp_path / "s", get_embedder("hash"))
    ingest(store, sample_files)
    extra = tmp_path / "extra.jsonl"
    extra.write_text(
        json.dumps(
            {
                "id": "x1",
                "title": "Zyzzogeton optimisation",
                "abstract": "We study the zyzzogeton optimiser on many tasks and datasets; "
                "it converges fast on convex and non-convex objectives alike.",
            }
        )
    )
    store.close()
    reopened = PaperStore(tmp_path / "s", get_embedder("hash"))
    assert reopened.sync_lexical() == 0, "reopening must not re-index everything"
    ingest(reopened, [extra])
    assert len(reopened.lexical) == 39
    assert reopened.lexical.search("zyzzogeton", k=1)[0][0] == "x1"
    again = PaperStore(tmp_path / "s", get_embedder("hash"))
    assert again.lexical.search("zyzzogeton", k=1)[0][0] == "x1"


def _implied_dense_weight(result: SearchResult, half: float) -> float:
    lexical = result.lexical_score / (result.lexical_score + half)
    return (result.score - lexical) / (result.dense_score - lexical)


def test_a_clear_lexical_winner_lowers_the_dense_weight(retriever: HybridRetriever) -> None:
    # The adaptive weight is off by default (the sweep's best setting with the dense fill has gain 0); on:
    settings = retriever.settings.model_copy(update={"lexical_peak_gain": 4.0, "dense_floor": 0.4})
    adaptive = HybridRetriever(retriever.store, settings)
    # A method name only one abstract contains: BM25 has a clear winner, so dense counts for less.
    named = adaptive.retrieve("What does SmoothSpike do?", k=3).results[0]
    assert named.paper.label == "SmoothSpike"
    weight = _implied_dense_weight(named, settings.lexical_half_score)
    assert settings.dense_weight * settings.dense_floor - 1e-6 <= weight < settings.dense_weight
    # Without the adaptive weight the same question is fused with the full dense weight.
    fixed = HybridRetriever(retriever.store, settings.model_copy(update={"lexical_peak_gain": 0.0}))
    plain = fixed.retrieve("What does SmoothSpike do?", k=3).results[0]
    assert _implied_dense_weight(plain, settings.lexical_half_score) == pytest.approx(settings.dense_weight)
