"""The client's methods take what the routes take, as the OpenAPI document declares it."""

from __future__ import annotations

import inspect
import json
import unittest
from pathlib import Path
from typing import Any, Callable, Dict, Set, Tuple

from edgemind import NOT_GIVEN
from edgemind._memory import MemoryResource
from edgemind._minds import KeysResource, MindsResource
from edgemind._notes import ColdResource, NotesResource
from edgemind._sessions import SessionsResource
from edgemind._webhooks import WebhooksResource
from edgemind.aio import AsyncEdgemind

DOCUMENT_PATH = Path(__file__).resolve().parents[3] / "packages" / "client" / "openapi.json"

#: Each method and the route it calls; the arguments named otherwise than the route's fields.
ROUTES: Dict[Tuple[type, str], Tuple[str, str]] = {
    (MemoryResource, "store"): ("post", "/memory"),
    (MemoryResource, "get"): ("get", "/memory/{id}"),
    (MemoryResource, "update"): ("put", "/memory/{id}"),
    (MemoryResource, "list"): ("get", "/memory"),
    (MemoryResource, "search"): ("get", "/memory/search"),
    (MemoryResource, "recall"): ("get", "/memory/recall"),
    (MemoryResource, "by_tag"): ("get", "/memory/by-tag"),
    (MemoryResource, "expiring"): ("get", "/memory/expiring"),
    (MemoryResource, "history"): ("get", "/memory/{id}/history"),
    (MemoryResource, "verify"): ("post", "/memory/{id}/verify"),
    (MemoryResource, "forget"): ("delete", "/memory/{id}"),
    (NotesResource, "add"): ("post", "/notes"),
    (NotesResource, "list"): ("get", "/notes"),
    (NotesResource, "search"): ("get", "/notes/search"),
    (NotesResource, "verify"): ("post", "/notes/{id}/verify"),
    (NotesResource, "delete"): ("delete", "/notes/{id}"),
    (ColdResource, "get"): ("get", "/cold"),
    (ColdResource, "put"): ("put", "/cold"),
    (ColdResource, "versions"): ("get", "/cold/versions"),
    (ColdResource, "version"): ("get", "/cold/versions/{version}"),
    (ColdResource, "diff"): ("get", "/cold/diff"),
    (ColdResource, "rollback"): ("post", "/cold/rollback"),
    (SessionsResource, "create"): ("post", "/sessions"),
    (SessionsResource, "get"): ("get", "/sessions/{id}"),
    (SessionsResource, "list"): ("get", "/sessions"),
    (SessionsResource, "add_message"): ("post", "/sessions/{id}/messages"),
    (SessionsResource, "messages"): ("get", "/sessions/{id}/messages"),
    (SessionsResource, "context"): ("get", "/sessions/{id}/context"),
    (SessionsResource, "done"): ("post", "/sessions/{id}/complete"),
    (SessionsResource, "delete"): ("delete", "/sessions/{id}"),
    (SessionsResource, "search"): ("get", "/sessions/search"),
    (MindsResource, "list"): ("get", "/minds"),
    (MindsResource, "create"): ("post", "/minds"),
    (MindsResource, "get"): ("get", "/minds/{id}"),
    (MindsResource, "update"): ("patch", "/minds/{id}"),
    (MindsResource, "delete"): ("delete", "/minds/{id}"),
    (MindsResource, "export"): ("get", "/minds/{id}/export"),
    (MindsResource, "import_"): ("post", "/minds/{id}/import"),
    (MindsResource, "get_import"): ("get", "/minds/{id}/import/{importId}"),
    (MindsResource, "login_link"): ("post", "/minds/{id}/login-link"),
    (KeysResource, "list"): ("get", "/minds/{id}/keys"),
    (KeysResource, "create"): ("post", "/minds/{id}/keys"),
    (KeysResource, "revoke"): ("delete", "/minds/{id}/keys/{keyId}"),
    (WebhooksResource, "create"): ("post", "/minds/{id}/webhooks"),
    (WebhooksResource, "list"): ("get", "/minds/{id}/webhooks"),
    (WebhooksResource, "get"): ("get", "/minds/{id}/webhooks/{webhookId}"),
    (WebhooksResource, "delete"): ("delete", "/minds/{id}/webhooks/{webhookId}"),
    (WebhooksResource, "rotate"): ("post", "/minds/{id}/webhooks/{webhookId}/rotate"),
    (WebhooksResource, "enable"): ("post", "/minds/{id}/webhooks/{webhookId}/enable"),
    (WebhooksResource, "attempts"): ("get", "/minds/{id}/webhooks/{webhookId}/attempts"),
    (WebhooksResource, "replay"): ("post", "/minds/{id}/webhooks/{webhookId}/replay"),
}
#: Arguments named for Python (a keyword, or a clearer name) and the field each stands for.
RENAMED = {"from_version": "from", "to_version": "to", "import_id": "importId", "key_id": "keyId", "webhook_id": "webhookId", "mind_id": "id"}
#: Arguments that are a body of another type than JSON.
NOT_JSON = {(MindsResource, "import_"): {"archive"}}
#: Arguments with a default of their own (the route's, or the usual answer).
DEFAULTS = {"within": "7d", "confirmed": True}
RESOURCES = [MemoryResource, NotesResource, ColdResource, SessionsResource, MindsResource, KeysResource, WebhooksResource]


