import { env } from "cloudflare:workers";
import { it } from "vitest";
import { toIndexText } from "../../src/memory/normalize";
import { ensureChat } from "../../src/sessions/chats";
import { sessionObject } from "../../src/sessions/objects";
import { openSession } from "../../src/sessions/sessions";
import { benchDeps, mindD1, newMindScope } from "./bench-deps";
import { progress, report } from "./report";

const input = env.BENCH_INPUT as { texts: string[]; appends: number; parallel: number };

type Append = (i: number) => Promise<void>;

/** Times `count` calls one after another. */
async function sequential(count: number, call: Append) {
  const ms: number[] = [];
  const t0 = Date.now();
  for (let i = 0; i < count; i++) {
    const s = Date.now();
    await call(i);
    ms.push(Date.now() - s);
  }
  return { ms, totalMs: Date.now() - t0 };
}

/** `lanes` sequences of `count` calls running side by side. */
async function parallel(lanes: Append[], count: number) {
  const t0 = Date.now();
  const runs = await Promise.all(lanes.map((lane) => sequential(count, lane)));
  return { ms: runs.flatMap((r) => r.ms), totalMs: Date.now() - t0 };
}

/** A new session of a new mind, and a call appending message i to it through its object. */
async function sessionAppender(name: string): Promise<{ append: Append; raw: Append }> {
  const deps = benchDeps();
  const scope = await newMindScope(name, deps);
  const { chat } = await ensureChat(scope, "api", name);
  const { session } = await openSession(scope, chat.id, { task_name: name });
  const target = { mindId: scope.mind.id, sessionId: session.id };
  const stub = sessionObject(env.SESSIONS, session.id);
  const text = (i: number) => input.texts[i % input.texts.length]!;
  const insert = mindD1(deps, scope).prepare(
    "insert into messages (mind_id, session_id, role, content, ephemeral, tool, created_at, search_content) values (?, ?, 'user', ?, 0, null, ?, ?)",
  );
  return {
    append: async (i) => {
      const result = await stub.append(target, { role: i % 2 === 0 ? "user" : "assistant", content: text(i) }, { agentFilter: null, settings: scope.mind.settings });
      if (!result.ok) throw new Error(result.message);
    },
    raw: async (i) => {
      await insert.bind(scope.mind.id, session.id, text(i), new Date().toISOString(), toIndexText(scope.mind.id, text(i))).run();
    },
  };
}

it("appends through the session object against raw D1 inserts", async () => {
  const one = await sessionAppender("one");
  const object = await sequential(input.appends, one.append);
  progress(`one session: ${input.appends} appends in ${object.totalMs} ms`);
  const rawOne = await sessionAppender("raw-one");
  const raw = await sequential(input.appends, rawOne.raw);
  const lanes = await Promise.all(Array.from({ length: input.parallel }, (_, i) => sessionAppender(`lane-${i}`)));
  const perLane = Math.ceil(input.appends / input.parallel) * 2;
  const objectParallel = await parallel(lanes.map((l) => l.append), perLane);
  progress(`${input.parallel} sessions: ${perLane} appends each in ${objectParallel.totalMs} ms`);
  const rawLanes = await Promise.all(Array.from({ length: input.parallel }, (_, i) => sessionAppender(`raw-lane-${i}`)));
  const rawParallel = await parallel(rawLanes.map((l) => l.raw), perLane);
  report({ appends: input.appends, perLane, parallel: input.parallel, object, raw, objectParallel, rawParallel });
});
