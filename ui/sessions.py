"""Conversations of API clients, one per Gradio session, so `/chat` can hold a multi-turn conversation.

A browser session keeps its conversation in a `gr.State`. An API client (`gradio_client.Client`) has a
session hash of its own; `ApiSessions` keeps that session's `Conversation` on the server, bounded in count
(least recently used dropped first) and in turns, and safe to use from the queue's worker threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ui.conversation import Conversation

__all__ = ["ApiSessions"]


class ApiSessions:
    def __init__(self, max_sessions: int = 500, max_turns: int = 50) -> None:
        self.max_sessions = max_sessions
        self.max_turns = max_turns
        self._conversations: OrderedDict[str, Conversation] = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def __len__(self) -> int:
        return len(self._conversations)

    def lock(self, session: str) -> threading.Lock:
        """Held while a turn of `session` runs: one session's turns never interleave."""
        with self._guard:
            return self._locks.setdefault(session, threading.Lock())

    def get(self, session: str, *, new: bool = False) -> Conversation:
        """The conversation of `session` (a fresh one when `new` or unknown)."""
        with self._guard:
            conv = None if new else self._conversations.get(session)
            if conv is None:
                conv = Conversation()
                self._conversations[session] = conv
            self._conversations.move_to_end(session)
            while len(self._conversations) > self.max_sessions:
                old, _ = self._conversations.popitem(last=False)
                self._locks.pop(old, None)
            return conv

    def trim(self, conv: Conversation) -> None:
        """Keep the last `max_turns` exchanges of `conv`."""
        if len(conv.exchanges) > self.max_turns:
            del conv.exchanges[: len(conv.exchanges) - self.max_turns]