def _public_methods(resource: type) -> Set[str]:
    return {name for name, value in vars(resource).items() if callable(value) and not name.startswith("_")}


def _route_fields(document: Dict[str, Any], method: str, path: str) -> Dict[str, Tuple[bool, bool]]:
    """Each field a route takes in its path, query or JSON body: (required, nullable)."""
    operation = document["paths"][path][method]
    fields: Dict[str, Tuple[bool, bool]] = {}
    for parameter in operation.get("parameters", []):
        if parameter.get("in") in ("path", "query"):
            fields[parameter["name"]] = (bool(parameter.get("required")), False)
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    for name, schema in (body or {}).get("properties", {}).items():
        if schema:  # `{}`: a field the route refuses
            types = schema.get("type")
            fields[name] = (name in body.get("required", []), isinstance(types, list) and "null" in types)
    return fields


class SurfaceTest(unittest.TestCase):
    document: Dict[str, Any]

    @classmethod
    def setUpClass(cls) -> None:
        cls.document = json.loads(DOCUMENT_PATH.read_text(encoding="utf-8"))

    def test_every_method_is_checked_against_its_route(self) -> None:
        listed = {(resource, name) for resource, name in ROUTES}
        every = {(resource, name) for resource in RESOURCES for name in _public_methods(resource)}
        self.assertEqual(every, listed)

    def test_each_method_takes_its_routes_fields_required_where_the_route_requires_them(self) -> None:
        for (resource, name), (method, path) in ROUTES.items():
            with self.subTest(f"{resource.__name__}.{name} → {method.upper()} {path}"):
                function: Callable[..., Any] = getattr(resource, name)
                parameters = list(inspect.signature(function).parameters.values())[1:]
                taken = {RENAMED.get(p.name, p.name): p for p in parameters if p.name not in NOT_JSON.get((resource, name), set())}
                fields = _route_fields(self.document, method, path)
                self.assertEqual(set(taken), set(fields))
                for field, (required, nullable) in fields.items():
                    default = taken[field].default
                    own_mind = field == "id" and resource in (MindsResource, KeysResource, WebhooksResource) and not (resource is MindsResource and name == "delete")
                    if field in DEFAULTS:
                        self.assertEqual(default, DEFAULTS[field], f"{field} defaults as the route does")
                    elif own_mind:
                        self.assertIsNone(default, "a person's mind id defaults to the client's own")
                    elif required:
                        self.assertIs(default, inspect.Parameter.empty, f"{field} is required")
                    elif nullable:
                        self.assertIs(default, NOT_GIVEN, f"{field} takes null: left out by default, None sends null")
                    else:
                        self.assertIsNone(default, f"{field} is optional: None leaves it out")

    def test_the_async_client_has_every_method_of_the_sync_one(self) -> None:
        client = AsyncEdgemind("http://127.0.0.1:1", "emk_test")
        for attribute, resource in [("memory", MemoryResource), ("notes", NotesResource), ("cold", ColdResource), ("sessions", SessionsResource), ("minds", MindsResource), ("keys", KeysResource), ("webhooks", WebhooksResource)]:
            for name in _public_methods(resource):
                with self.subTest(f"{attribute}.{name}"):
                    awaited = getattr(getattr(client, attribute), name)
                    self.assertTrue(inspect.iscoroutinefunction(awaited))
                    self.assertEqual(inspect.signature(awaited), inspect.signature(getattr(getattr(client.sync, attribute), name)))


if __name__ == "__main__":
    unittest.main()
