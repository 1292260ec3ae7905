import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Dictionary, UiLocale } from "./i18n";
import { Layout } from "./layout";
import type { UiEnv } from "./ui-env";

/**
 * Renders a signed-in page. A `?ok=` naming a dictionary entry shows as a confirmation. The
 * header names the mind the page works in; `mindName` overrides it (null: no mind, as after an erasure).
 */
export function page(
  c: Context<UiEnv>,
  title: string,
  body: Child,
  options: { error?: string; notice?: string; status?: ContentfulStatusCode; mindName?: string | null } = {},
) {
  const { t } = c.var;
  const ok = c.req.query("ok");
  const flash = options.error
    ? { text: options.error, error: true }
    : options.notice
      ? { text: options.notice }
      : ok && ok in t
      ? { text: t[ok as keyof Dictionary] }
      : null;
  c.header("Cache-Control", "no-store");
  return c.html(
    <Layout t={t} locale={c.var.locale} title={title} path={c.req.path} query={new URL(c.req.url).search} flash={flash} signedIn mindName={options.mindName === undefined ? c.var.mindContext?.mind.name : (options.mindName ?? undefined)} csrf={c.var.csrf}>
      {body}
    </Layout>,
    options.status ?? 200,
  );
}

/** A form field as a string ('' when absent or a file). */
export async function formText(c: Context<UiEnv>, name: string): Promise<string> {
  const value = (await c.req.parseBody())[name];
  return typeof value === "string" ? value : "";
}

export const shortTime = (iso: string | null) => (iso ? iso.replace("T", " ").slice(0, 16) : "—");

/** A moment as the reader's language writes a date and time ("5 мая 2031 г., 14:00"), in UTC as stored. */
export const localTime = (locale: UiLocale, iso: string) =>
  `${new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(new Date(iso))} UTC`;
