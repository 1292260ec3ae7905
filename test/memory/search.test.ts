import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { FEEDBACK_WEIGHT, feedbackCandidates, feedbackTerms } from "../../src/memory/feedback";
import { storeMemory } from "../../src/memory/memories";
import { mindSearchToken, queryTerms, stem, stems, toIndexText, toMatchExpression } from "../../src/memory/normalize";
import { asksWhen, type Candidate, COVERAGE_BOOST, namesTime, newestFirst, rerank, SPAN_LIFT, WHEN_LIFT } from "../../src/memory/rerank";
import { searchMemories } from "../../src/memory/search";
import type { MindContext } from "../../src/tenancy/mind-context";
import { createMind, ensureAccount } from "../../src/tenancy/minds";
import { call, newTenant, store } from "../helpers";
import { DAY, inMind, manualClock, testDeps } from "../support/deps";
import { freshDatabases } from "../support/fresh-databases";

// UPGRADE_DB must start empty: scores there depend on every row (test/db/migrations.test.ts leaves rows).
beforeAll(freshDatabases);

describe("text normalisation", () => {
  const stemmed = (text: string) => stems(text).join(" ");

  it("folds case, ё and word forms to the same stems in Russian and English", () => {
    expect(stemmed("Ёжик любит МОЛОКО")).toBe(stemmed("ежик любить молока"));
    expect(stemmed("deployments")).toBe(stemmed("deployed"));
    expect(stemmed("e-mail C++ «кавычки»")).toBe("e mail c кавычк");
    // Snowball's algorithms: Porter2 for English (not the original Porter), Russian Snowball.
    expect(stemmed("generously caresses")).toBe("generous caress");
    expect(stemmed("путешествовал путешествиями")).toBe("путешествова путешеств");
  });

  it("leaves words with digits and overlong runs unstemmed, so ids still match and long texts stay fast", () => {
    expect(stemmed("Deploys build42 of ipv6 gateway")).toBe("deploy build42 of ipv6 gateway");
    const run = "x".repeat(7000);
    expect(stemmed(`${run} runs`)).toBe(`${run} run`);
  });

  it("puts the mind's token, 12 lower-case letters and digits from its id, in front of every indexed stem", () => {
    const mind = "mind_01JDX0AB12CDEFGHJKMNPQRSTV";
    expect(mindSearchToken(mind)).toBe("ghjkmnpqrstv");
    expect(mindSearchToken("mind_1")).toBe("0000000mind1");
    expect(toIndexText(mind, "Ёжик deploys")).toBe(`ghjkmnpqrstv${stem("ежик")} ghjkmnpqrstvdeploy`);
    expect(toIndexText(mind, "!!!")).toBe("");
  });

  it("builds MATCH expressions only from the mind's quoted stems", () => {
    const mind = "mind_01jdx0ab12cdefghjkmnpqrstv";
    expect(toMatchExpression(mind, 'NEAR("a" b) AND c* -d key:value')).toBe(
      ["near", "b", "c", "d", "key", "valu"].map((t) => `"ghjkmnpqrstv${t}"`).join(" OR "),
    );
    expect(toMatchExpression(mind, '"" * - ()')).toBeNull();
    expect(queryTerms("what is the deadline")).toEqual(["deadlin"]);
    expect(queryTerms("the who")).toEqual(["the", "who"]);
    // Words that frame a question, not what it asks about, are dropped too.
    expect(queryTerms("How many books did I read in total, two weeks ago?")).toEqual(["book", "read", "two", "week"]);
    expect(queryTerms("Сколько книг я прочитал неделю назад?")).toEqual(queryTerms("книг прочитал неделю"));
  });
});

