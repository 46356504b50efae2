"""The ONNX (int8) MiniLM: unit vectors that agree with the PyTorch model, and a fingerprint of its own.

The first run exports and quantizes the model into the cache (~30 s); later runs load the cached file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vectorstore.embedders import Embedder, get_embedder
from vectorstore.embedders.onnx_minilm import OnnxMiniLMEmbedder, _write_atomically
from vectorstore.errors import EmbedderMismatchError
from vectorstore.loaders import read_papers
from vectorstore.paper import Paper
from vectorstore.store import PaperStore


@pytest.fixture(scope="module")
def onnx() -> Embedder:
    return get_embedder("minilm-onnx")


@pytest.fixture(scope="module")
def torch_minilm() -> Embedder:
    return get_embedder("minilm")


@pytest.fixture(scope="module")
def abstracts(sample_files: list[Path]) -> list[str]:
    papers = [paper for path in sample_files for paper in read_papers(path, [])]
    chosen = [p.abstract for p in papers if p.abstract][:3] + [p.abstract for p in papers if p.abstract][-3:]
    assert len(chosen) == 6
    return chosen


def test_returns_unit_vectors_of_dimension_384(onnx: Embedder, abstracts: list[str]) -> None:
    vectors = onnx.embed(abstracts)
    assert vectors.shape == (len(abstracts), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_close_to_the_torch_model(onnx: Embedder, torch_minilm: Embedder, abstracts: list[str]) -> None:
    texts = [*abstracts, "graph neural networks for molecules"]
    cosines = np.sum(onnx.embed(texts) * torch_minilm.embed(texts), axis=1)
    assert cosines.min() > 0.95, cosines
    # and it still tells the abstracts apart the way the torch model does
    onnx_vectors, torch_vectors = onnx.embed(abstracts), torch_minilm.embed(abstracts)
    gap = np.abs(onnx_vectors @ onnx_vectors.T - torch_vectors @ torch_vectors.T)
    assert gap.max() < 0.05


def test_fp32_export_matches_torch_closely(torch_minilm: Embedder, abstracts: list[str]) -> None:
    fp32 = OnnxMiniLMEmbedder(quantize=False)
    cosines = np.sum(fp32.embed(abstracts) * torch_minilm.embed(abstracts), axis=1)
    assert cosines.min() > 0.9999, cosines


def test_deterministic_and_independent_of_batch_order(onnx: Embedder, abstracts: list[str]) -> None:
    first = onnx.embed(abstracts)
    np.testing.assert_array_equal(first, onnx.embed(abstracts))
    reordered = onnx.embed(abstracts[::-1])[::-1]
    np.testing.assert_allclose(reordered, first, atol=1e-5)


def test_a_query_alone_matches_the_same_text_in_a_batch(onnx: Embedder, abstracts: list[str]) -> None:
    alone = onnx.embed_query(abstracts[0])
    in_batch = onnx.embed(abstracts)[0]
    assert float(alone @ in_batch) > 0.99


def test_truncates_long_texts_instead_of_failing(onnx: Embedder, abstracts: list[str]) -> None:
    long_text = " ".join(abstracts * 3)  # far more than 256 word pieces
    vector = onnx.embed([long_text, "short"])
    assert vector.shape == (2, 384)
    assert float(vector[0] @ onnx.embed_query(" ".join(abstracts))) > 0.99  # only the first 256 pieces count


def test_fingerprints_differ_between_backends(onnx: Embedder, torch_minilm: Embedder) -> None:
    fp32 = OnnxMiniLMEmbedder(quantize=False)
    assert onnx.fingerprint.startswith("all-MiniLM-L6-v2:onnx-int8:")
    assert len({onnx.fingerprint, fp32.fingerprint, torch_minilm.fingerprint}) == 3


def _paper(abstract: str) -> Paper:
    return Paper(paper_id="p1", title="A sample paper", abstract=abstract)


def test_a_store_built_with_torch_refuses_the_onnx_embedder(
    store_dir: Path, onnx: Embedder, torch_minilm: Embedder, abstracts: list[str]
) -> None:
    store = PaperStore(store_dir, torch_minilm)
    store.write_chunks([_paper(abstracts[0])])
    with pytest.raises(EmbedderMismatchError):
        PaperStore(store_dir, onnx)


def test_a_store_built_with_onnx_refuses_the_torch_embedder(
    store_dir: Path, onnx: Embedder, torch_minilm: Embedder
) -> None:
    PaperStore(store_dir, onnx)
    with pytest.raises(EmbedderMismatchError):
        PaperStore(store_dir, torch_minilm)


def test_a_failed_build_leaves_no_file_behind(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"

    def broken_build(tmp: Path) -> None:
        tmp.write_bytes(b"half a model")
        raise RuntimeError("export failed")

    with pytest.raises(RuntimeError):
        _write_atomically(target, broken_build)
    assert list(tmp_path.iterdir()) == []
