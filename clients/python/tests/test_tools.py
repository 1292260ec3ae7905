"""The memory tools for OpenAI function calling: the MCP tools' names, compact answers, errors for the model."""

from __future__ import annotations

import asyncio
import json
import unittest
from pathlib import Path

from stub import Scripted, StubServer

from edgemind import AsyncEdgemind, Edgemind
from edgemind._compact import compact_context, compact_recall, compact_search, compact_stored, rounded, short_date
from edgemind.tools import openai_tools, tool_schemas

MEMORY = {
    "id": "mem_1",
    "mind_id": "mind_1",
    "agent": "default",
    "category": "preference",
    "key": "tea",
    "content": "Green tea, never coffee",
    "tags": ["drinks"],
    "priority": "normal",
    "source": "agent",
    "verified": False,
    "confidence": 0.7,
    "expires_at": None,
    "created_at": "2026-12-01T08:00:00.000Z",
    "updated_at": "2026-12-06T10:11:12.345Z",
}


class SchemasTest(unittest.TestCase):
    def test_the_four_tools_as_openai_function_schemas(self) -> None:
        schemas = tool_schemas()
        self.assertEqual([s["function"]["name"] for s in schemas], ["memory_search", "memory_store", "memory_recall", "session_context"])
        for schema in schemas:
            self.assertEqual(schema["type"], "function")
            self.assertEqual(schema["function"]["parameters"]["type"], "object")
            self.assertTrue(schema["function"]["description"])
        self.assertEqual(schemas[0]["function"]["parameters"]["required"], ["q"])
        self.assertEqual(schemas[3]["function"]["parameters"]["required"], ["sessionId"])

    def test_each_call_gets_its_own_copy_to_change(self) -> None:
        tool_schemas()[0]["function"]["name"] = "changed"
        self.assertEqual(tool_schemas()[0]["function"]["name"], "memory_search")


class CompactTest(unittest.TestCase):
    def test_a_search_answer_keeps_what_a_model_can_use(self) -> None:
        found = {"results": [{**MEMORY, "score": 1.2999999787653283e-6}], "retrieval": "full_text"}
        with StubServer(Scripted(200, found)) as stub:
            tools = openai_tools(Edgemind(stub.url, "emk_test"))
            answer = tools.dispatch("memory_search", '{"q": "tea", "limit": 3}')
        self.assertEqual(stub.received[0].path, "/memory/search?q=tea&limit=3")
        expected = {"id": "mem_1", "category": "preference", "key": "tea", "content": "Green tea, never coffee", "tags": ["drinks"]}
        expected.update({"verified": False, "score": 1.3e-06, "updated": "2026-12-06T10:11Z"})
        self.assertEqual(json.loads(answer), {"results": [expected]})
        self.assertNotIn(" ", answer.replace("Green tea, never coffee", ""))

    def test_a_replaced_statement_says_when_it_was_replaced_and_by_what(self) -> None:
        old = {**MEMORY, "observed_at": "2026-11-20T09:00:00.000Z", "valid_until": "2026-12-06T10:11:12.345Z", "superseded_by": "mem_2"}
        found = {"results": [{**old, "score": 0.5}], "retrieval": "full_text"}
        with StubServer(Scripted(200, found)) as stub:
            tools = openai_tools(Edgemind(stub.url, "emk_test"))
            answer = json.loads(tools.dispatch("memory_search", {"q": "tea", "include_superseded": True, "as_of": "2026-12-01"}))
        self.assertEqual(stub.received[0].path, "/memory/search?q=tea&as_of=2026-12-01&include=superseded")
        self.assertEqual(
            {k: answer["results"][0][k] for k in ("stated", "replaced", "superseded_by")},
            {"stated": "2026-11-20T09:00Z", "replaced": "2026-12-06T10:11Z", "superseded_by": "mem_2"},
        )

    def test_dates_are_short_and_scores_rounded(self) -> None:
        self.assertEqual(short_date("2026-12-06T10:11:12.345Z"), "2026-12-06T10:11Z")
        self.assertIsNone(short_date(None))
        self.assertEqual(rounded(0.123456), 0.123)
        self.assertEqual(rounded(42.0), 42.0)

    def test_a_context_answer_is_its_text_and_cost_with_what_was_left_out_counted(self) -> None:
        part = {"part": "recall", "ref": "mem_1", "verified": True, "text": "- tea", "tokens": 3}
        context = {
            "session_id": "ses_1",
            "q": "tea",
            "budget": 300,
            "tokens": 40,
            "system": "<memory>…</memory>",
            "prompt": "user: tea?",
            "parts": [{**part, "included": True, "reason": "fits"}, {**part, "included": False, "reason": "duplicate"}],
            "ephemeral_left_out": {"messages": 0, "rule": "…"},
            "retrieval": "full_text",
        }
        compact = compact_context(context)  # type: ignore[arg-type]
        self.assertEqual(compact, {"system": "<memory>…</memory>", "prompt": "user: tea?", "tokens": 40, "budget": 300, "left_out": {"duplicate": 1}})
        with StubServer(Scripted(200, context)) as stub:
            tools = openai_tools(Edgemind(stub.url, "emk_test"))
            tools.dispatch("session_context", {"sessionId": "ses_1", "q": "tea", "as_of": "2026-12-01", "include_superseded": True})
        self.assertEqual(stub.received[0].path, "/sessions/ses_1/context?q=tea&as_of=2026-12-01&include=superseded")


