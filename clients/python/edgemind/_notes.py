"""Notes (raw facts awaiting the hourly consolidation) and cold memory (the versioned document)."""

from __future__ import annotations

from typing import List, Literal, Optional

from edgemind._arguments import body_of
from edgemind._transport import Transport, segment
from edgemind.types import CategoryHint, ColdDiff, ColdDocument, ColdMemory, ColdVersion, ColdVersionText, ColdWritten, Note, NotePage, NoteSearchResults


class NotesResource:
    """``client.notes``: raw facts appended for the hourly consolidation into cold memory."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def add(
        self,
        text: str,
        *,
        session_id: Optional[str] = None,
        category_hint: Optional[CategoryHint] = None,
        context: Optional[str] = None,
        agent: Optional[str] = None,
    ) -> Note:
        """Appends one self-contained fact."""
        fields = dict(text=text, session_id=session_id, category_hint=category_hint, context=context, agent=agent)
        return self._t.request("POST", "/notes", None, body_of(fields)).json()

    def list(self, *, agent: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> NotePage:
        """A page of notes awaiting consolidation, newest first."""
        return self._t.request("GET", "/notes", {"agent": agent, "limit": limit, "offset": offset}).json()

    def search(
        self, q: str, *, limit: Optional[int] = None, include: Optional[Literal["context"]] = None, agent: Optional[str] = None
    ) -> NoteSearchResults:
        """Full-text search over notes, best first."""
        return self._t.request("GET", "/notes/search", {"q": q, "limit": limit, "include": include, "agent": agent}).json()

    def verify(self, id: str, *, agent: Optional[str] = None) -> Note:
        """A person confirms a note (a person's token)."""
        return self._t.request("POST", f"/notes/{segment(id)}/verify", {"agent": agent}).json()

    def delete(self, id: str, *, agent: Optional[str] = None) -> Note:
        """Deletes a note; answers it as it was."""
        return self._t.request("DELETE", f"/notes/{segment(id)}", {"agent": agent}).json()


class ColdResource:
    """``client.cold``: the consolidated, versioned memory document of a namespace."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def get(self, *, agent: Optional[str] = None) -> ColdDocument:
        """The document and its version (0 before the first write)."""
        return self._t.request("GET", "/cold", {"agent": agent}).json()

    def put(self, text: str, version: int, *, consolidation_id: Optional[str] = None, agent: Optional[str] = None) -> ColdWritten:
        """Writes the document only if ``version`` is still current; otherwise raises ``memory_changed`` (409)."""
        fields = dict(text=text, version=version, consolidation_id=consolidation_id)
        return self._t.request("PUT", "/cold", {"agent": agent}, body_of(fields)).json()

    def versions(self, *, agent: Optional[str] = None, limit: Optional[int] = None, offset: Optional[int] = None) -> List[ColdVersion]:
        """Every version kept, newest first."""
        return self._t.request("GET", "/cold/versions", {"agent": agent, "limit": limit, "offset": offset}).json()["versions"]

    def version(self, version: int, *, agent: Optional[str] = None) -> ColdVersionText:
        """One version with its text."""
        return self._t.request("GET", f"/cold/versions/{segment(version)}", {"agent": agent}).json()

    def diff(self, from_version: int, to_version: Optional[int] = None, *, agent: Optional[str] = None) -> ColdDiff:
        """A line diff between two versions (0 is the empty document; ``to_version`` defaults to the current one)."""
        return self._t.request("GET", "/cold/diff", {"from": from_version, "to": to_version, "agent": agent}).json()

    def rollback(self, version: int, *, agent: Optional[str] = None) -> ColdMemory:
        """Makes an earlier version's text the new current version."""
        return self._t.request("POST", "/cold/rollback", {"agent": agent}, {"version": version}).json()
