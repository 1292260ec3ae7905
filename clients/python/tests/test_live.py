"""The client against a live Worker (`wrangler dev`), named by EDGEMIND_URL with a mind key
(EDGEMIND_KEY) and a person's token for that mind (EDGEMIND_TOKEN, EDGEMIND_MIND).
test/node/python-client.test.ts starts one on a fresh local D1 and runs these."""

from __future__ import annotations

import asyncio
import json
import os
import time
import unittest
import uuid
from typing import List

from edgemind import AsyncEdgemind, Edgemind, EdgemindError, Retry
from edgemind.tools import openai_tools

URL = os.environ.get("EDGEMIND_URL", "")
live = unittest.skipUnless(URL, "no live Worker: set EDGEMIND_URL, EDGEMIND_KEY, EDGEMIND_TOKEN and EDGEMIND_MIND")


def unique(base: str) -> str:
    return f"{base}_{uuid.uuid4().hex[:10]}"


def agent() -> Edgemind:
    return Edgemind(URL, os.environ["EDGEMIND_KEY"])


def person() -> Edgemind:
    return Edgemind(URL, os.environ["EDGEMIND_TOKEN"], mind_id=os.environ["EDGEMIND_MIND"])


@live
class MemoryTest(unittest.TestCase):
    def test_a_stored_memory_is_found_by_search_and_stored_again_in_place(self) -> None:
        client, key = agent(), unique("editor")
        stored = client.memory.store(category="preference", key=key, content="Uses Helix as the editor", tags=["editor"])
        self.assertTrue(stored["created"])
        self.assertEqual((stored["memory"]["source"], stored["memory"]["verified"]), ("agent", False))
        again = client.memory.store(category="preference", key=key, content="Uses Helix as the editor, with vim keys")
        self.assertEqual((again["created"], again["memory"]["id"]), (False, stored["memory"]["id"]))
        found = client.memory.search("helix editor")
        self.assertIn(key, [m["key"] for m in found["results"]])
        self.assertTrue(client.bookmark(), "the answer's bookmark is kept for the next call")
        self.assertIn("with vim keys", client.memory.recall(max_tokens=2000)["text"])
        self.assertEqual([h["action"] for h in client.memory.history(stored["memory"]["id"])][:2], ["create", "update"])

    def test_a_missing_memory_raises_not_found_with_the_request_id(self) -> None:
        with self.assertRaises(EdgemindError) as raised:
            agent().memory.get("mem_missing")
        error = raised.exception
        self.assertEqual((error.status, error.code), (404, "not_found"))
        self.assertTrue(error.request_id)

    def test_a_person_verifies_what_an_agent_stored(self) -> None:
        stored = agent().memory.store(category="fact", key=unique("birthday"), content="Birthday on the 12th of March")
        verified = person().memory.verify(stored["memory"]["id"])
        self.assertTrue(verified["verified"])


@live
class SessionsTest(unittest.TestCase):
    def test_a_sessions_context_holds_the_memory_matching_the_message_and_the_dialogue(self) -> None:
        client = agent()
        client.memory.store(category="preference", key=unique("drink"), content="Drinks green tea in the morning")
        opened = client.sessions.create(unique("morning"))
        self.assertTrue(opened["created"])
        session_id = opened["session"]["id"]
        client.sessions.add_message(session_id, "user", "What do I drink in the morning?")
        client.sessions.add_message(session_id, "tool", "42 files uploaded", ephemeral=True, tool="upload")
        context = client.sessions.context(session_id, q="drink morning", max_tokens=1500)
        self.assertIn("Drinks green tea in the morning", context["system"])
        self.assertIn("What do I drink in the morning?", context["prompt"])
        self.assertNotIn("42 files uploaded", context["prompt"])
        self.assertEqual(context["ephemeral_left_out"]["messages"], 1)
        window = client.sessions.messages(session_id, channel="ui")
        self.assertEqual([m["content"] for m in window["messages"]], ["What do I drink in the morning?", "42 files uploaded"])
        self.assertEqual(client.sessions.done(session_id)["cleared"], 1)


@live
class ColdMemoryTest(unittest.TestCase):
    def test_a_write_at_a_stale_version_is_refused_with_409_and_nothing_changes(self) -> None:
        client, namespace = agent(), unique("cold")
        first = client.cold.get(agent=namespace)
        self.assertEqual(first["version"], 0)
        written = client.cold.put("## profile\n- Alice, engineer\n", first["version"], agent=namespace)
        self.assertEqual(written["version"], 1)
        with self.assertRaises(EdgemindError) as raised:
            client.cold.put("## profile\n- Bob\n", first["version"], agent=namespace)
        self.assertEqual((raised.exception.status, raised.exception.code), (409, "memory_changed"))
        self.assertEqual(client.cold.get(agent=namespace)["text"], "## profile\n- Alice, engineer\n")
        self.assertEqual(client.cold.diff(0, agent=namespace)["added"], 2)


