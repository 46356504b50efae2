"""All paperchat errors in one place: the store's, re-exported, and the assistant's own."""

from __future__ import annotations

from vectorstore.errors import (
    ConfigError,
    CorpusError,
    EmbedderMismatchError,
    PaperchatError,
    StoreError,
    StoreVersionError,
)

__all__ = [
    "PaperchatError",
    "CorpusError",
    "StoreError",
    "EmbedderMismatchError",
    "StoreVersionError",
    "ConfigError",
    "BackendError",
    "ModelFileError",
    "QuestionError",
]


class BackendError(PaperchatError):
    """A language-model backend failed: unreachable, timed out, refused the key, or returned garbage."""


class ModelFileError(PaperchatError):
    """A bundled model file is missing or does not match its checksum."""


class QuestionError(PaperchatError):
    """A question that cannot be answered as given: empty, or longer than the limit."""