class AgreesWithTheTypeScriptTest(unittest.TestCase):
    def test_each_answer_is_made_as_compact_as_the_mcp_and_ai_sdk_tools_make_it(self) -> None:
        cases = json.loads((Path(__file__).parent / "compact_cases.json").read_text(encoding="utf-8"))
        compact = {"memory_search": compact_search, "memory_store": compact_stored, "memory_recall": compact_recall, "session_context": compact_context}
        self.assertEqual(sorted(case["tool"] for case in cases), sorted(compact))
        for case in cases:
            with self.subTest(tool=case["tool"]):
                made = compact[case["tool"]](case["answer"])
                self.assertEqual(made, case["compact"])
                self.assertEqual(list(made), list(case["compact"]), "the same fields in the same order")


class DispatchTest(unittest.TestCase):
    def test_a_failed_call_answers_the_error_for_the_model_to_read(self) -> None:
        refused = {"error": {"code": "invalid_request", "message": "key: must be snake_case", "requestId": "req_1"}}
        with StubServer(Scripted(400, refused)) as stub:
            tools = openai_tools(Edgemind(stub.url, "emk_test"))
            answer = tools.dispatch("memory_store", {"category": "fact", "key": "Bad Key", "content": "x"})
        self.assertEqual(json.loads(answer), {"error": {"code": "invalid_request", "message": "key: must be snake_case"}})

    def test_calls_no_tool_takes_are_refused_before_anything_is_sent(self) -> None:
        with StubServer(Scripted(200, {})) as stub:
            tools = openai_tools(Edgemind(stub.url, "emk_test"))
            answers = [
                tools.dispatch("memory_delete", "{}"),
                tools.dispatch("memory_search", '{"query": "tea"}'),
                tools.dispatch("memory_search", "{}"),
                tools.dispatch("memory_recall", "[1]"),
                tools.dispatch("memory_recall", "{not json"),
            ]
        self.assertEqual(stub.received, [])
        messages = [json.loads(a)["error"]["message"] for a in answers]
        self.assertIn("the tools are memory_search, memory_store, memory_recall, session_context", messages[0])
        self.assertEqual(messages[1], "unknown argument query: the tool takes q, tag, category, limit, as_of, include_superseded")
        self.assertEqual(messages[2], "missing argument q")
        self.assertEqual(messages[3], "the arguments must be a JSON object")
        self.assertTrue(messages[4].startswith("the arguments are not JSON"))

    def test_the_async_client_gets_an_awaited_dispatcher(self) -> None:
        with StubServer(Scripted(200, "- tea", {"X-Token-Count": "3"})) as stub:
            tools = openai_tools(AsyncEdgemind(stub.url, "emk_test"))
            answer = asyncio.run(tools.dispatch("memory_recall", None))
        self.assertEqual(json.loads(answer), {"tokens": 3, "text": "- tea"})


if __name__ == "__main__":
    unittest.main()
