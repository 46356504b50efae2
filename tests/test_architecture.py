"""The package layout holds (issue 20): no import circles among the project's modules, and no import against
the direction ui -> assistant -> vectorstore (prompts beside them). Imports are read from the source with
`ast`, those inside functions and under `TYPE_CHECKING` included: a circle hidden there is still a circle."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ui", "assistant", "vectorstore", "prompts", "bench")
LAYER = {"ui": 0, "bench": 0, "assistant": 1, "vectorstore": 2, "prompts": 2}


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def imported(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for target in imported(path):
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                graph[name].add(target)  # a module importing its own package's __init__ is not a circle
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_is_read() -> None:
    graph = import_graph()
    assert "assistant.chain" in graph and "vectorstore.store" in graph["assistant.factory"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles() -> None:
    assert cycles(import_graph()) == []


def test_no_import_against_the_layers() -> None:
    upward = [
        (source, target)
        for source, targets in import_graph().items()
        for target in targets
        if LAYER[source.split(".")[0]] > LAYER[target.split(".")[0]]
    ]
    assert upward == []


def test_the_ui_talks_to_the_assistant_only() -> None:
    reaching = [
        (source, target)
        for source, targets in import_graph().items()
        if source.startswith("ui")
        for target in targets
        if target.startswith("vectorstore")
    ]
    assert reaching == []
