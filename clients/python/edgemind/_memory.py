"""Structured memories: upsert by (category, key), search, recall, review and history."""

from __future__ import annotations

from typing import List, Literal, Optional, Union

from edgemind._arguments import NOT_GIVEN, NotGiven, body_of
from edgemind._transport import Transport, segment
from edgemind.results import Recall, StoredMemory
from edgemind.types import Category, Memory, MemoryChange, MemoryPage, MemorySearchResults, Priority, Source


class MemoryResource:
    """``client.memory``: a mind's structured memories."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def store(
        self,
        *,
        category: Category,
        key: str,
        content: str,
        tags: Optional[List[str]] = None,
        priority: Optional[Priority] = None,
        confidence: Optional[float] = None,
        expires_at: Union[str, None, NotGiven] = NOT_GIVEN,
        context: Optional[str] = None,
        observed_at: Optional[str] = None,
        supersedes: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> StoredMemory:
        """Stores a memory; the same category and key again makes it the newest statement (``created`` False),
        the old one kept as replaced. ``observed_at``: when it was stated; ``supersedes``: the key or id of a
        memory it replaces."""
        fields = dict(
            category=category, key=key, content=content, tags=tags, priority=priority, confidence=confidence,
            expires_at=expires_at, context=context, observed_at=observed_at, supersedes=supersedes,
        )
        answer = self._t.request("POST", "/memory", {"agent": agent}, body_of(fields, nullable=["expires_at"]))
        return {"memory": answer.json(), "created": answer.status == 201}

    def get(self, id: str, *, include: Optional[Literal["context"]] = None, agent: Optional[str] = None) -> Memory:
        """One memory; ``include="context"`` adds where it came from."""
        return self._t.request("GET", f"/memory/{segment(id)}", {"include": include, "agent": agent}).json()

    def update(
        self,
        id: str,
        *,
        content: Optional[str] = None,
        tags: Optional[List[str]] = None,
        priority: Optional[Priority] = None,
        confidence: Optional[float] = None,
        expires_at: Union[str, None, NotGiven] = NOT_GIVEN,
        context: Optional[str] = None,
        observed_at: Optional[str] = None,
        supersedes: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> Memory:
        """Corrects the fields given in place (``expires_at=None`` clears the expiry); the history keeps the change."""
        fields = dict(
            content=content, tags=tags, priority=priority, confidence=confidence, expires_at=expires_at, context=context,
            observed_at=observed_at, supersedes=supersedes,
        )
        return self._t.request("PUT", f"/memory/{segment(id)}", {"agent": agent}, body_of(fields, nullable=["expires_at"])).json()

    def list(
        self,
        *,
        category: Optional[Category] = None,
        tag: Optional[str] = None,
        source: Optional[Source] = None,
        verified: Optional[bool] = None,
        as_of: Optional[str] = None,
        include: Optional[Literal["superseded"]] = None,
        agent: Optional[str] = None,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
    ) -> MemoryPage:
        """A page of memories valid now (or ``as_of``; ``include="superseded"``: every version), newest first, with the total."""
        query = dict(category=category, tag=tag, source=source, verified=verified, as_of=as_of, include=include, agent=agent, limit=limit, offset=offset)
        return self._t.request("GET", "/memory", query).json()

    def search(
        self,
        q: str,
        *,
        tag: Optional[str] = None,
        category: Optional[Category] = None,
        limit: Optional[int] = None,
        as_of: Optional[str] = None,
        include: Optional[Literal["context", "superseded", "context,superseded"]] = None,
        agent: Optional[str] = None,
    ) -> MemorySearchResults:
        """Full-text search of what is valid now (or ``as_of``), best first (Russian and English word forms match).

        ``include``: ``context`` adds where each came from; ``superseded`` adds replaced statements, each with its validity.
        """
        query = dict(q=q, tag=tag, category=category, limit=limit, as_of=as_of, include=include, agent=agent)
        return self._t.request("GET", "/memory/search", query).json()

    def recall(
        self,
        *,
        limit: Optional[int] = None,
        category: Optional[Category] = None,
        max_tokens: Optional[int] = None,
        as_of: Optional[str] = None,
        include: Optional[Literal["superseded"]] = None,
        agent: Optional[str] = None,
    ) -> Recall:
        """Plain-text recall of what is valid now (or ``as_of``), each with its date, critical first then newest,
        within ``max_tokens``; with its token count."""
        query = dict(limit=limit, category=category, max_tokens=max_tokens, as_of=as_of, include=include, agent=agent)
        answer = self._t.request("GET", "/memory/recall", query)
        return {"text": answer.text(), "tokens": int(answer.headers.get("x-token-count") or 0)}

    def by_tag(
        self,
        tag: str,
        *,
        limit: Optional[int] = None,
        as_of: Optional[str] = None,
        include: Optional[Literal["superseded"]] = None,
        agent: Optional[str] = None,
    ) -> List[Memory]:
        """Unexpired memories carrying a whole tag, valid now (or ``as_of``), most important first."""
        query = {"tag": tag, "limit": limit, "as_of": as_of, "include": include, "agent": agent}
        return self._t.request("GET", "/memory/by-tag", query).json()["memories"]

    def expiring(self, within: str = "7d", *, limit: Optional[int] = None, agent: Optional[str] = None) -> List[Memory]:
        """Memories expiring within a duration (``30m``, ``12h``, ``7d``), soonest first."""
        return self._t.request("GET", "/memory/expiring", {"within": within, "limit": limit, "agent": agent}).json()["memories"]

    def history(self, id: str, *, agent: Optional[str] = None) -> List[MemoryChange]:
        """Every change of a memory, oldest first."""
        return self._t.request("GET", f"/memory/{segment(id)}/history", {"agent": agent}).json()["history"]

    def verify(self, id: str, *, agent: Optional[str] = None) -> Memory:
        """A person confirms a memory (a person's token; a mind key is refused with ``forbidden``)."""
        return self._t.request("POST", f"/memory/{segment(id)}/verify", {"agent": agent}).json()

    def forget(self, id: str, *, agent: Optional[str] = None) -> None:
        """Deletes a memory with its past versions; its history stays."""
        self._t.request("DELETE", f"/memory/{segment(id)}", {"agent": agent})
