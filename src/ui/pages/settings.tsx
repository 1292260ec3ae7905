import { type Context, Hono } from "hono";
import { z } from "zod";
import { getMind, LOCALES, type Mind, mindPatchSchema, updateMind } from "../../tenancy/minds";
import { mindSettingsSchema } from "../../tenancy/settings";
import type { Dictionary } from "../i18n";
import { CsrfField } from "../layout";
import { page } from "../render";
import type { UiEnv } from "../ui-env";

// The current mind's settings: the same checks and domain function as PATCH /minds/:id. A
// refused form is shown again as typed, each field's error beside it.

export const settingsPages = new Hono<UiEnv>();

const NULLABLE = ["retention_hours", "daily_token_budget"] as const;
const SETTINGS = Object.keys(mindSettingsSchema.shape) as (keyof typeof mindSettingsSchema.shape)[];
const NUMBERS = ["retention_hours", ...SETTINGS] as const;
type NumberField = (typeof NUMBERS)[number];

interface JsonNumber {
  minimum?: number;
  maximum?: number;
  anyOf?: JsonNumber[];
}
/** Each number's allowed range, read from the schema that checks it. */
const RANGES: Record<string, { min?: number; max?: number }> = (() => {
  const json = z.toJSONSchema(mindPatchSchema, { io: "input" }) as { properties: Record<string, JsonNumber & { properties?: Record<string, JsonNumber> }> };
  const range = (p: JsonNumber) => {
    const n = p.anyOf?.find((x) => x.minimum !== undefined) ?? p;
    return { min: n.minimum, max: n.maximum };
  };
  const settings = json.properties.settings?.properties ?? {};
  return {
    retention_hours: range(json.properties.retention_hours ?? {}),
    ...Object.fromEntries(Object.entries(settings).map(([k, p]) => [k, range(p)])),
  };
})();

/** What the form holds: the mind's values, or what the person typed. */
type Values = Record<NumberField | "locale", string>;

const valuesOf = (mind: Mind): Values => ({
  locale: mind.locale,
  retention_hours: mind.retention_hours === null ? "" : String(mind.retention_hours),
  ...(Object.fromEntries(SETTINGS.map((k) => [k, mind.settings[k] === null ? "" : String(mind.settings[k])])) as Record<(typeof SETTINGS)[number], string>),
});

/** A typed number as the schema reads it: empty is "none" where none is allowed; anything else must be a number. */
function numberOf(field: NumberField, typed: string): number | null | string {
  const text = typed.trim();
  if (text === "") return (NULLABLE as readonly string[]).includes(field) ? null : text;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

function SettingsForm({ t, csrf, values, errors }: { t: Dictionary; csrf: string; values: Values; errors: Record<string, string> }) {
  const field = (name: NumberField) => {
    const { min, max } = RANGES[name] ?? {};
    const hint = [`${min ?? ""}–${max ?? ""}`, (NULLABLE as readonly string[]).includes(name) ? t.settingsEmptyNone : ""].filter(Boolean).join(" · ");
    return (
      <div class="setting">
        <label for={name}>{t[`setting_${name}` as keyof Dictionary]}</label>
        <input id={name} name={name} value={values[name]} inputmode="numeric" aria-invalid={errors[name] ? "true" : undefined} />
        <span class="meta">{` ${hint}`}</span>
        {errors[name] ? <div class="flash error field-error" data-field={name}>{errors[name]}</div> : null}
      </div>
    );
  };
  return (
    <form method="post" action="/ui/settings" class="card" id="settings">
      <CsrfField token={csrf} />
      <label for="locale">{t.setting_locale}</label>
      <select id="locale" name="locale">
        {LOCALES.map((l) => <option value={l} selected={values.locale === l}>{l === "ru" ? "Русский" : "English"}</option>)}
      </select>
      {errors.locale ? <div class="flash error field-error" data-field="locale">{errors.locale}</div> : null}
      {field("retention_hours")}
      <h2>{t.settingsBudget}</h2>
      {field("daily_token_budget")}
      {field("max_memories")}
      {field("max_notes")}
      {field("max_bytes")}
      <h2>{t.settingsSessions}</h2>
      {field("history_cap")}
      {field("llm_window")}
      {field("extract_every")}
      {field("ephemeral_ttl")}
      <div class="actions"><button type="submit">{t.save}</button></div>
    </form>
  );
}

/** The settings page; a directory read, so a change shows at once whatever the mind context's cache holds. */
async function settingsPage(c: Context<UiEnv>, typed?: { values: Values; errors: Record<string, string> }) {
  const { t, csrf, deps, session, mindContext } = c.var;
  const values = typed?.values ?? valuesOf(await getMind(deps, session.accountId, mindContext.mind.id));
  return page(c, t.settings, <SettingsForm t={t} csrf={csrf} values={values} errors={typed?.errors ?? {}} />, typed ? { error: t.settingsInvalid, status: 400 } : {});
}

function fieldError(t: Dictionary, field: string): string {
  const range = RANGES[field];
  if (!range) return t.settingsBadLocale;
  return t.settingsOutOfRange.replace("{min}", String(range.min)).replace("{max}", String(range.max));
}

settingsPages.get("/settings", (c) => settingsPage(c));

settingsPages.post("/settings", async (c) => {
  const { deps, session, mindContext } = c.var;
  const body = await c.req.parseBody();
  const text = (name: string) => (typeof body[name] === "string" ? body[name] : "");
  const values = Object.fromEntries(["locale", ...NUMBERS].map((k) => [k, text(k)])) as Values;
  const patch = mindPatchSchema.safeParse({
    locale: values.locale,
    retention_hours: numberOf("retention_hours", values.retention_hours),
    settings: Object.fromEntries(SETTINGS.map((k) => [k, numberOf(k, values[k])])),
  });
  if (!patch.success) {
    // An issue's path ends in the field it is about (settings.llm_window → llm_window); the
    // message is said in the reader's language from the range the schema allows.
    const fields = patch.error.issues.map((issue) => String(issue.path.at(-1) ?? ""));
    return settingsPage(c, { values, errors: Object.fromEntries(fields.map((f) => [f, fieldError(c.var.t, f)])) });
  }
  await updateMind(deps, session.accountId, mindContext.mind.id, patch.data);
  return c.redirect("/ui/settings?ok=saved", 303);
});
