// Browser test of the web UI: starts `wrangler dev` on a free port (E2E_PORT chooses one) with a fresh local D1
// (migrations applied), seeds a mind over the REST API, then drives Debian's headless Chromium
// with playwright-core: log in, search, verify a card, edit it, view a cold memory diff, export,
// connect an MCP client by OAuth on the consent page and revoke it, and render /docs with every
// request outside the Worker refused.
// Screenshots go to test-artifacts/e2e/ (git-ignored). Needs /usr/bin/chromium (apt-get install chromium);
// without it the test is skipped loudly and passes, except under CI=true where it fails.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { chromium } from "playwright-core";
import { freePort, root, startLocalWorker } from "./local.mjs";

const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const artifacts = path.join(root, "test-artifacts", "e2e");

if (!existsSync(chromiumPath)) {
  // A newcomer's `npm test` passes without a browser; CI (CI=true) must run this test, so there it fails.
  const ci = /^(1|true)$/i.test(process.env.CI ?? "");
  const rule = "!".repeat(78);
  console.error(
    [
      rule,
      `e2e: SKIPPED, the browser test did not run: no Chromium at ${chromiumPath}.`,
      "     Install Debian's chromium (sudo apt-get install -y chromium) or set CHROMIUM_PATH,",
      "     then run it alone with: npm run test:e2e",
      ci ? "     CI is set: a skipped browser test fails the run." : "     (not an error here; under CI=true a skipped browser test fails)",
      rule,
    ].join("\n"),
  );
  process.exit(ci ? 1 : 0);
}

const started = Date.now();
const log = (message) => console.log(`e2e ${((Date.now() - started) / 1000).toFixed(1)}s: ${message}`);
const check = (condition, message) => {
  if (!condition) throw new Error(`e2e check failed: ${message}`);
  log(`ok - ${message}`);
};

async function api(base, method, route, token, body, headers = {}) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A mind with memories from a person and an agent, two cold memory versions and a session. */
async function seed(base, adminToken) {
  const { token } = await api(base, "POST", "/auth/token", adminToken, { account: "e2e-person" });
  const mind = await api(base, "POST", "/minds", token, { name: "E2E mind", locale: "ru" });
  const { key } = await api(base, "POST", `/minds/${mind.id}/keys`, token, {});
  const human = { "X-Mind-Id": mind.id };
  await api(base, "POST", "/memory", key, {
    category: "preference", key: "coffee_order", content: "Любит кофе без сахара", tags: ["coffee", "morning"], priority: "high",
  });
  await api(base, "POST", "/memory", key, { category: "project", key: "deploy_target", content: "Deploys the worker to Cloudflare", tags: ["work"] });
  await api(base, "POST", "/memory", token, { category: "identity", key: "home_city", content: "Lives in Tbilisi" }, human);
  await api(base, "PUT", "/cold", token, { text: "## Preferences\n- coffee without sugar\n\n## Work\n- Cloudflare", version: 0 }, human);
  await api(base, "PUT", "/cold", token, { text: "## Preferences\n- coffee with milk, no sugar\n\n## Work\n- Cloudflare Workers and D1", version: 1 }, human);
  const session = await api(base, "POST", "/sessions", token, { task_name: "deploy", repo_path: "/srv/app" }, human);
  await api(base, "POST", `/sessions/${session.id}/messages`, token, { role: "user", content: "Deploy the worker" }, human);
  await api(base, "POST", `/sessions/${session.id}/messages`, token, { role: "tool", content: "wrangler deploy: 42 files uploaded", ephemeral: true, tool: "shell" }, human);
  await api(base, "POST", `/sessions/${session.id}/messages`, token, { role: "assistant", content: "Deployed." }, human);
  return { token, key, mind, session };
}

/** The official MCP client over real HTTP against the running Worker. */
async function useMcp(base, key) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "edgemind-e2e", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    check(tools.length === 8, `MCP lists ${tools.length} tools over HTTP`);
    const memory = await client.callTool({ name: "get_memory", arguments: {} });
    check(memory.structuredContent?.version === 2, "MCP get_memory reads cold memory version 2");
    const stale = await client.callTool({ name: "update_memory", arguments: { text: "stale", version: 1 } });
    check(stale.isError === true && /memory changed/.test(stale.content[0].text), "MCP update_memory with a stale version answers 'memory changed'");
    await client.callTool({ name: "save_memory_note", arguments: { text: "Prefers answers in Russian" } });
  } finally {
    await client.close();
  }
}

