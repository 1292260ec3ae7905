"""The client of one edgemind Worker, for one key."""

from __future__ import annotations

import time
from typing import Callable, Optional, Union

from edgemind._memory import MemoryResource
from edgemind._minds import KeysResource, MindsResource
from edgemind._notes import ColdResource, NotesResource
from edgemind._sessions import SessionsResource
from edgemind._transport import Retry, Transport
from edgemind._webhooks import WebhooksResource


class Edgemind:
    """A client of one edgemind Worker, for one key (and, with a person's token, one mind).

    ``key`` is a mind key (``emk_…``, which implies its mind) or a person's token (then give
    ``mind_id``). A failed call raises :class:`edgemind.EdgemindError`. Answers 429 and 503 with
    Retry-After are sent again after waiting (``retry=Retry(attempts, max_wait_seconds)``, or
    ``False`` for none); ``timeout`` bounds the connection and each read, in seconds.
    """

    def __init__(
        self,
        url: str,
        key: str,
        *,
        mind_id: Optional[str] = None,
        timeout: float = 30.0,
        retry: Union[Retry, bool] = True,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._transport = Transport(url, key, mind_id=mind_id, timeout=timeout, retry=retry, sleep=sleep)
        self.memory = MemoryResource(self._transport)
        self.notes = NotesResource(self._transport)
        self.cold = ColdResource(self._transport)
        self.sessions = SessionsResource(self._transport)
        self.minds = MindsResource(self._transport)
        self.keys = KeysResource(self._transport)
        self.webhooks = WebhooksResource(self._transport)

    @property
    def url(self) -> str:
        """The Worker's origin this client calls."""
        return self._transport.base_url

    @property
    def mind_id(self) -> Optional[str]:
        """The mind a person's calls work in (sent as X-Mind-Id), or None for a mind key."""
        return self._transport.mind_id

    def bookmark(self, mind_id: Optional[str] = None) -> Optional[str]:
        """The bookmark the next call in a mind will carry (the last one handed back, for any mind when none is named)."""
        return self._transport.bookmark(mind_id)

    def __repr__(self) -> str:
        mind = f", mind_id={self.mind_id!r}" if self.mind_id else ""
        return f"Edgemind({self.url!r}{mind})"
