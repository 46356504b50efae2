"""The UI's parts without a browser: escaping, the sources panel, uploads, examples, streaming turns,
export, backend choice, launch options, and the `/ask` API through gradio_client against a served app."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from assistant.llm.cache import key_note
from assistant.settings import Settings
from assistant.types import Event, Filters
from tests.browser import closed_port, serve
from tests.ui_fake import FakeAssistant
from ui.app import build_app, login
from ui.chat import Options, answer_turn
from ui.conversation import Conversation, export_markdown
from ui.examples import survey, topics
from ui.main import parse_args, settings_for
from ui.render import chat_markdown, safe_url, sources_html
from ui.uploads import check_upload, sanitize_name, stage_uploads

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


@pytest.fixture
def fake() -> FakeAssistant:
    return FakeAssistant.from_files(sorted(CORPUS.glob("*.txt")))


def _turn(fake: FakeAssistant, question: str, conv: Conversation, tmp_path: Path, **options: Any) -> list:
    return list(answer_turn(fake, question, conv, Options(**options), tmp_path))


# ---------------------------------------------------------------------------------------------- escaping


def test_chat_markdown_shows_markup_as_text_and_links_citations() -> None:
    text = chat_markdown(
        '<script>alert("x")</script> <img src=x onerror=y> ![t](http://e/x.png) SNNs [1][2] [9]', known=[1, 2]
    )
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "<img" not in text
    assert "\\!\\[t\\]" in text  # no remote image
    assert "[\\[1\\]](#src-1)" in text and "[\\[2\\]](#src-2)" in text
    assert "#src-9" not in text and "\\[9\\]" in text


def test_sources_panel_escapes_corpus_text_and_highlights_the_span(fake: FakeAssistant) -> None:
    paper = fake.corpus[0]
    paper.abstract = "Evil <script>alert(1)</script> ${1+1} {{x}}. The matched sentence is here."
    paper.urls, paper.code_links = ["javascript:alert(1)", 'https://openreview.net/forum?id=a"b'], []
    answer = fake.ask("Evil script matched sentence")
    html = sources_html(answer, turn=1)
    assert 'id="src-1"' in html and 'data-answer="1"' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "${" not in html and "{{" not in html
    assert "javascript:" not in html
    assert 'href="https://openreview.net/forum?id=a&quot;b"' in html
    assert "<mark>Evil &lt;script&gt;" in html


def test_safe_url_only_allows_http_links() -> None:
    assert safe_url("https://github.com/x/y") == "https://github.com/x/y"
    assert safe_url("javascript:alert(1)") is None
    assert safe_url("data:text/html,hi") is None
    assert safe_url("/relative") is None


# ---------------------------------------------------------------------------------------------- uploads


def test_upload_names_are_sanitized() -> None:
    assert sanitize_name("../../etc/passwd.txt") == "passwd.txt"
    assert sanitize_name("..\\..\\win.ini") == "win.ini"
    assert sanitize_name("my papers (v2).jsonl") == "my_papers_v2_.jsonl"
    assert "/" not in sanitize_name("a/" * 300 + "x.csv") and sanitize_name("a" * 300 + ".csv").endswith(
        ".csv"
    )
    assert sanitize_name("...") == "upload.txt"


def test_uploads_of_wrong_type_or_size_are_refused_with_a_reason(tmp_path: Path) -> None:
    assert "only .txt" in check_upload("evil.exe", 10, 1000)
    assert "too large" in check_upload("big.jsonl", 5_000_000, 1_000_000)
    assert check_upload("ok.jsonl.gz", 10, 1000) == ""
    incoming = tmp_path / "in"
    incoming.mkdir()
    (incoming / "papers.jsonl").write_text('{"abstract": "x"}\n')
    (incoming / "tool.exe").write_bytes(b"MZ")
    staging = tmp_path / "staging"
    staging.mkdir()
    staged = stage_uploads([incoming / "papers.jsonl", incoming / "tool.exe"], staging, 1000)
    assert [u.accepted for u in staged] == [True, False]
    assert staged[0].path is not None and staged[0].path.parent == staging
    assert "not a paper list" in staged[1].reason
    assert sorted(p.name for p in staging.iterdir()) == ["papers.jsonl"]


# ---------------------------------------------------------------------------------------------- examples


def test_examples_come_from_the_store(fake: FakeAssistant) -> None:
    facts = survey(fake.corpus)
    assert [e.mode for e in facts.examples] == ["ask", "summarize", "compare"]
    labels = {p.label for p in fake.corpus}
    compare = facts.examples[2].question.removeprefix("Compare ")
    assert all(name in labels for name in compare.split(" and "))
    assert any(lbl in facts.examples[0].question for lbl in labels)
    assert facts.venues == ["ICLR", "ICML"] and facts.years == [2026]


def test_summary_topic_is_the_best_covered_candidate(fake: FakeAssistant) -> None:
    candidates = topics(fake.corpus)
    assert len(candidates) >= 2 and candidates[0] == "neural networks"
    facts = survey(fake.corpus, score=lambda topic: 1.0 if topic == candidates[-1] else -1.0)
    assert facts.examples[1].question == f"Summarize the research on {candidates[-1]}"
    facts = survey(fake.corpus, score=lambda topic: -1.0)  # nothing covered: the most frequent one
    assert facts.examples[1].question == f"Summarize the research on {candidates[0]}"


# ---------------------------------------------------------------------------------------------- a turn


def test_a_turn_streams_token_by_token_then_shows_sources(fake: FakeAssistant, tmp_path: Path) -> None:
    conv = Conversation()
    updates = _turn(fake, "spiking neural networks energy efficiency", conv, tmp_path)
    replies = [u[0][-1]["content"] for u in updates if isinstance(u[0], list) and len(u[0]) == 2]
    assert len(replies) > 10  # one update per token
    assert all(len(a) <= len(b) for a, b in zip(replies[1:-2], replies[2:-1], strict=False))
    assert "(#src-1)" in replies[-1]
    chat, state, panel, status, export, box = updates[-1]
    assert state is conv and conv.exchanges[0].answer is not None and box == ""
    assert 'id="src-1"' in panel and 'data-answer="1"' in panel
    assert Path(export["value"]).read_text().startswith("# paperchat conversation")


def test_follow_up_gets_the_history_and_shows_the_standalone_question(
    fake: FakeAssistant, tmp_path: Path
) -> None:
    conv = Conversation()
    _turn(fake, "spiking neural networks", conv, tmp_path)
    updates = _turn(fake, "how are they trained?", conv, tmp_path, venue="ICML")
    call = fake.calls[-1]
    assert call["history"][0].question == "spiking neural networks" and call["history"][0].paper_ids
    assert call["filters"] == Filters(venue="ICML")
    status = updates[-1][3]
    assert "Standalone question: how are they trained? (about: spiking neural networks)" in status
    assert "Filters: venue=ICML" in status


def test_a_dead_backend_is_a_message_not_a_crash(fake: FakeAssistant, tmp_path: Path) -> None:
    conv = Conversation()
    url = f"http://127.0.0.1:{closed_port()}/v1"
    updates = _turn(fake, "What is BrainGFM?", conv, tmp_path, backend="openai", model="m", base_url=url)
    reply = updates[-1][0][-1]["content"]
    assert "Problem:" in reply and "connection refused" in reply and "127.0.0.1" in reply
    updates = _turn(fake, "What is BrainGFM?", conv, tmp_path, backend="nonsense")
    assert "unknown LLM backend" in updates[-1][0][-1]["content"]
    assert _turn(fake, "BrainGFM", conv, tmp_path)[-1][0][-1]["content"].count("#src-") >= 1  # still answers


def test_hostile_questions_get_a_clear_message_and_the_next_one_works(
    fake: FakeAssistant, tmp_path: Path
) -> None:
    conv = Conversation()
    assert _turn(fake, "  \n ", conv, tmp_path)[-1][1].exchanges == [], "a blank question does nothing"
    updates = _turn(fake, "What is BrainGFM? " + "A" * 100_000, conv, tmp_path)
    shown = updates[-1][0]
    assert "100,018 characters long; the limit is 4,000" in shown[-1]["content"]
    assert len(shown[-2]["content"]) < 1000, "the refused question is clipped for display"
    updates = _turn(fake, "\x00\x1b[2J<script>alert(1)</script> What is \u202eBrainGFM?", conv, tmp_path)
    question, reply = updates[-1][0][-2]["content"], updates[-1][0][-1]["content"]
    assert "\x00" not in question and "\u202e" not in question and "<script>" not in question
    assert "&lt;script&gt;" in question and "#src-" in reply
    assert len(conv.history()) == 1, "only the answered turn enters the history"


def test_a_crashing_assistant_still_ends_the_turn(fake: FakeAssistant, tmp_path: Path) -> None:
    def boom(*args: object, **kwargs: object) -> Iterator[Event]:
        raise RuntimeError("kaput")

    fake.stream = boom  # type: ignore[method-assign]
    reply = _turn(fake, "anything", Conversation(), tmp_path)[-1][0][-1]["content"]
    assert "Something went wrong" in reply and "RuntimeError" in reply


def test_export_has_questions_answers_and_sources(fake: FakeAssistant, tmp_path: Path) -> None:
    conv = Conversation()
    _turn(fake, "BrainGFM brain foundation model", conv, tmp_path)
    text = export_markdown(conv)
    assert "## 1. BrainGFM brain foundation model" in text
    assert (
        "**Sources**" in text and "[1] BrainGFM" in text and "https://github.com/weixinxu666/BrainGFM" in text
    )


# ---------------------------------------------------------------------------------------------- settings


def test_backend_choice_reuses_built_backends(fake: FakeAssistant) -> None:
    assert fake.with_backend("extractive") is fake
    other = fake.with_backend("scripted")
    assert other is not fake and other.backend_name == "scripted"
    assert fake.with_backend("scripted") is other


def test_the_api_key_is_never_shown(monkeypatch: pytest.MonkeyPatch, fake: FakeAssistant) -> None:
    monkeypatch.setenv("PAPERCHAT_LLM__API_KEY", "sk-very-secret-123")
    settings = Settings()
    assert key_note(settings.llm) == "API key: key set from environment"
    fake.settings = settings
    config = json.dumps(build_app(fake).get_config_file(), default=str)
    assert "sk-very-secret-123" not in config and "key set from environment" in config
    monkeypatch.delenv("PAPERCHAT_LLM__API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert key_note(Settings().llm).startswith("API key: no key")


def test_command_line_and_login(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PAPERCHAT_UI__HOST", raising=False)
    settings = settings_for(parse_args([]), Settings())
    assert settings.ui.host == "127.0.0.1" and login(settings.ui) is None
    settings = settings_for(parse_args(["--host", "0.0.0.0", "--port", "8123", "--backend", "extractive"]))
    assert (settings.ui.host, settings.ui.port, settings.llm.backend) == ("0.0.0.0", 8123, "extractive")
    monkeypatch.setenv("PAPERCHAT_UI__USERNAME", "ada")
    monkeypatch.setenv("PAPERCHAT_UI__PASSWORD", "pw-1")
    assert login(Settings().ui) == ("ada", "pw-1")


# ---------------------------------------------------------------------------------------------- served


def test_api_endpoint_answers_through_gradio_client(fake: FakeAssistant) -> None:
    from gradio_client import Client

    with serve(fake) as url:
        client = Client(url, verbose=False)
        text, sources = client.predict("BrainGFM brain foundation model", "ask", api_name="/ask")
        assert "[1]" in text and sources[0]["n"] == 1 and sources[0]["label"] == "BrainGFM"
        assert sources[0]["code_links"] == ["https://github.com/weixinxu666/BrainGFM"]


def test_login_protects_the_app(fake: FakeAssistant) -> None:
    from gradio_client import Client

    with serve(fake, auth=("ada", "pw-1")) as url:
        assert httpx.get(url + "config").status_code == 401
        client = Client(url, auth=("ada", "pw-1"), verbose=False)
        _, sources = client.predict("BrainGFM", "auto", api_name="/ask")
        assert sources[0]["label"] == "BrainGFM"