/** The SDK's client-side OAuth provider, kept in memory, for an app added to edgemind by URL. */
function memoryOAuthProvider(redirect) {
  const saved = { verifier: "" };
  return {
    saved,
    get redirectUrl() {
      return redirect;
    },
    get clientMetadata() {
      return { client_name: "E2E assistant", redirect_uris: [redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
    },
    clientInformation: () => saved.client,
    saveClientInformation: (info) => void (saved.client = info),
    tokens: () => saved.tokens,
    saveTokens: (tokens) => void (saved.tokens = tokens),
    redirectToAuthorization: (url) => void (saved.authorizationUrl = url),
    saveCodeVerifier: (verifier) => void (saved.verifier = verifier),
    codeVerifier: () => saved.verifier,
  };
}

/** An MCP client connects by URL: the person allows it on the consent page, it works, then is revoked there. */
async function connectByOAuth(base, page, shot) {
  // The app's callback: a local listener that takes the authorization code, as a desktop client would.
  let code = null;
  const callback = createHttpServer((req, res) => {
    // Only the callback counts: the browser may also ask this listener for /favicon.ico.
    const url = new URL(req.url, "http://127.0.0.1");
    if (url.pathname === "/callback") code = url.searchParams.get("code");
    res.end("back in the app");
  });
  const port = await freePort();
  await new Promise((resolve) => callback.listen(port, "127.0.0.1", resolve));
  const redirect = `http://127.0.0.1:${port}/callback`;
  const provider = memoryOAuthProvider(redirect);
  const transport = () => new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
  await new Client({ name: "edgemind-e2e-oauth", version: "1.0.0" }).connect(transport()).catch(() => {});
  check(provider.saved.authorizationUrl?.pathname === "/ui/oauth/authorize", "the MCP client registered and was sent to the consent page");
  await page.goto(String(provider.saved.authorizationUrl));
  check((await page.locator("#client-name").textContent()) === "E2E assistant", "the consent page names the client");
  check((await page.locator("select#mind option").count()) === 1, "the consent page offers the person's mind");
  await shot("08-consent");
  await Promise.all([page.waitForURL(/lang=ru/), page.click('header a[lang="ru"]')]);
  check(
    (await page.locator("html").getAttribute("lang")) === "ru" && (await page.locator("#client-name").textContent()) === "E2E assistant",
    "the consent page's language switch keeps the request",
  );
  await shot("08-consent-ru");
  await Promise.all([page.waitForURL(/lang=en/), page.click('header a[lang="en"]')]);
  await Promise.all([page.waitForURL(`${redirect}**`), page.click("#allow")]);
  callback.close();
  check(typeof code === "string" && code.length > 10, "Allow sends the client back with an authorization code");
  await transport().finishAuth(code);
  const client = new Client({ name: "edgemind-e2e-oauth", version: "1.0.0" });
  await client.connect(transport());
  const { tools } = await client.listTools();
  check(tools.length === 8, "the OAuth client lists the tools with its access token");
  await client.close();
  await page.goto(`${base}/ui/apps`);
  check((await page.locator(".card.app h3").allTextContents()).includes("E2E assistant"), "the connected app is listed under the mind");
  await shot("09-apps");
  await Promise.all([page.waitForURL(/ok=revoked/), page.locator(".card.app button", { hasText: "Revoke" }).click()]);
  const after = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${provider.saved.tokens.access_token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  check(after.status === 401, "after Revoke the client's token gets 401");
}

/** `/` and `/docs` with every request off this origin refused: the API docs render from the Worker alone. */
async function checkDocsOffline(browser, base) {
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1100, height: 900 } });
  const outside = [];
  await context.route("**/*", (route) => {
    if (route.request().url().startsWith(`${base}/`)) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  const violations = [];
  page.on("console", (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(`${base}/`);
  check((await page.locator('a[href="/docs"]').count()) === 1, "GET / is a landing page linking /docs");
  await page.screenshot({ path: path.join(artifacts, "11-landing.png"), fullPage: true });
  await page.goto(`${base}/docs`);
  await page.locator(".opblock").first().waitFor({ timeout: 15_000 });
  const operations = await page.locator(".opblock").count();
  check(operations > 20, `/docs renders ${operations} operations with no network beyond the Worker`);
  check(outside.length === 0, `/docs asked for nothing outside the Worker (${outside.join(", ")})`);
  check(violations.length === 0, `/docs runs under its CSP without violations (${violations.join("; ")})`);
  await page.screenshot({ path: path.join(artifacts, "12-docs.png") });
  await context.close();
}

async function drive(base, seeded) {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--headless"] });
  try {
    const context = await browser.newContext({ acceptDownloads: true, locale: "en-US", viewport: { width: 1100, height: 900 } });
    const page = await context.newPage();
    const shot = (name) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });

    await page.goto(`${base}/ui/login`);
    await page.fill("#jwt", seeded.token);
    await Promise.all([page.waitForURL("**/ui/memories"), page.click("form:has(#jwt) button[type=submit]")]);
    check((await page.locator("article.memory").count()) === 3, "logged in with a JWT: three memory cards");
    check((await page.evaluate(() => document.compatMode)) === "CSS1Compat", "the page renders in standards mode (<!DOCTYPE html>)");
    check((await fetch(`${base}/favicon.ico`)).status === 204, "/favicon.ico is answered, not a 404");
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "edgemind_ui");
    check(session?.httpOnly === true && session.sameSite === "Strict", "the session cookie is HttpOnly and SameSite=Strict");
    await shot("01-memories");

    await page.fill("input[name=q]", "кофе");
    await Promise.all([page.waitForURL(/q=/), page.click("form[role=search] button[type=submit]")]);
    const titles = await page.locator("article.memory h3").allTextContents();
    const keys = await page.locator("article.memory").evaluateAll((cards) => cards.map((card) => card.getAttribute("data-key")));
    check(keys.length === 1 && keys[0] === "coffee_order", `search for «кофе» finds only coffee_order (${keys.join(", ")})`);
    check(titles[0] === "Любит кофе без сахара", `the card is titled by its content, not its key (${titles[0]})`);
    await shot("02-search");

    const card = page.locator('article.memory[data-key="coffee_order"]');
    check((await card.locator(".badge.warn").count()) === 1, "the agent's card is unverified");
    await Promise.all([page.waitForURL(/ok=verifiedDone/), card.locator("button", { hasText: "Verify" }).click()]);
    check((await page.locator('article.memory[data-key="coffee_order"] .badge.ok').count()) === 1, "after Verify the card shows Verified");
    await shot("03-verified");

    await Promise.all([page.waitForURL(/\/ui\/memories\/mem_/), page.locator('article.memory[data-key="coffee_order"] a', { hasText: "Edit" }).click()]);
    await page.fill("#content", "Любит кофе с молоком, без сахара");
    await page.fill("#tags", "coffee, milk");
    await Promise.all([page.waitForURL(/ok=saved/), page.click("form:has(#content) button[type=submit]")]);
    check((await page.inputValue("#content")) === "Любит кофе с молоком, без сахара", "the edit is saved");
    check((await page.locator("table tr").count()) >= 4, "the history lists create, verify and update");
    await shot("04-edited");

    await page.goto(`${base}/ui/cold`);
    await Promise.all([page.waitForURL(/\/ui\/cold\/diff/), page.click("#compare")]);
    const added = await page.locator("#diff .add").allTextContents();
    const removed = await page.locator("#diff .del").allTextContents();
    check(added.some((l) => l.includes("coffee with milk")) && removed.some((l) => l.includes("coffee without sugar")), "the diff of v1 → v2 marks added and removed lines");
    await shot("05-diff");

    await page.goto(`${base}/ui/sessions/${seeded.session.id}`);
    check((await page.locator("article.msg.ephemeral").count()) === 1, "the session page marks the ephemeral tool output");
    await shot("06-session");

    await page.goto(`${base}/ui/data`);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
    const file = path.join(artifacts, "export.jsonl");
    await download.saveAs(file);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
    check(lines[0].type === "header" && lines.filter((l) => l.type === "memory").length === 3, `the export downloads as JSONL (${lines.length} lines)`);
    check(lines.some((l) => l.type === "memory" && l.content === "Любит кофе с молоком, без сахара" && l.verified), "the export holds the edited, verified memory");
    await shot("07-data");

    await connectByOAuth(base, page, shot);
    await checkDocsOffline(browser, base);

    const phone = await browser.newContext({ locale: "ru-RU", viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 });
    await phone.addCookies(cookies.filter((c) => c.name === "edgemind_ui"));
    const small = await phone.newPage();
    await small.goto(`${base}/ui/memories`);
    check((await small.locator("html").getAttribute("lang")) === "ru", "a Russian browser gets the Russian UI");
    const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 1, `on a 390 px phone nothing scrolls sideways (overflow ${overflow}px)`);
    await small.screenshot({ path: path.join(artifacts, "10-phone-ru.png"), fullPage: true });
    const phonePages = [["/ui/cold", "cold"], ["/ui/notes", "notes"], ["/ui/usage", "usage"], ["/ui/sessions", "sessions"], [`/ui/sessions/${seeded.session.id}`, "session"], ["/ui/minds", "minds"]];
    for (const [route, name] of phonePages) {
      await small.goto(`${base}${route}`);
      const wide = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(wide <= 1, `${route} on a 390 px phone scrolls nothing sideways (overflow ${wide}px)`);
      await small.screenshot({ path: path.join(artifacts, `20-phone-ru-${name}.png`), fullPage: true });
    }
    await small.goto(`${base}/ui/cold`);
    const box = await small.locator("table.versions a.button").first().boundingBox();
    check(box !== null && box.x >= 0 && box.x + box.width <= 390, "the versions table's Compare button is wholly on screen at 390 px");
    await page.goto(`${base}/ui/usage`);
    check((await page.locator("#consolidations, #no-consolidations").count()) === 1, "the usage page shows this mind's consolidations or says there are none");
    await page.screenshot({ path: path.join(artifacts, "21-usage.png"), fullPage: true });
    await page.goto(`${base}/ui/minds`);
    check((await page.locator("header .brand").textContent()).includes("E2E mind"), "the minds page header names the current mind");
    await page.screenshot({ path: path.join(artifacts, "22-minds.png"), fullPage: true });
    await page.goto(`${base}/ui/notes`);
    await page.screenshot({ path: path.join(artifacts, "23-notes.png"), fullPage: true });
    await checkKeys(page, base);
  } finally {
    await browser.close();
  }
}

