"""The errors paperchat raises. Each carries a message a user can act on; the CLI and UI show it as is."""

from __future__ import annotations


class PaperchatError(Exception):
    """Base of every error paperchat raises on purpose."""


class CorpusError(PaperchatError):
    """A corpus file cannot be read at all (missing, empty, binary, unknown format)."""


class StoreError(PaperchatError):
    """The store cannot be opened or used (unreachable server, corrupt or foreign catalog)."""


class EmbedderMismatchError(StoreError):
    """The store was built with another embedding model than the one asked to query it."""


class StoreVersionError(StoreError):
    """The store was written by another version of paperchat."""


class ConfigError(PaperchatError):
    """A setting names something that does not exist (a backend, an embedder, a mode)."""
