import { describe, expect, it } from "vitest";
import { COLD_MAX_CHARS } from "../../src/notes/cold-store";
import { call, newMind, newTenant } from "../helpers";
import { coldOf, documentOf, writeColdAsConsolidation } from "../support/long-term";
import { browser, csrfOf } from "./ui-helpers";

async function signedIn(language = "en", mind: Record<string, unknown> = {}) {
  const t = await newTenant();
  const mindId = Object.keys(mind).length > 0 ? (await newMind(t.token, mind)).id : t.mind.id;
  const b = browser({ "Accept-Language": language });
  expect((await b.post("/ui/login", { jwt: t.token })).status).toBe(303);
  if (mindId !== t.mind.id) await b.post("/ui/minds/switch", { _csrf: csrfOf((await b.get("/ui/minds")).text), mind: mindId });
  return { b, auth: { token: t.token, mind: mindId } };
}

const unescape = (html: string) => html.replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");

describe("editing cold memory in the web UI", () => {
  it("saves the text through compare-and-swap on the version the page showed", async () => {
    const { b, auth } = await signedIn();
    await call("PUT", "/cold", { ...auth, body: { text: "## Preferences\n- tea\n", version: 0 } });
    const form = await b.get("/ui/cold");
    expect(form.text).toContain('name="version" value="1"');
    const saved = await b.post("/ui/cold", { _csrf: csrfOf(form.text), agent: "default", version: "1", text: "## Preferences\r\n- green tea\r\n" });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe("/ui/cold?ok=saved");
    const cold = (await call("GET", "/cold", auth)).json;
    expect(cold.version).toBe(2);
    expect(cold.text).toBe("## Preferences\n- green tea\n");
    const versions = (await call("GET", "/cold/versions", auth)).json;
    expect(versions.versions[0].author).toMatch(/^user:/);
  });

  it("refuses a text longer than cold memory holds with a 400 naming the bound, and keeps the version as it was", async () => {
    const { b, auth } = await signedIn();
    await call("PUT", "/cold", { ...auth, body: { text: "## Preferences\n- tea\n", version: 0 } });
    const form = await b.get("/ui/cold");
    const res = await b.post("/ui/cold", { _csrf: csrfOf(form.text), agent: "default", version: "1", text: `## Preferences\n- ${"x".repeat(COLD_MAX_CHARS)}` });
    expect(res.status).toBe(400);
    expect(res.text).toContain("at most 32,000 characters");
    const cold = (await call("GET", "/cold", auth)).json;
    expect(cold).toMatchObject({ version: 1, text: "## Preferences\n- tea\n" });
  });

  it("shortens a document consolidations grew past COLD_MAX_CHARS, its textarea not cutting it, and refuses to grow it", async () => {
    const { b, auth } = await signedIn();
    const grown = await writeColdAsConsolidation(auth.mind, documentOf(4 * COLD_MAX_CHARS));
    const form = await b.get("/ui/cold");
    const maxlength = Number(/<textarea name="text" maxlength="(\d+)"/.exec(form.text)?.[1]);
    expect(maxlength).toBeGreaterThanOrEqual(grown.text.length);
    const shorter = documentOf(100_000);
    const saved = await b.post("/ui/cold", { _csrf: csrfOf(form.text), agent: "default", version: String(grown.version), text: shorter });
    expect(saved.status, saved.text).toBe(303);
    expect(await coldOf(auth.mind)).toMatchObject({ text: shorter, version: grown.version + 1 });

    const longer = await b.post("/ui/cold", { _csrf: csrfOf(form.text), agent: "default", version: String(grown.version + 1), text: `${shorter}- one more\n` });
    expect(longer.status).toBe(400);
    expect(unescape(longer.text)).toContain("or up to 256,000 when it leaves the document no longer");
    expect((await coldOf(auth.mind)).text).toBe(shorter);
  });

  it("refuses a save without the session's CSRF token", async () => {
    const { b, auth } = await signedIn();
    const res = await b.post("/ui/cold", { agent: "default", version: "0", text: "## Profile\n- forged" });
    expect(res.status).toBe(403);
    expect((await call("GET", "/cold", auth)).json.version).toBe(0);
  });

  it("on a conflict keeps the person's text in the form, explains it and links to what changed", async () => {
    const { b, auth } = await signedIn();
    await call("PUT", "/cold", { ...auth, body: { text: "## Preferences\n- tea\n", version: 0 } });
    const form = await b.get("/ui/cold");
    // Someone else saves between the page and the person's save.
    await call("PUT", "/cold", { ...auth, body: { text: "## Preferences\n- coffee\n", version: 1 } });
    const mine = "## Preferences\n- green tea <b>always</b>\n";
    const res = await b.post("/ui/cold", { _csrf: csrfOf(form.text), agent: "default", version: "1", text: mine });
    expect(res.status).toBe(409);
    expect(res.text).toContain('id="cold-conflict"');
    expect(res.text).toContain("You edited version 1; the newest is 2");
    expect(res.text).toContain('href="/ui/cold/diff?from=1&amp;to=2"');
    const textarea = /<textarea name="text"[^>]*>([\s\S]*?)<\/textarea>/.exec(res.text)![1]!;
    expect(unescape(textarea)).toBe(mine);
    expect(res.text).toContain('name="version" value="2"');
    expect((await call("GET", "/cold", auth)).json).toMatchObject({ version: 2, text: "## Preferences\n- coffee\n" });
    // Saving again on purpose, now from the newest version, lands.
    const again = await b.post("/ui/cold", { _csrf: csrfOf(res.text), agent: "default", version: "2", text: mine });
    expect(again.status).toBe(303);
    expect((await call("GET", "/cold", auth)).json).toMatchObject({ version: 3, text: mine });
  });

  it("shows edgemind's headings in the reader's language and stores them in the mind's", async () => {
    const { b, auth } = await signedIn("ru", { name: "English mind", locale: "en" });
    await call("PUT", "/cold", { ...auth, body: { text: "## Preferences\n- tea\n\n## My own\n- kept\n", version: 0 } });
    const page = await b.get("/ui/cold");
    expect(page.text).toContain("## Предпочтения\n- tea");
    expect(page.text).not.toContain("## Preferences");
    expect(page.text).toContain("## My own");
    const diff = await b.get("/ui/cold/diff?from=0&to=1");
    expect(diff.text).toContain("+## Предпочтения");
    await b.post("/ui/cold", { _csrf: csrfOf(page.text), agent: "default", version: "1", text: "## Предпочтения\n- green tea\n\n## My own\n- kept\n" });
    expect((await call("GET", "/cold", auth)).json.text).toBe("## Preferences\n- green tea\n\n## My own\n- kept\n");
  });

  it("saving the text as shown writes no new version", async () => {
    const { b, auth } = await signedIn("ru", { name: "Русский", locale: "ru" });
    await call("PUT", "/cold", { ...auth, body: { text: "## Предпочтения\n- чай\n", version: 0 } });
    const res = await b.post("/ui/cold", { _csrf: csrfOf((await b.get("/ui/cold")).text), agent: "default", version: "1", text: "## Предпочтения\n- чай\n" });
    expect(res.headers.get("Location")).toBe("/ui/cold?ok=unchanged");
    expect((await call("GET", "/cold", auth)).json.version).toBe(1);
  });
});