describe("GET /memory/search", () => {
  let auth: { token: string; mind: string };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const t = await newTenant();
    auth = { token: t.token, mind: t.mind.id };
    const seed: [string, Record<string, unknown>][] = [
      ["love", { key: "loves_to_sing", content: "Маша любить петь по вечерам", tags: ["хобби", "музыка"] }],
      ["hedgehog", { key: "pet", content: "У нас живёт ежик по имени Фыр" }],
      ["fog", { key: "cartoon", content: "Ёжик в тумане — любимый мультфильм" }],
      ["restaurant", { key: "dinner", content: "Любимый ресторан — «Пушкин» на Тверском" }],
      ["milk", { key: "breakfast", content: "На завтрак пьёт молоко с мёдом" }],
      ["deploy", { key: "release_process", content: "We deployed the service with a blue-green rollout" }],
      ["critical", { category: "mistake", key: "friday_rule", content: "Never deploy on Friday evening", priority: "critical" }],
      ["quotes", { key: "quirky", content: 'He writes "C++" and says NEAR AND OR * a lot' }],
      ["tagged", { key: "tag_only", content: "Quarterly planning notes", tags: ["roadmap", "okr"] }],
      ["expired", { key: "old_plan", content: "Deploy moved to staging yesterday", expires_at: new Date(Date.now() - 60_000).toISOString() }],
    ];
    for (const [name, body] of seed) ids[name] = (await store(auth, body)).id;
  });

  const search = async (q: string, extra = "") =>
    call("GET", `/memory/search?q=${encodeURIComponent(q)}${extra}`, auth);
  const foundIds = async (q: string, extra = "") =>
    ((await search(q, extra)).json.results as { id: string }[]).map((r) => r.id);

  it.each([
    ["любит", "love"],
    ["Ёжик", "hedgehog"],
    ["молока", "milk"],
    ["deployments", "deploy"],
  ])("«%s» finds the %s memory", async (q, name) => {
    expect(await foundIds(q)).toContain(ids[name]);
  });

  it("matches tags and keys too", async () => {
    expect(await foundIds("OKR")).toContain(ids.tagged);
    expect(await foundIds("release process")).toContain(ids.deploy);
  });

  it("ranks a critical memory above an equally relevant normal one, and hides expired ones", async () => {
    const results = await foundIds("deploy");
    expect(results[0]).toBe(ids.critical);
    expect(results).toContain(ids.deploy);
    expect(results).not.toContain(ids.expired);
  });

  it("filters by tag and category", async () => {
    expect(await foundIds("петь", "&tag=музыка")).toEqual([ids.love]);
    expect(await foundIds("петь", "&tag=спорт")).toEqual([]);
    expect(await foundIds("deploy", "&category=mistake")).toEqual([ids.critical]);
  });

  it("treats FTS operators, quotes and column filters as plain text", async () => {
    for (const q of ['"C++"', "NEAR AND OR", "*", "content:deploy", '"unbalanced', "-deploy", "deploy OR", "(((", "^a"]) {
      const res = await search(q);
      expect(res.status, q).toBe(200);
    }
    expect(await foundIds('"C++"')).toContain(ids.quotes);
    expect(await foundIds("content:deploy")).toContain(ids.deploy);
  });

  it("searches Russian as the README says: word forms meet, ё is е, operators and quotes are words", async () => {
    // Word forms of one stem find each other, whichever form was stored.
    expect(await foundIds("любила")).toContain(ids.love);
    expect(await foundIds("вечер")).toContain(ids.love);
    // ё and е are one letter, in the memory and in the query.
    expect(await foundIds("живет")).toContain(ids.hedgehog);
    expect(await foundIds("ЁЖИКА")).toContain(ids.hedgehog);
    expect(await foundIds("мед")).toContain(ids.milk);
    // As FTS syntax AND would find neither memory and NOT would hide the hedgehog: here they are words.
    for (const q of ["ежик AND молоко", "молоко NOT ежик", "молоко OR ежик"]) {
      expect(await foundIds(q), q).toEqual(expect.arrayContaining([ids.milk, ids.hedgehog]));
    }
    expect(await foundIds('"молоко с медом"')).toContain(ids.milk);
    // A noun in -ан meets its other cases although Snowball stems its nominative apart.
    for (const q of ["туман", "тумане", "туманы", "туманом"]) expect(await foundIds(q), q).toContain(ids.fog);
    for (const q of ["ресторан", "ресторане", "ресторанов"]) expect(await foundIds(q), q).toContain(ids.restaurant);
    expect(await foundIds("ёжик*")).toContain(ids.hedgehog);
    expect(await foundIds("NEAR(ежик молоко)")).toEqual(expect.arrayContaining([ids.milk, ids.hedgehog]));
  });

  it("answers 400 for an empty query and for a missing one", async () => {
    for (const path of ["/memory/search?q=", "/memory/search?q=%20%20", "/memory/search"]) {
      const res = await call("GET", path, auth);
      expect(res.status, path).toBe(400);
      expect(res.json.error.message).toContain("q");
    }
  });

  it("never answers 5xx, whatever the query (Cyrillic, emoji, quotes, operators)", async () => {
    const pieces = fc.constantFrom('"', "'", "*", "-", "+", "^", ":", "(", ")", "NEAR", "AND", "OR", "NOT", "ё", "Ж", "🎉", "👩‍💻", "\u0000", "\\", "%", "_", "{", "}", " ");
    const query = fc
      .array(fc.oneof(pieces, fc.string({ unit: "grapheme", maxLength: 6 }), fc.string({ unit: "binary", maxLength: 4 })), {
        minLength: 1,
        maxLength: 12,
      })
      .map((parts) => parts.join(""));
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        const res = await search(q);
        expect(res.status).toBeLessThan(500);
        if (q.trim() === "" || q.length > 500) expect(res.status).toBe(400);
      }),
      { numRuns: 150 },
    );
  });
});

