"""Uploaded paper lists: checked for type and size, copied under safe names into a temporary folder."""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

__all__ = ["ALLOWED_SUFFIXES", "Upload", "sanitize_name", "check_upload", "stage_uploads"]

ALLOWED_SUFFIXES = (".txt", ".jsonl", ".json", ".csv", ".tsv", ".gz")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclasses.dataclass
class Upload:
    """One uploaded file: where it was staged, or why it was rejected."""

    name: str
    path: Path | None = None
    reason: str = ""

    @property
    def accepted(self) -> bool:
        return self.path is not None


def sanitize_name(name: str) -> str:
    """A plain file name from whatever the browser sent: no folders, no `..`, no odd characters."""
    base = re.split(r"[\\/]", name)[-1]
    base = _UNSAFE.sub("_", base).lstrip(".-_")
    base = re.sub(r"\.{2,}", ".", base)
    if len(base) > 100:
        stem, dot, suffix = base.rpartition(".")
        base = (stem[: 99 - len(suffix)] + dot + suffix) if dot and len(suffix) < 10 else base[:100]
    return base or "upload.txt"


def check_upload(name: str, size: int, max_bytes: int) -> str:
    """Why an upload named `name` of `size` bytes is refused, or '' when it is fine."""
    if not name.lower().endswith(ALLOWED_SUFFIXES):
        return f"not a paper list: only {' '.join(ALLOWED_SUFFIXES)} files are accepted"
    if size > max_bytes:
        return f"too large: {size / 1e6:.1f} MB, the limit is {max_bytes / 1e6:.0f} MB"
    if size == 0:
        return "empty file"
    return ""


def stage_uploads(sources: Iterable[str | Path], folder: Path, max_bytes: int) -> list[Upload]:
    """Copy each acceptable upload into `folder` under a sanitized, unique name."""
    staged: list[Upload] = []
    used: set[str] = set()
    for source in sources:
        source = Path(source)
        name = sanitize_name(source.name)
        size = source.stat().st_size if source.is_file() else 0
        reason = check_upload(name, size, max_bytes)
        if reason:
            staged.append(Upload(name, reason=reason))
            continue
        unique, n = name, 1
        while unique in used:
            n += 1
            unique = f"{n}-{name}"
        used.add(unique)
        target = folder / unique
        shutil.copyfile(source, target)
        staged.append(Upload(unique, path=target))
    return staged
