"""Sessions: one isolated task per chat, its history, and the context a model gets for a turn."""

from __future__ import annotations

from typing import List, Literal, Optional, Union

from edgemind._arguments import NOT_GIVEN, NotGiven, body_of
from edgemind._transport import Transport, segment
from edgemind.results import OpenedSession
from edgemind.types import Context, MessageAdded, MessageHit, MessagePage, Role, Session, SessionDeleted, SessionDone, SessionWithState


class SessionsResource:
    """``client.sessions``: tasks, their messages, and the context assembled for a model turn."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def create(self, task_name: str, *, repo_path: Union[str, None, NotGiven] = NOT_GIVEN, chat: Optional[str] = None) -> OpenedSession:
        """Opens a task (the same chat, repo_path and task_name answer the existing one) and makes it active."""
        fields = dict(task_name=task_name, repo_path=repo_path, chat=chat)
        answer = self._t.request("POST", "/sessions", None, body_of(fields, nullable=["repo_path"]))
        return {"session": answer.json(), "created": answer.status == 201}

    def get(self, id: str) -> SessionWithState:
        """A session with its counters (messages since extraction, ephemeral output pending, …)."""
        return self._t.request("GET", f"/sessions/{segment(id)}").json()

    def list(
        self, *, chat: Optional[str] = None, chat_id: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None
    ) -> List[Session]:
        """Sessions, the most recently used first."""
        return self._t.request("GET", "/sessions", {"chat": chat, "chat_id": chat_id, "limit": limit, "offset": offset}).json()["sessions"]

    def add_message(
        self,
        id: str,
        role: Role,
        content: str,
        *,
        ephemeral: Optional[bool] = None,
        tool: Union[str, None, NotGiven] = NOT_GIVEN,
        transaction_completed: Optional[bool] = None,
    ) -> MessageAdded:
        """Appends a message; ephemeral tool output stays out of the model's window."""
        fields = dict(role=role, content=content, ephemeral=ephemeral, tool=tool, transaction_completed=transaction_completed)
        return self._t.request("POST", f"/sessions/{segment(id)}/messages", None, body_of(fields, nullable=["tool"])).json()

    def messages(
        self, id: str, *, channel: Optional[Literal["llm", "ui"]] = None, after: Optional[int] = None, limit: Optional[int] = None
    ) -> MessagePage:
        """``llm``: the model's window; ``ui``: everything, ephemeral output included, paginated."""
        return self._t.request("GET", f"/sessions/{segment(id)}/messages", {"channel": channel, "after": after, "limit": limit}).json()

    def context(
        self,
        id: str,
        *,
        q: Optional[str] = None,
        max_tokens: Optional[int] = None,
        as_of: Optional[str] = None,
        include: Optional[Literal["superseded"]] = None,
    ) -> Context:
        """The context for a model turn: window, memories matching ``q``, recall and cold memory within ``max_tokens``;
        memories valid now, or ``as_of``; ``include="superseded"`` adds replaced ones, marked."""
        query = {"q": q, "max_tokens": max_tokens, "as_of": as_of, "include": include}
        return self._t.request("GET", f"/sessions/{segment(id)}/context", query).json()

    def done(self, id: str, confirmed: bool = True) -> SessionDone:
        """Answers "Done?": confirmed clears the session's ephemeral output; False keeps it."""
        return self._t.request("POST", f"/sessions/{segment(id)}/complete", None, {"confirmed": confirmed}).json()

    def delete(self, id: str) -> SessionDeleted:
        """Deletes a session and its messages."""
        return self._t.request("DELETE", f"/sessions/{segment(id)}").json()

    def search(self, q: str, *, session_id: Optional[str] = None, limit: Optional[int] = None) -> List[MessageHit]:
        """Full-text search over the sessions' messages, best first."""
        return self._t.request("GET", "/sessions/search", {"q": q, "session_id": session_id, "limit": limit}).json()["results"]