describe("ranking within a mind", () => {
  const candidate = (key: string, score: number, content: string, more: Partial<Candidate> = {}) => ({
    key,
    score,
    searchKey: key,
    searchContent: stems(content).join(" "),
    searchTags: "",
    priority: "normal",
    statedAt: "2024-01-01T00:00:00.000Z",
    ...more,
  });
  const keys = (found: { key: string }[]) => found.map((c) => c.key);
  const weights = (...terms: string[]) => new Map(terms.map((t) => [t, 1]));

  it("lifts a candidate by each further question term it holds, and cuts to the limit", () => {
    const found = rerank(
      [
        candidate("repeats", 1.0, "orchid orchid orchid"),
        candidate("close", 0.95, "orchid in the garden"),
        candidate("far", 0.5, "orchid tea garden"),
        candidate("other", 0.9, "a note"),
      ],
      { terms: weights("orchid", "tea", "garden"), limit: 3 },
    );
    // 0.95 × 1.1 lifts "close" above 1.0; "far" (0.5 × 1.2) stays below "other" and is cut.
    expect(keys(found)).toEqual(["close", "repeats", "other"]);
    expect(found[0]!.score).toBeCloseTo(0.95 * (1 + COVERAGE_BOOST), 6);
    // A term in the tags or the key counts like one in the content.
    const tagged = rerank([{ ...candidate("t", 1, "x"), searchTags: "tea garden" }], { terms: weights("tea", "garden"), limit: 5 });
    expect(tagged[0]!.score).toBeCloseTo(1 + COVERAGE_BOOST, 6);
  });

  it("breaks a tie by priority, then by the later statement, and never lets either outweigh relevance", () => {
    const found = rerank(
      [
        candidate("old", 1, "harbour", { statedAt: "2020-01-01T00:00:00.000Z" }),
        candidate("new", 1, "harbour", { statedAt: "2024-01-01T00:00:00.000Z" }),
        candidate("critical", 1, "harbour", { priority: "critical", statedAt: "2019-01-01T00:00:00.000Z" }),
        candidate("stronger", 1.01, "harbour", { priority: "low", statedAt: "2000-01-01T00:00:00.000Z" }),
      ],
      { terms: weights("harbour", "quay", "lighthouse"), limit: 5 },
    );
    expect(keys(found)).toEqual(["stronger", "critical", "new", "old"]);
  });

  it("tells a question asking when, how long ago or which came first, in English or Russian, and a text that says when", () => {
    for (const q of [
      "When did Anna move?",
      "what year was it",
      "How long ago did we meet",
      "How many days ago did I buy a smoker?",
      "Which happened first, the concert or the trip?",
      "Когда Анна переехала?",
      "В каком году это было?",
      "как давно",
      "Сколько дней прошло с поездки?",
    ])
      expect(asksWhen(q), q).toBe(true);
    for (const q of ["Whenever you can", "Where did Anna move?", "Когдатошний друг", "Что Анна любит?", "How many books do I own?"]) expect(asksWhen(q), q).toBe(false);
    const indexed = (text: string) => stems(text).join(" ");
    for (const text of ["We moved last week", "in May", "back in 2019", "Переехали на прошлой неделе", "вчера вечером", "в мае"])
      expect(namesTime(indexed(text)), text).toBe(true);
    for (const text of ["We moved to Lisbon", "Переехали в Лиссабон", "2019x flat 42"]) expect(namesTime(indexed(text)), text).toBe(false);
    // Behind a mind's token, as the index holds them.
    expect(namesTime(toIndexText("mind_1", "yesterday"), mindSearchToken("mind_1"))).toBe(true);
  });

  it("a question asking when lifts the memories that say when, and no other question does", () => {
    const both = [candidate("where", 1.0, "Anna moved to Lisbon"), candidate("when", 0.8, "Anna moved last spring")];
    const asked = rerank(both, { terms: weights("anna", "move"), limit: 5, whenToken: "" });
    expect(keys(asked)).toEqual(["when", "where"]);
    expect(asked[0]!.score).toBeCloseTo(0.8 * (1 + COVERAGE_BOOST) * WHEN_LIFT, 6);
    expect(keys(rerank(both, { terms: weights("anna", "move"), limit: 5 }))).toEqual(["where", "when"]);
  });

  it("a question naming a time back from now lifts the memories stated within it", () => {
    const span = { from: new Date("2024-03-01T00:00:00Z"), to: new Date("2024-03-10T00:00:00Z") };
    const found = rerank(
      [candidate("before", 1.0, "Anna painted the house", { statedAt: "2024-01-05T00:00:00.000Z" }), candidate("then", 0.5, "Anna painted the fence", { statedAt: "2024-03-04T00:00:00.000Z" })],
      { terms: weights("anna", "paint"), limit: 5, span },
    );
    expect(keys(found)).toEqual(["then", "before"]);
    expect(found[0]!.score).toBeCloseTo(0.5 * (1 + COVERAGE_BOOST) * SPAN_LIFT, 6);
  });

  it("puts the latest statement first among the strongest candidates on one subject, and leaves every other candidate in its place", () => {
    const at = (day: number) => `2024-01-${String(day).padStart(2, "0")}T00:00:00.000Z`;
    const ranked = [
      candidate("first", 1.0, "Anna lives in Lisbon", { statedAt: at(1) }),
      candidate("weak", 0.9, "Anna", { statedAt: at(30) }),
      candidate("second", 0.8, "Anna lives in Porto now", { statedAt: at(20) }),
      candidate("third", 0.7, "Anna lives near Braga", { statedAt: at(10) }),
      candidate("faint", 0.3, "Anna lives in Faro", { statedAt: at(31) }),
    ];
    // "weak" holds too little of the question and "faint" scores too little to speak of the subject.
    expect(keys(newestFirst(ranked, weights("anna", "live")))).toEqual(["second", "weak", "first", "third", "faint"]);
  });
  it("a mind's scores stay the same when another mind with the same memories joins the database", async () => {
    // An empty database of this file's own, so the test knows everything it holds.
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);
    const deps = testDeps({ d1: env.UPGRADE_DB });
    const account = await ensureAccount(deps, "ranking");
    const texts = [
      "The lighthouse keeper paints the lighthouse every spring",
      "Spring rain floods the harbour road",
      "The keeper's dog sleeps by the harbour",
      "Paint for the boat is in the shed",
      "Лодку красят весной в гавани",
    ];
    const fill = async (name: string) => {
      const mind = await createMind(deps, account.id, { name });
      const mindContext = await inMind(deps, { mindId: mind.id, principal: { kind: "human", accountId: account.id } });
      for (const [i, content] of texts.entries()) await storeMemory(mindContext, { category: "fact", key: `k${i}`, content });
      return mindContext;
    };
    const scores = async (mindContext: MindContext) =>
      Object.fromEntries((await searchMemories(mindContext, { q: "lighthouse keeper spring harbour paint", limit: 10 })).map((h) => [h.memory.key, h.score]));
    const first = await fill("first");
    const alone = await scores(first);
    expect(Object.keys(alone).length).toBeGreaterThan(3);
    await fill("second");
    await fill("third");
    const among = await scores(first);
    expect(Object.keys(among)).toEqual(Object.keys(alone));
    for (const key of Object.keys(alone)) expect(among[key], key).toBeCloseTo(alone[key]!, 6);
    // A long question (every word of every memory, more terms than one compound select takes) still finds them all.
    expect(await searchMemories(first, { q: texts.join(" "), limit: 10 })).toHaveLength(texts.length);
  });

  // A mind of its own in the file's empty database, its memories written by a clock the test moves.
  const mindWithClock = async (name: string) => {
    await applyD1Migrations(env.UPGRADE_DB, env.TEST_MIGRATIONS);
    const clock = manualClock("2020-01-01T00:00:00Z");
    const deps = testDeps({ d1: env.UPGRADE_DB, clock });
    const account = await ensureAccount(deps, name);
    const mind = await createMind(deps, account.id, { name });
    return { clock, mindContext: await inMind(deps, { mindId: mind.id, principal: { kind: "human", accountId: account.id } }) };
  };

  it("a short result list is the head of a long one", async () => {
    const priorities = ["low", "normal", "high", "critical"] as const;
    // Matches of every strength (one to three words) in turn, or, in the second mind, the oldest
    // memories matching best; priorities in turn, a memory a month apart; a quarter match nothing.
    const strengths = { cycling: (i: number) => (i % 3) + 1, fading: (i: number) => (i < 30 ? 3 : i < 55 ? 2 : 1) };
    for (const [name, strength] of Object.entries(strengths)) {
      const { clock, mindContext } = await mindWithClock(name);
      for (let i = 0; i < 80; i++) {
        clock.set(new Date(Date.parse("2020-01-01T00:00:00Z") + i * 29 * DAY));
        const words = i % 4 === 3 ? "garden shed" : [...Array<string>(strength(i)).fill("harbour"), i % 2 ? "lighthouse" : "quay"].join(" ");
        await storeMemory(mindContext, { category: "fact", key: `m${i}`, content: `${words} note ${i}`, priority: priorities[(i * 7) % 4] });
      }
      // One word, so lifting by the query's words held changes no order.
      const ranking = async (limit: number) => (await searchMemories(mindContext, { q: "harbour", limit })).map((h) => [h.memory.key, h.score]);
      const all = await ranking(80);
      expect(all).toHaveLength(60);
      for (const limit of [1, 2, 3, 5, 8, 13]) expect(await ranking(limit), `${name}, limit ${limit}`).toEqual(all.slice(0, limit));
    }
  });

  it("searching, a question asking when finds first the memory that says when, in English and in Russian", async () => {
    const { mindContext } = await mindWithClock("when");
    // Memories that share no word with the questions, so that their words weigh what they would in a real mind.
    for (let i = 0; i < 10; i++) await storeMemory(mindContext, { category: "fact", key: `tea${i}`, content: `Green tea number ${i} tastes of grass` });
    await storeMemory(mindContext, { category: "fact", key: "city", content: "Anna moved to Lisbon; Anna moved for the ocean" });
    await storeMemory(mindContext, { category: "fact", key: "day", content: "Anna moved last spring" });
    await storeMemory(mindContext, { category: "fact", key: "город", content: "Анна переехала в Лиссабон; Анна переехала к океану" });
    await storeMemory(mindContext, { category: "fact", key: "день", content: "Анна переехала прошлой весной" });
    const first = async (q: string) => (await searchMemories(mindContext, { q, limit: 5 }))[0]!.memory.key;
    expect(await first("Where did Anna move?")).toBe("city");
    expect(await first("When did Anna move?")).toBe("day");
    expect(await first("Куда Анна переехала?")).toBe("город");
    expect(await first("Когда Анна переехала?")).toBe("день");
  });

  it("asked again with the words its best hits share, finds a memory that shares no word with the question, after the hits it found itself", async () => {
    const { mindContext } = await mindWithClock("feedback");
    await storeMemory(mindContext, { category: "fact", key: "class", content: "Anna signed up for a pottery class, her favourite activity" });
    await storeMemory(mindContext, { category: "fact", key: "kiln", content: "The pottery kiln fired her first bowl" });
    // "Anna" is said by nearly every memory: it finds them all, and weighs little.
    for (let i = 0; i < 30; i++) await storeMemory(mindContext, { category: "fact", key: `road${i}`, content: `Anna walked the harbour road in spring ${i}` });
    const q = "Which activity does Anna love?";
    const plain = await searchMemories(mindContext, { q, limit: 40 });
    expect(plain).toHaveLength(31);
    expect(plain[0]!.memory.key).toBe("class");
    expect(plain.map((h) => h.memory.key)).not.toContain("kiln");
    const found = await searchMemories(mindContext, { q, limit: 40, feedback: true });
    expect(found).toHaveLength(32);
    // The ten best hits, which the words were taken from, keep their places and scores; "pottery"
    // would lift the kiln above the walks, but it follows them.
    expect(found.slice(0, 10)).toEqual(plain.slice(0, 10));
    expect(found.findIndex((h) => h.memory.key === "kiln")).toBe(10);
    expect(found[10]!.score).toBeLessThanOrEqual(found[9]!.score);
    expect(await searchMemories(mindContext, { q, limit: 5, feedback: true })).toEqual(plain.slice(0, 5));
  });

  it("asks again for the likeliest words of the best hits that few memories hold, the question's own and function words left out", () => {
    const token = "000000000tok";
    const hits = [
      { score: 3, searchContent: ["anna", "pottery", "class", "the", "activ"].map((t) => token + t).join(" ") },
      { score: 1, searchContent: ["anna", "pottery", "kiln"].map((t) => token + t).join(" ") },
    ];
    const candidates = feedbackCandidates(hits, new Set([token + "activ"]), token);
    expect([...candidates.keys()].map((t) => t.slice(token.length))).toEqual(["anna", "pottery", "class", "kiln"]);
    const held = new Map([
      [token + "anna", { weight: 1, share: 0.9 }],
      [token + "pottery", { weight: 2, share: 0.05 }],
      [token + "class", { weight: 1, share: 0.05 }],
      [token + "kiln", { weight: 1, share: 0.01 }],
    ]);
    const more = feedbackTerms(candidates, held);
    // "anna" is said by most memories; the strongest word weighs FEEDBACK_WEIGHT of a question's word.
    expect([...more.keys()].map((t) => t.slice(token.length))).toEqual(["pottery", "class", "kiln"]);
    expect(more.get(token + "pottery")).toBeCloseTo(FEEDBACK_WEIGHT, 6);
    expect(more.get(token + "kiln")!).toBeLessThan(FEEDBACK_WEIGHT);
    expect(feedbackTerms(new Map(), held).size).toBe(0);
  });

  it("a recent memory that matches weakly stays below old ones that match strongly: recency only breaks ties", async () => {
    const { clock, mindContext } = await mindWithClock("recent");
    for (let i = 0; i < 60; i++) await storeMemory(mindContext, { category: "fact", key: `old${i}`, content: `harbour lighthouse harbour lighthouse ${i}` });
    for (let i = 0; i < 240; i++) await storeMemory(mindContext, { category: "fact", key: `other${i}`, content: `garden shed ${i}` });
    clock.set("2030-01-01T00:00:00Z");
    await storeMemory(mindContext, { category: "fact", key: "recent", content: "a quiet harbour" });
    clock.set("2030-01-02T00:00:00Z");
    const hits = await searchMemories(mindContext, { q: "harbour lighthouse", limit: 61 });
    expect(hits[0]!.memory.key).toMatch(/^old/);
    expect(hits.at(-1)!.memory.key).toBe("recent");
  });

  it("searching, the later of two statements on one subject comes first, and a question naming a time finds what was stated then", async () => {
    const { clock, mindContext } = await mindWithClock("statements");
    for (let i = 0; i < 20; i++) await storeMemory(mindContext, { category: "fact", key: `tea${i}`, content: `Green tea number ${i} tastes of grass` });
    clock.set("2024-01-10T00:00:00Z");
    await storeMemory(mindContext, { category: "fact", key: "lisbon", content: "Anna lives in Lisbon, she lives by the river" });
    clock.set("2024-03-01T00:00:00Z");
    await storeMemory(mindContext, { category: "fact", key: "porto", content: "Anna lives in Porto now" });
    clock.set("2024-03-15T00:00:00Z");
    const keys = async (q: string) => (await searchMemories(mindContext, { q, limit: 5 })).map((h) => h.memory.key);
    expect(await keys("Where does Anna live?")).toEqual(["porto", "lisbon"]);
    expect(await keys("Where did Anna live two months ago?")).toEqual(["lisbon", "porto"]);
  });
});
