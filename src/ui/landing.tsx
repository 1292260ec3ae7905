import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { DICTIONARIES, pickLocale } from "./i18n";
import { Layout } from "./layout";

const LINKS = [
  ["/ui", "landingUi"],
  ["/docs", "landingDocs"],
  ["/openapi.json", "landingOpenapi"],
  ["/health", "landingHealth"],
] as const;

/** `GET /`: what this service is, with links to the UI, the API docs and the health check. */
export function landingPage(c: Context<AppEnv>) {
  const locale = pickLocale(c.req.query("lang"), undefined, c.req.header("Accept-Language"));
  const t = DICTIONARIES[locale];
  c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'");
  return c.html(
    <Layout t={t} locale={locale} title={t.landingTitle} path="/">
      <p>{t.landingIntro}</p>
      <ul>
        {LINKS.map(([href, key]) => (
          <li>
            <a href={href}>{t[key]}</a> <code>{href}</code>
          </li>
        ))}
      </ul>
      <p>
        {t.landingMcp}: <code>/mcp</code>
      </p>
    </Layout>,
  );
}