@live
class RateLimitTest(unittest.TestCase):
    def test_a_real_429_is_raised_with_retry_after_then_waited_out_and_sent_again(self) -> None:
        # A key of its own: its writes (100 per 10 s in wrangler.toml) run out, no other test's do.
        secret = person().keys.create(name=unique("rate"))["key"]
        with self.assertRaises(EdgemindError) as raised:
            self._write_until_refused(Edgemind(URL, secret, retry=False))
        self.assertEqual((raised.exception.status, raised.exception.code, raised.exception.retry_after), (429, "rate_limited", 10.0))
        self.assertTrue(raised.exception.request_id)

        waits: List[float] = []

        def wait(seconds: float) -> None:
            waits.append(seconds)
            time.sleep(seconds)

        retrying = Edgemind(URL, secret, retry=Retry(attempts=2, max_wait_seconds=15), sleep=wait)
        with self.assertRaises(EdgemindError) as after_wait:
            for _ in range(250):
                try:
                    retrying.memory.forget("mem_missing")
                except EdgemindError as failed:
                    if waits:
                        raise
                    self.assertEqual(failed.status, 404)
        self.assertEqual(waits, [10.0], "one wait, as long as Retry-After said")
        self.assertEqual(after_wait.exception.status, 404, "sent again after the wait, the write got through the limit")

    def _write_until_refused(self, client: Edgemind) -> None:
        """Writes (deleting a memory that is not there: 404, counted all the same) until a 429 is raised."""
        for _ in range(250):
            try:
                client.memory.forget("mem_missing")
            except EdgemindError as failed:
                if failed.status != 404:
                    raise
        self.fail("no 429 after 250 writes")


@live
class PersonTest(unittest.TestCase):
    def test_a_person_lists_minds_and_makes_and_revokes_keys(self) -> None:
        client = person()
        self.assertIn(os.environ["EDGEMIND_MIND"], [m["id"] for m in client.minds.list()])
        made = client.keys.create(name=unique("laptop"))
        self.assertTrue(made["key"].startswith("emk_"))
        self.assertIn(made["id"], [k["id"] for k in client.keys.list()])
        Edgemind(URL, made["key"]).notes.add("Prefers short answers")
        client.keys.revoke(made["id"])
        with self.assertRaises(EdgemindError) as raised:
            Edgemind(URL, made["key"], retry=False).notes.list()
        self.assertEqual(raised.exception.status, 401)

    def test_an_exported_mind_imports_into_a_new_one(self) -> None:
        client = person()
        agent().memory.store(category="fact", key=unique("exported"), content="Carried over by export and import")
        archive = client.minds.export()
        copy = client.minds.create(unique("copy"))
        try:
            result = client.minds.import_(archive, copy["id"])
            self.assertEqual(result["import"]["state"], "done")
            self.assertIsNotNone(result["imported"])
            copied = Edgemind(URL, os.environ["EDGEMIND_TOKEN"], mind_id=copy["id"]).memory.search("carried over export")
            self.assertIn("Carried over by export and import", [m["content"] for m in copied["results"]])
        finally:
            client.minds.delete(copy["id"])


@live
class AsyncAndToolsTest(unittest.TestCase):
    def test_the_async_client_runs_calls_side_by_side(self) -> None:
        keys = [unique("async") for _ in range(3)]

        async def run() -> List[bool]:
            client = AsyncEdgemind(URL, os.environ["EDGEMIND_KEY"])
            stored = await asyncio.gather(*(client.memory.store(category="fact", key=k, content=f"Async fact {k}") for k in keys))
            return [s["created"] for s in stored]

        self.assertEqual(asyncio.run(run()), [True, True, True])
        listed = agent().memory.list(category="fact", limit=100)["memories"]
        self.assertEqual(sorted(m["key"] for m in listed if m["key"] in keys), sorted(keys))

    def test_the_openai_tools_store_search_and_assemble_context_compactly(self) -> None:
        client = agent()
        tools = openai_tools(client)
        key = unique("tools")
        stored = json.loads(tools.dispatch("memory_store", json.dumps({"category": "preference", "key": key, "content": "Likes rye bread"})))
        self.assertTrue(stored["created"])
        found = json.loads(tools.dispatch("memory_search", {"q": "rye bread"}))
        hit = next(r for r in found["results"] if r["key"] == key)
        self.assertEqual(set(hit) - {"tags", "priority", "expires"}, {"id", "category", "key", "content", "verified", "score", "updated"})
        self.assertRegex(hit["updated"], r"^\d{4}-\d\d-\d\dT\d\d:\d\dZ$")
        session_id = client.sessions.create(unique("bread"))["session"]["id"]
        client.sessions.add_message(session_id, "user", "Which bread do I like?")
        context = json.loads(tools.dispatch("session_context", {"sessionId": session_id, "q": "bread"}))
        self.assertIn("Likes rye bread", context["system"])
        self.assertNotIn("session_id", context)


if __name__ == "__main__":
    unittest.main()
