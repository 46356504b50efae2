"""Opening a store picks the embedder it was built with unless one is chosen explicitly."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.factory import open_store
from assistant.settings import Settings, StoreSettings
from vectorstore.errors import EmbedderMismatchError
from vectorstore.ingest import ingest
from vectorstore.paper import Paper
from vectorstore.store import PaperStore

ABSTRACT = "We study sparse attention for long documents and show that it halves memory at equal accuracy."


def _build(path: Path) -> None:
    store = open_store(Settings(store=StoreSettings(path=path, embedder="hash")))
    jsonl = path.parent / "papers.jsonl"
    jsonl.write_text(Paper(paper_id="p1", title="Sparse attention", abstract=ABSTRACT).to_json() + "\n")
    ingest(store, [jsonl])
    store.close()


def test_a_store_remembers_its_embedder(tmp_path: Path) -> None:
    path = tmp_path / "store"
    assert PaperStore.recorded_embedder(path) is None
    _build(path)
    assert PaperStore.recorded_embedder(path) == "hash"


def test_the_default_follows_the_store(tmp_path: Path) -> None:
    path = tmp_path / "store"
    _build(path)
    settings = Settings(store=StoreSettings(path=path))
    assert settings.store.embedder != "hash"  # the default is another embedder ...
    store = open_store(settings)  # ... yet the store opens with its own
    assert store.embedder.name == "hash" and store.catalog.count() == 1


def test_an_explicit_other_embedder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "store"
    _build(path)
    settings = Settings(store=StoreSettings(path=path))
    settings.store.embedder = "minilm"  # as --embedder does
    with pytest.raises(EmbedderMismatchError, match="paperchat ingest --rebuild"):
        open_store(settings)
