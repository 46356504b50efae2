"""Many users at once: 20 concurrent gradio_client sessions, 5 turns each, against the real running UI.

The extractive backend answers, so this measures our code (retrieval, chain, queue, session state).
Timing figures are printed by `python -m ui.load` and bench/scale.py; here only correctness is asserted:
no errors, and every session's history stayed its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import build_real_assistant, serve
from ui.load import pick_labels, run_load

SESSIONS, TURNS = 20, 5


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    assistant = build_real_assistant(tmp_path_factory.mktemp("load-store") / "store")
    labels = [p.label for p in assistant.store.catalog.papers()]
    with serve(assistant) as url:
        yield url, labels


def test_twenty_concurrent_five_turn_sessions_keep_their_own_history(served: tuple[str, list[str]]) -> None:
    url, labels = served
    report = run_load(url, pick_labels(labels, SESSIONS), turns=TURNS, deadline_s=600)
    assert not report.errors, report.errors[:5]
    assert len(report.latencies) == SESSIONS * TURNS
    assert not report.leaks(), report.leaks()[:5]
    for session in report.sessions:
        assert session.turns == [1, 2, 3, 4, 5]
        assert session.label in session.first_cited, (session.label, session.first_cited)
    print(report.summary())


def test_a_new_conversation_forgets_the_old_one(served: tuple[str, list[str]]) -> None:
    from gradio_client import Client

    url, _ = served
    client = Client(url, verbose=False)
    _, _, _, turn = client.predict("What does BrainGFM propose?", "ask", True, api_name="/chat")
    _, _, standalone, turn2 = client.predict("What data does it use?", "ask", False, api_name="/chat")
    assert (turn, turn2) == (1, 2) and "BrainGFM" in standalone
    _, _, standalone, turn3 = client.predict("What data does it use?", "ask", True, api_name="/chat")
    assert turn3 == 1 and "BrainGFM" not in standalone
    other = Client(url, verbose=False)
    _, _, standalone, turn = other.predict("What data does it use?", "ask", False, api_name="/chat")
    assert turn == 1 and standalone == "What data does it use?", "a second client starts with no history"


def test_the_chat_endpoint_rejects_bad_requests_clearly(served: tuple[str, list[str]]) -> None:
    from gradio_client import Client

    client = Client(served[0], verbose=False)
    with pytest.raises(Exception, match="empty"):
        client.predict("   ", "ask", False, api_name="/chat")
    with pytest.raises(Exception, match="unknown mode"):
        client.predict("What is HELM?", "poetry", False, api_name="/chat")


def test_pick_labels_refuses_too_few_distinct_names() -> None:
    assert pick_labels(["HELM", "HELM-2", "QHFlow2", "BSD"], 2) == ["HELM", "QHFlow2"]
    with pytest.raises(ValueError, match="distinct"):
        pick_labels(["HELM", "HELM"], 2)


def test_leaks_are_found(tmp_path: Path) -> None:
    from ui.load import LoadReport, SessionResult

    good = SessionResult("HELM", [0.1, 0.2], [], ["What is HELM?", "Regarding HELM: data?"], [1, 2])
    bad = SessionResult("BSD", [0.1, 0.2], [], ["What is BSD?", "Regarding HELM: data?"], [1, 3])
    report = LoadReport([good, bad], 1.0, 2)
    assert len(report.leaks()) == 2 and all(x.startswith("BSD") for x in report.leaks())
    assert report.summary()["history_isolated"] is False
