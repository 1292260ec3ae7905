"""edgemind's memory tools for OpenAI function calling (and any model API that takes JSON Schema tools).

``openai_tools(client)`` gives the four tools the MCP server offers under the same names and
descriptions (memory_search, memory_store, memory_recall, session_context) and a dispatcher that
runs a model's call and answers compact JSON: no ids the model cannot use, scores rounded, dates short.
"""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any, Callable, Coroutine, Dict, List, Mapping, NamedTuple, Union, cast, overload

from edgemind._compact import compact_context, compact_recall, compact_search, compact_stored
from edgemind._tool_definitions import TOOL_DEFINITIONS
from edgemind.aio import AsyncEdgemind
from edgemind.client import Edgemind
from edgemind.errors import EdgemindError

Arguments = Union[str, Mapping[str, Any], None]


class OpenAITools(NamedTuple):
    """The tools' schemas for ``tools=`` and ``dispatch(name, arguments)``, which answers the tool message's content."""

    schemas: List[Dict[str, Any]]
    dispatch: Callable[[str, Arguments], str]


class AsyncOpenAITools(NamedTuple):
    """As OpenAITools, with ``dispatch`` awaited."""

    schemas: List[Dict[str, Any]]
    dispatch: Callable[[str, Arguments], Coroutine[Any, Any, str]]


def tool_schemas() -> List[Dict[str, Any]]:
    """The four tools as OpenAI function-calling schemas (``{"type": "function", "function": {…}}``)."""
    return [{"type": "function", "function": copy.deepcopy(definition)} for definition in TOOL_DEFINITIONS]


@overload
def openai_tools(client: Edgemind) -> OpenAITools: ...
@overload
def openai_tools(client: AsyncEdgemind) -> AsyncOpenAITools: ...
def openai_tools(client: Union[Edgemind, AsyncEdgemind]) -> Union[OpenAITools, AsyncOpenAITools]:
    """The memory tools and their dispatcher for a client (an AsyncEdgemind gets an awaited dispatcher).

    ``dispatch`` takes a tool call's name and arguments (the JSON text the model wrote, or a dict)
    and answers JSON text for the tool message: the call's compact result, or ``{"error": {code, message}}``
    for the model to read when the call failed, so one bad call does not end the conversation.
    """
    if isinstance(client, AsyncEdgemind):
        sync_dispatch = _dispatcher(client.sync)

        async def dispatch_async(name: str, arguments: Arguments) -> str:
            return await asyncio.to_thread(sync_dispatch, name, arguments)

        return AsyncOpenAITools(tool_schemas(), dispatch_async)
    return OpenAITools(tool_schemas(), _dispatcher(client))


def _dispatcher(client: Edgemind) -> Callable[[str, Arguments], str]:
    calls: Dict[str, Callable[[Dict[str, Any]], Any]] = {
        "memory_search": lambda a: compact_search(client.memory.search(**_superseded(a))),
        "memory_store": lambda a: compact_stored(client.memory.store(**a)),
        "memory_recall": lambda a: compact_recall(client.memory.recall(**_superseded(a))),
        "session_context": lambda a: compact_context(client.sessions.context(a.pop("sessionId"), **_superseded(a))),
    }
    parameters = {d["name"]: d["parameters"] for d in TOOL_DEFINITIONS}

    def dispatch(name: str, arguments: Arguments) -> str:
        try:
            if name not in calls:
                raise EdgemindError(400, "unknown_tool", f"no tool {name!r}: the tools are {', '.join(calls)}")
            result = calls[name](_arguments_of(arguments, parameters[name]))
        except EdgemindError as failed:
            result = {"error": {"code": failed.code, "message": failed.message}}
        return json.dumps(result, ensure_ascii=False, separators=(",", ":"))

    return dispatch


def _superseded(arguments: Dict[str, Any]) -> Dict[str, Any]:
    """A tool's ``include_superseded`` as the route's ``include=superseded``."""
    include = arguments.pop("include_superseded", None)
    return {**arguments, "include": "superseded"} if include else arguments


def _arguments_of(arguments: Arguments, schema: Mapping[str, Any]) -> Dict[str, Any]:
    """The call's arguments as a dict the client takes, or a failure naming what is wrong with them."""
    if arguments is None or arguments == "":
        parsed: Any = {}
    elif isinstance(arguments, str):
        try:
            parsed = json.loads(arguments)
        except ValueError as bad:
            raise EdgemindError(400, "invalid_request", f"the arguments are not JSON: {bad}") from None
    else:
        parsed = dict(arguments)
    if not isinstance(parsed, dict):
        raise EdgemindError(400, "invalid_request", "the arguments must be a JSON object")
    given = cast(Dict[str, Any], parsed)
    known: List[str] = list(schema.get("properties", {}))
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise EdgemindError(400, "invalid_request", f"unknown argument {', '.join(unknown)}: the tool takes {', '.join(known)}")
    missing = [name for name in schema.get("required", []) if given.get(name) is None]
    if missing:
        raise EdgemindError(400, "invalid_request", f"missing argument {', '.join(missing)}")
    return given
