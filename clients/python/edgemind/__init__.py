"""edgemind's Python client: memories, notes, cold memory, sessions, minds and webhooks over the REST API.

    from edgemind import Edgemind
    client = Edgemind("http://127.0.0.1:8787", "emk_…")
    client.memory.store(category="preference", key="tea", content="Green tea, never coffee")
"""

from __future__ import annotations

from edgemind._arguments import NOT_GIVEN, NotGiven
from edgemind._transport import BOOKMARK_HEADER, Retry
from edgemind._version import __version__
from edgemind._webhooks import verify_webhook
from edgemind.aio import AsyncEdgemind
from edgemind.client import Edgemind
from edgemind.errors import EdgemindError
from edgemind.results import ImportResult, OpenedSession, Recall, StoredMemory

__all__ = [
    "BOOKMARK_HEADER",
    "NOT_GIVEN",
    "AsyncEdgemind",
    "Edgemind",
    "EdgemindError",
    "ImportResult",
    "NotGiven",
    "OpenedSession",
    "Recall",
    "Retry",
    "StoredMemory",
    "__version__",
    "verify_webhook",
]
