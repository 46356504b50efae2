"""Load test: many concurrent API sessions, each holding a multi-turn conversation with the running UI.

Every session is its own `gradio_client.Client` (its own Gradio session) and talks to `/chat`. Session i
opens with a question about its own paper, then asks follow-ups that only make sense with its history
("What data does it use?"). A session's history stayed its own when every follow-up was answered as a
standalone question about that session's paper and no other's, and the turn numbers ran 1..turns.

    .venv/bin/python -m ui.load --url http://127.0.0.1:7860/ [--sessions 20] [--turns 5] [--store data/store]

Traffic goes only to the URL given (127.0.0.1 by default); the run is bounded by `--deadline` seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import statistics
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

__all__ = ["FOLLOW_UPS", "LoadReport", "SessionResult", "pick_labels", "run_load", "main"]

FOLLOW_UPS = [
    "What data does it use?",
    "How is it evaluated?",
    "What are its limitations?",
    "And how does it compare to earlier methods?",
    "What is the main result?",
]


@dataclasses.dataclass
class SessionResult:
    label: str
    latencies: list[float] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)
    standalone: list[str] = dataclasses.field(default_factory=list)
    turns: list[int] = dataclasses.field(default_factory=list)
    first_cited: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class LoadReport:
    sessions: list[SessionResult]
    wall_s: float
    n_turns: int

    @property
    def latencies(self) -> list[float]:
        return sorted(x for s in self.sessions for x in s.latencies)

    @property
    def errors(self) -> list[str]:
        return [f"{s.label}: {e}" for s in self.sessions for e in s.errors]

    def leaks(self) -> list[str]:
        """Follow-ups answered with another session's topic, or without their own; wrong turn numbers."""
        labels = {s.label for s in self.sessions}
        problems = []
        for s in self.sessions:
            if s.turns != list(range(1, len(s.turns) + 1)):
                problems.append(f"{s.label}: turn numbers {s.turns}")
            for q in s.standalone[1:]:
                others = {x for x in labels - {s.label} if _mentions(q, x)}
                if others or not _mentions(q, s.label):
                    problems.append(f"{s.label}: follow-up answered as {q!r}")
        return problems

    def percentile(self, p: float) -> float:
        xs = self.latencies
        if not xs:
            return float("nan")
        return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]

    def summary(self) -> dict[str, Any]:
        done = len(self.latencies)
        return {
            "sessions": len(self.sessions),
            "turns_per_session": self.n_turns,
            "turns_answered": done,
            "errors": len(self.errors),
            "history_isolated": not self.leaks(),
            "p50_s": round(self.percentile(50), 3),
            "p95_s": round(self.percentile(95), 3),
            "mean_s": round(statistics.fmean(self.latencies), 3) if done else None,
            "wall_s": round(self.wall_s, 1),
            "turns_per_s": round(done / self.wall_s, 2) if self.wall_s else None,
        }


def _mentions(text: str, label: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", text) is not None


def pick_labels(labels: Sequence[str], n: int) -> list[str]:
    """`n` distinct paper labels that are distinctive names (no label contains another)."""
    fine = [x for x in dict.fromkeys(labels) if re.fullmatch(r"[A-Za-z][\w-]{2,24}", x)]
    chosen: list[str] = []
    for label in fine:
        if not any(label.lower() in c.lower() or c.lower() in label.lower() for c in chosen):
            chosen.append(label)
        if len(chosen) == n:
            break
    if len(chosen) < n:
        raise ValueError(f"only {len(chosen)} distinct paper labels for {n} sessions")
    return chosen


def _session(
    url: str, label: str, turns: int, auth: tuple[str, str] | None, start: threading.Barrier, deadline: float
) -> SessionResult:
    from gradio_client import Client

    result = SessionResult(label)
    client = Client(url, auth=auth, verbose=False)
    questions = [f"What does {label} propose?", *FOLLOW_UPS][:turns]
    start.wait(timeout=120)
    for i, question in enumerate(questions):
        if time.monotonic() > deadline:
            result.errors.append(f"deadline passed before turn {i + 1}")
            break
        began = time.perf_counter()
        try:
            text, sources, standalone, turn = client.predict(question, "ask", i == 0, api_name="/chat")
        except Exception as exc:  # noqa: BLE001 - every failure is a finding of the load test
            result.errors.append(f"turn {i + 1}: {type(exc).__name__}: {str(exc)[:200]}")
            continue
        result.latencies.append(time.perf_counter() - began)
        result.standalone.append(standalone)
        result.turns.append(int(turn))
        if i == 0:
            result.first_cited = [s.get("label", "") for s in sources]
        if not text.strip():
            result.errors.append(f"turn {i + 1}: empty answer")
    client.close()
    return result


def run_load(
    url: str,
    labels: Sequence[str],
    *,
    turns: int = 5,
    deadline_s: float = 600,
    auth: tuple[str, str] | None = None,
) -> LoadReport:
    """One concurrent session per label, `turns` turns each, all started together."""
    start = threading.Barrier(len(labels))
    deadline = time.monotonic() + deadline_s
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(labels)) as pool:
        futures = [pool.submit(_session, url, label, turns, auth, start, deadline) for label in labels]
        sessions = [f.result(timeout=deadline_s + 180) for f in futures]
    return LoadReport(sessions, time.perf_counter() - began, turns)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:7860/")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument(
        "--deadline", type=float, default=600, help="seconds before remaining turns are skipped"
    )
    parser.add_argument("--store", type=Path, default=None, help="the UI's store, for paper labels")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from assistant.factory import paper_labels
    from assistant.settings import Settings

    labels = pick_labels(paper_labels(args.store or Settings().store.path), args.sessions)
    report = run_load(args.url, labels, turns=args.turns, deadline_s=args.deadline)
    summary = report.summary()
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            print(f"{key:>18}: {value}")
        for problem in [*report.errors, *report.leaks()][:20]:
            print("  problem:", problem)
    return 0 if not report.errors and not report.leaks() else 1


if __name__ == "__main__":
    sys.exit(main())
