"""The shapes the client makes of an answer (types.py holds the API's own)."""

from __future__ import annotations

from typing import Optional, TypedDict

from edgemind.types import ArchiveImport, ImportCounts, Memory, Session


class StoredMemory(TypedDict):
    """A memory stored: ``created`` is False when the same category and key was updated in place."""

    memory: Memory
    created: bool


class Recall(TypedDict):
    """Recalled memories as plain text, and its token count."""

    text: str
    tokens: int


class OpenedSession(TypedDict):
    """A session: ``created`` is False when the same chat, repo_path and task_name had one."""

    session: Session
    created: bool


#: An import: ``imported`` holds the rows per table when it was written before the answer, None
#: when it goes on in the background (follow it with ``minds.get_import``).
ImportResult = TypedDict("ImportResult", {"import": ArchiveImport, "imported": Optional[ImportCounts]})
