"""Shared fixtures: real components on tiny real data."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

pytest_plugins = ["tests.fixtures_llm"]

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
SHARED = ROOT.parent / "shared"
SAMPLE_FILES = [CORPUS / "iclr2026_sample.txt", CORPUS / "icml2026_sample.txt"]


@pytest.fixture(scope="session")
def sample_files() -> list[Path]:
    return SAMPLE_FILES


@pytest.fixture
def store_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "store"