/** A mind key made in the UI is shown once, works, and stops working once revoked there. */
async function checkKeys(page, base) {
  await page.goto(`${base}/ui/keys`);
  await page.fill("#agent", "browser");
  await Promise.all([page.waitForURL(`${base}/ui/keys`), page.click("form:has(#agent) button[type=submit]")]);
  const key = (await page.locator("#new-key pre").textContent()).trim();
  const list = () => fetch(`${base}/memory`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status);
  check(key.startsWith("emk_") && (await list()) === 200, "a key made on the Keys page is shown once and opens the mind");
  await page.screenshot({ path: path.join(artifacts, "24-keys.png"), fullPage: true });
  const card = page.locator(".card.key", { hasText: "browser" });
  await Promise.all([page.waitForURL(/ok=keyRevoked/), card.locator("button", { hasText: "Revoke" }).click()]);
  check((await list()) === 401 && (await page.locator("#new-key").count()) === 0, "Revoke on the Keys page stops the key, and its secret is not shown again");
}

async function main() {
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  mkdirSync(path.join(root, ".tmp"), { recursive: true });
  const state = mkdtempSync(path.join(root, ".tmp", "e2e-state-"));
  const adminToken = randomBytes(24).toString("base64url");
  const vars = { ADMIN_TOKEN: adminToken, JWT_SECRET: randomBytes(24).toString("base64url"), LLM_PROVIDER: "none" };
  const port = process.env.E2E_PORT ? Number(process.env.E2E_PORT) : undefined;
  const dev = await startLocalWorker({ persistTo: state, vars, port });
  const { base } = dev;
  log(`wrangler dev is up on ${base}, migrations applied to a fresh local D1`);
  try {
    const seeded = await seed(base, adminToken);
    log("seeded a mind over the REST API");
    await useMcp(base, seeded.key);
    await drive(base, seeded);
    log(`passed; screenshots in ${path.relative(root, artifacts)}/`);
  } catch (err) {
    console.error(dev.output().slice(-4000));
    throw err;
  } finally {
    dev.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
