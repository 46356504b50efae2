"""Every prompt the product sends, as plain template files rendered strictly.

Each `<name>.txt` starts with a line `# variables: a, b` declaring its placeholders `{a}` and `{b}`.
`render(name, **values)` raises `PromptError` when a declared variable is missing, an undeclared one is
passed, or the template uses a placeholder it does not declare. `{{` and `}}` stand for literal braces.
Values are inserted once and never re-scanned, so a value containing `{question}` stays as it is.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from vectorstore.errors import PaperchatError

__all__ = ["render", "names", "variables", "PromptError", "PROMPTS_DIR"]

PROMPTS_DIR = Path(__file__).resolve().parent
_HEADER = re.compile(r"^#\s*variables:\s*(?P<names>[\w\s,]*)$")
_TOKEN = re.compile(r"\{\{|\}\}|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}")


class PromptError(PaperchatError):
    """A prompt template is missing, malformed, or rendered with the wrong variables."""


@dataclass(frozen=True)
class _Template:
    name: str
    variables: tuple[str, ...]
    body: str


def names() -> list[str]:
    """The names of all prompt templates."""
    return sorted(p.stem for p in PROMPTS_DIR.glob("*.txt"))


def variables(name: str) -> tuple[str, ...]:
    """The variables `name` declares."""
    return _load(name).variables


def render(name: str, **values: object) -> str:
    """The prompt `name` with its variables filled in; the set of `values` must match the declaration."""
    template = _load(name)
    declared = set(template.variables)
    missing, unexpected = declared - set(values), set(values) - declared
    if missing or unexpected:
        parts = [
            f"missing {sorted(missing)}" if missing else "",
            f"unexpected {sorted(unexpected)}" if unexpected else "",
        ]
        raise PromptError(f"prompt {name!r}: " + "; ".join(p for p in parts if p))

    def fill(match: re.Match[str]) -> str:
        token = match.group(0)
        if token in ("{{", "}}"):
            return token[0]
        return str(values[match.group("name")])

    return _TOKEN.sub(fill, template.body)


@functools.cache
def _load(name: str) -> _Template:
    path = PROMPTS_DIR / f"{name}.txt"
    if not re.fullmatch(r"[a-z_]+", name) or not path.is_file():
        raise PromptError(f"no prompt named {name!r}; known prompts: {', '.join(names())}")
    header, _, body = path.read_text(encoding="utf-8").partition("\n")
    match = _HEADER.match(header.strip())
    if not match:
        raise PromptError(f"prompt {name!r} must start with a '# variables: ...' line")
    declared = tuple(v.strip() for v in match.group("names").split(",") if v.strip())
    used = {m.group("name") for m in _TOKEN.finditer(body) if m.group("name")}
    if used != set(declared):
        raise PromptError(f"prompt {name!r} declares {sorted(declared)} but uses {sorted(used)}")
    return _Template(name, declared, body.rstrip("\n"))
