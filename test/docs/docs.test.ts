import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

describe("/docs", () => {
  it("is a page whose scripts and styles all come from this origin, under a CSP that allows nothing else", async () => {
    const res = await SELF.fetch("https://edgemind.test/docs");
    expect(res.status).toBe(200);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*(unsafe-inline|unsafe-eval|https?:)/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) expect(ref).toMatch(/^\/docs\/assets\//);
    expect(html).not.toMatch(/<script>[^<]/);
  });

  it("serves swagger-ui's script, stylesheet and start-up script", async () => {
    for (const [file, type, marker] of [
      ["swagger-ui-bundle.js", "text/javascript", "SwaggerUIBundle"],
      ["swagger-ui.css", "text/css", ".swagger-ui"],
      ["init.js", "text/javascript", "SwaggerUIBundle"],
    ]) {
      const res = await SELF.fetch(`https://edgemind.test/docs/assets/${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get("Content-Type")).toContain(type);
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(await res.text()).toContain(marker);
    }
    expect((await SELF.fetch("https://edgemind.test/docs/assets/nothing.js")).status).toBe(404);
  });
});

describe("GET /", () => {
  it("is a small landing page linking the UI, the docs and the health check", async () => {
    const res = await SELF.fetch("https://edgemind.test/");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    const html = await res.text();
    for (const href of ["/ui", "/docs", "/health", "/openapi.json"]) expect(html).toContain(`href="${href}"`);
  });

  it("speaks Russian to a Russian browser", async () => {
    const res = await SELF.fetch("https://edgemind.test/", { headers: { "Accept-Language": "ru-RU,ru;q=0.9" } });
    const html = await res.text();
    expect(html).toContain('lang="ru"');
    expect(html).toContain("Веб-интерфейс");
  });
});
