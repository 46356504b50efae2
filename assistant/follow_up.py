"""The question as the chain takes it: cleaned of invisible characters, and made standalone when it is a
follow-up ("which of them …"), by the model when there is one, else by carrying over the earlier topic."""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence

import prompts
from assistant.errors import BackendError, QuestionError
from assistant.llm.base import ChatBackend
from assistant.types import Turn
from vectorstore.lexical import tokenize

__all__ = ["clean_question", "rewrite_follow_up", "condense", "focus_papers", "asks_authors"]

log = logging.getLogger(__name__)

_FOLLOW_UP = re.compile(
    r"\b(?:it|its|they|them|their|those|these|this|that|such|the same|one|ones|both|former|"
    r"latter)\b|^\s*(?:and|also|what about|how about)\b",
    re.IGNORECASE,
)
_GENERIC = frozenset(
    "paper papers work works study studies method methods approach which what how does do "
    "is are the a an of on in for about any there show tell me give".split()
)
# Words that point back at the papers of the last answer: "they", "it", "the runner-up", "who wrote it".
_POINTS_BACK = re.compile(
    r"\b(?:it|its|they|them|their|theirs|itself|themselves)\b|"
    r"\b(?:this|that|these|those|the\s+same|the\s+above|the\s+former|the\s+latter)\s+"
    r"(?:paper|papers|work|works|study|studies|method|methods|model|models|approach|approaches|one|ones|"
    r"benchmark|dataset|framework|system|technique|algorithm)\b|"
    r"\bthe\s+(?:authors?|runner[-\s]up|paper|proposed\s+\w+|baselines?)\b",
    re.IGNORECASE,
)
_AUTHORS = re.compile(
    r"\bwho\s+(?:wrote|authored|are\s+the\s+authors|were\s+the\s+authors|is\s+the\s+author|is\s+behind|"
    r"are\s+behind)\b|\b(?:the\s+|its\s+|their\s+)authors?\b|\bwritten\s+by\s+(?:whom|who)\b",
    re.IGNORECASE,
)
FOCUS_MAX = 5  # papers of the last answer a follow-up keeps in view
HISTORY_TURNS = 3  # the latest turns a model sees when condensing a follow-up
CONDENSE_TOKENS = 64


def clean_question(question: str, max_chars: int) -> str:
    """The question as the chain sees it: control and invisible formatting characters (bidi overrides,
    zero-width marks) become spaces, runs of whitespace collapse. Raises `QuestionError` when nothing is left or
    when it is longer than `max_chars` (a clear refusal, not a silent cut)."""
    kept = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch not in "\n\t" else ch
        for ch in question or ""
    )
    text = re.sub(r"[ \t]+", " ", re.sub(r"\s*\n\s*", "\n", kept)).strip()
    if not text:
        raise QuestionError("the question is empty: type a question about the papers")
    if len(text) > max_chars:
        raise QuestionError(
            f"the question is {len(text):,} characters long; the limit is {max_chars:,} "
            "(PAPERCHAT_CHAIN__MAX_QUESTION_CHARS). Ask about the point you need, or quote less."
        )
    return text


def _is_follow_up(question: str) -> bool:
    return bool(_FOLLOW_UP.search(question)) or len(question.split()) <= 3


def rewrite_follow_up(question: str, history: Sequence[Turn]) -> str:
    """A deterministic standalone question: a follow-up that leans on the previous question gets its topic."""
    if not history or not _is_follow_up(question):
        return question
    # the topic comes from the latest question that stood on its own: a chain of follow-ups keeps it
    previous = next(
        (t.question for t in reversed(history) if not _is_follow_up(t.question)), history[-1].question
    )
    own = set(tokenize(question))
    terms = [
        w
        for w in re.findall(r"[\w-]+", previous)
        if w.lower() not in _GENERIC and tokenize(w) and not set(tokenize(w)) <= own
    ]
    if not terms:
        return question
    return f"Regarding {' '.join(dict.fromkeys(terms))}: {question.strip()}"


def focus_papers(question: str, history: Sequence[Turn]) -> tuple[str, ...]:
    """The papers a follow-up points back at ("they", "it", "the runner-up", "who wrote it"): those the
    last answer cited, in its order; () when the question stands on its own or nothing was cited."""
    if not history or not history[-1].paper_ids or not _POINTS_BACK.search(question):
        return ()
    return tuple(dict.fromkeys(history[-1].paper_ids))[:FOCUS_MAX]


def asks_authors(question: str) -> bool:
    """Whether the question asks who wrote a paper ("Who wrote it?", "Who are the authors?")."""
    return bool(_AUTHORS.search(question))


def condense(llm: ChatBackend, question: str, history: Sequence[Turn]) -> str:
    """`question` made standalone given `history`: by `llm` when it generates (a failed or runaway rewrite
    falls back), else by `rewrite_follow_up`."""
    if not history:
        return question
    if llm.generates:
        lines = "\n".join(
            f"User: {t.question}\nAssistant: {_clip(t.answer)}" for t in history[-HISTORY_TURNS:]
        )
        try:
            reply = llm.complete(
                [{"role": "user", "content": prompts.render("condense", history=lines, question=question)}],
                max_tokens=CONDENSE_TOKENS,
                temperature=0.0,
            )
            rewritten = _clean_condensed(reply)
            if rewritten and len(rewritten) <= 4 * len(question) + 200:
                return rewritten
        except BackendError as exc:
            log.warning("condensing the follow-up failed (%s); rewriting it without the model", exc)
    return rewrite_follow_up(question, history)


def _clean_condensed(reply: str) -> str:
    lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    line = re.sub(r"^(?:standalone question|question)\s*:\s*", "", lines[0], flags=re.IGNORECASE)
    return line.strip(" \"'“”`")


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + " …"
