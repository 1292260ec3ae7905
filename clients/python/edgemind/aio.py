"""The asyncio client: every call of the sync client, awaited, run in a worker thread."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Optional, TypeVar, Union

from edgemind._memory import MemoryResource
from edgemind._minds import KeysResource, MindsResource
from edgemind._notes import ColdResource, NotesResource
from edgemind._sessions import SessionsResource
from edgemind._transport import Retry
from edgemind._webhooks import WebhooksResource
from edgemind.client import Edgemind

if TYPE_CHECKING:
    # Only for type checkers (typing has them from 3.10): the awaited method keeps its signature.
    from typing import Concatenate, ParamSpec

    P = ParamSpec("P")

R = TypeVar("R")
S = TypeVar("S")


def _in_thread(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]:
    """The sync resource's method as a coroutine of the async resource, run by asyncio.to_thread."""

    @functools.wraps(method)
    async def awaited(self: Any, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(method, self._sync, *args, **kwargs)

    return awaited


class _AsyncResource:
    def __init__(self, sync: Any) -> None:
        self._sync = sync


class AsyncMemoryResource(_AsyncResource):
    """``client.memory``, awaited."""

    store = _in_thread(MemoryResource.store)
    get = _in_thread(MemoryResource.get)
    update = _in_thread(MemoryResource.update)
    list = _in_thread(MemoryResource.list)
    search = _in_thread(MemoryResource.search)
    recall = _in_thread(MemoryResource.recall)
    by_tag = _in_thread(MemoryResource.by_tag)
    expiring = _in_thread(MemoryResource.expiring)
    history = _in_thread(MemoryResource.history)
    verify = _in_thread(MemoryResource.verify)
    forget = _in_thread(MemoryResource.forget)


class AsyncNotesResource(_AsyncResource):
    """``client.notes``, awaited."""

    add = _in_thread(NotesResource.add)
    list = _in_thread(NotesResource.list)
    search = _in_thread(NotesResource.search)
    verify = _in_thread(NotesResource.verify)
    delete = _in_thread(NotesResource.delete)


class AsyncColdResource(_AsyncResource):
    """``client.cold``, awaited."""

    get = _in_thread(ColdResource.get)
    put = _in_thread(ColdResource.put)
    versions = _in_thread(ColdResource.versions)
    version = _in_thread(ColdResource.version)
    diff = _in_thread(ColdResource.diff)
    rollback = _in_thread(ColdResource.rollback)


class AsyncSessionsResource(_AsyncResource):
    """``client.sessions``, awaited."""

    create = _in_thread(SessionsResource.create)
    get = _in_thread(SessionsResource.get)
    list = _in_thread(SessionsResource.list)
    add_message = _in_thread(SessionsResource.add_message)
    messages = _in_thread(SessionsResource.messages)
    context = _in_thread(SessionsResource.context)
    done = _in_thread(SessionsResource.done)
    delete = _in_thread(SessionsResource.delete)
    search = _in_thread(SessionsResource.search)


class AsyncMindsResource(_AsyncResource):
    """``client.minds``, awaited."""

    list = _in_thread(MindsResource.list)
    create = _in_thread(MindsResource.create)
    get = _in_thread(MindsResource.get)
    update = _in_thread(MindsResource.update)
    delete = _in_thread(MindsResource.delete)
    export = _in_thread(MindsResource.export)
    import_ = _in_thread(MindsResource.import_)
    get_import = _in_thread(MindsResource.get_import)
    login_link = _in_thread(MindsResource.login_link)


class AsyncKeysResource(_AsyncResource):
    """``client.keys``, awaited."""

    list = _in_thread(KeysResource.list)
    create = _in_thread(KeysResource.create)
    revoke = _in_thread(KeysResource.revoke)


class AsyncWebhooksResource(_AsyncResource):
    """``client.webhooks``, awaited."""

    create = _in_thread(WebhooksResource.create)
    list = _in_thread(WebhooksResource.list)
    get = _in_thread(WebhooksResource.get)
    delete = _in_thread(WebhooksResource.delete)
    rotate = _in_thread(WebhooksResource.rotate)
    enable = _in_thread(WebhooksResource.enable)
    attempts = _in_thread(WebhooksResource.attempts)
    replay = _in_thread(WebhooksResource.replay)


class AsyncEdgemind:
    """The asyncio twin of :class:`edgemind.Edgemind`: the same resources and arguments, each call awaited.

    Calls run in worker threads (``asyncio.to_thread``), so they overlap; retries wait in the thread.
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
        #: The sync client whose calls this one awaits.
        self.sync = Edgemind(url, key, mind_id=mind_id, timeout=timeout, retry=retry, sleep=sleep)
        self.memory = AsyncMemoryResource(self.sync.memory)
        self.notes = AsyncNotesResource(self.sync.notes)
        self.cold = AsyncColdResource(self.sync.cold)
        self.sessions = AsyncSessionsResource(self.sync.sessions)
        self.minds = AsyncMindsResource(self.sync.minds)
        self.keys = AsyncKeysResource(self.sync.keys)
        self.webhooks = AsyncWebhooksResource(self.sync.webhooks)

    @property
    def url(self) -> str:
        return self.sync.url

    @property
    def mind_id(self) -> Optional[str]:
        return self.sync.mind_id

    def bookmark(self, mind_id: Optional[str] = None) -> Optional[str]:
        """The bookmark the next call in a mind will carry."""
        return self.sync.bookmark(mind_id)

    def __repr__(self) -> str:
        return f"Async{self.sync!r}"
