"""A person's minds, their keys, export and import (a person's token: they are the owner's)."""

from __future__ import annotations

from typing import List, Optional, Union

from edgemind._arguments import NOT_GIVEN, NotGiven, body_of
from edgemind._transport import Transport, segment
from edgemind.errors import EdgemindError
from edgemind.results import ImportResult
from edgemind.types import ArchiveImport, ErasureReceipt, Locale, LoginLink, Mind, MindKey, MindSettings, NewMindKey

# The media type that names each format an import takes.
_IMPORT_MEDIA_TYPES = {
    "archive": "application/x-ndjson",
    "mem0": "application/vnd.mem0+json",
    "letta": "application/vnd.letta.agent-file+json",
}


def _mind_path(transport: Transport, mind_id: Optional[str]) -> str:
    """`/minds/{id}` of the mind named, else the client's own."""
    found = mind_id or transport.mind_id
    if not found:
        raise EdgemindError(400, "invalid_request", "name the mind: pass its id or give the client a mind_id")
    return f"/minds/{segment(found)}"


class MindsResource:
    """``client.minds``: the minds of a person's account, their settings, export and import."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def list(self) -> List[Mind]:
        """The account's minds."""
        return self._t.request("GET", "/minds").json()["minds"]

    def create(
        self,
        name: str,
        *,
        locale: Optional[Locale] = None,
        retention_hours: Union[int, None, NotGiven] = NOT_GIVEN,
        settings: Optional[MindSettings] = None,
    ) -> Mind:
        """A new mind of the account."""
        fields = dict(name=name, locale=locale, retention_hours=retention_hours, settings=settings)
        return self._t.request("POST", "/minds", None, body_of(fields, nullable=["retention_hours"])).json()

    def get(self, mind_id: Optional[str] = None) -> Mind:
        """A mind (the client's own when none is named)."""
        return self._t.request("GET", _mind_path(self._t, mind_id)).json()

    def update(
        self,
        mind_id: Optional[str] = None,
        *,
        name: Optional[str] = None,
        locale: Optional[Locale] = None,
        retention_hours: Union[int, None, NotGiven] = NOT_GIVEN,
        settings: Optional[MindSettings] = None,
    ) -> Mind:
        """Changes the fields given (``retention_hours=None`` keeps everything until deleted)."""
        fields = dict(name=name, locale=locale, retention_hours=retention_hours, settings=settings)
        return self._t.request("PATCH", _mind_path(self._t, mind_id), None, body_of(fields, nullable=["retention_hours"])).json()

    def delete(self, mind_id: str) -> ErasureReceipt:
        """Erases a mind and everything in it (the id is never taken from the client: name it)."""
        return self._t.request("DELETE", f"/minds/{segment(mind_id)}").json()

    def export(self, mind_id: Optional[str] = None) -> str:
        """The mind as JSONL: memories with history, notes, cold memory with versions, chats, sessions, messages."""
        return self._t.request("GET", f"{_mind_path(self._t, mind_id)}/export").text()

    def import_(self, archive: Union[str, bytes], mind_id: Optional[str] = None, format: Optional[str] = None) -> ImportResult:
        """Restores an export (or a mem0 export, or a Letta Agent File: ``format`` "mem0" or "letta";
        None or "archive" is edgemind's own) into an empty mind: a small file is written before the
        answer (``imported`` per table); a large one in the background (follow it with ``get_import``)."""
        data = archive.encode("utf-8") if isinstance(archive, str) else archive
        said = format if format is not None else "archive"
        if said not in _IMPORT_MEDIA_TYPES:
            raise ValueError(f"format must be one of {', '.join(_IMPORT_MEDIA_TYPES)}")
        answer = self._t.request("POST", f"{_mind_path(self._t, mind_id)}/import", data=data, content_type=_IMPORT_MEDIA_TYPES[said]).json()
        return {"import": answer["import"], "imported": answer.get("imported")}

    def get_import(self, import_id: str, mind_id: Optional[str] = None) -> ArchiveImport:
        """Where an import written in the background stands."""
        return self._t.request("GET", f"{_mind_path(self._t, mind_id)}/import/{segment(import_id)}").json()

    def login_link(self, mind_id: Optional[str] = None) -> LoginLink:
        """A one-time link that signs its opener into the web UI, in this mind."""
        return self._t.request("POST", f"{_mind_path(self._t, mind_id)}/login-link").json()


class KeysResource:
    """``client.keys``: the keys agents use to work in a mind (a person's token)."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def list(self, mind_id: Optional[str] = None) -> List[MindKey]:
        """The mind's keys, revoked ones included (never their secrets)."""
        return self._t.request("GET", f"{_mind_path(self._t, mind_id)}/keys").json()["keys"]

    def create(self, *, name: Optional[str] = None, agent: Optional[str] = None, mind_id: Optional[str] = None) -> NewMindKey:
        """A new key; its secret (``key``) is in this answer only. ``agent`` binds it to one namespace."""
        return self._t.request("POST", f"{_mind_path(self._t, mind_id)}/keys", None, body_of(dict(name=name, agent=agent))).json()

    def revoke(self, key_id: str, *, mind_id: Optional[str] = None) -> None:
        """Revokes a key at once."""
        self._t.request("DELETE", f"{_mind_path(self._t, mind_id)}/keys/{segment(key_id)}")
