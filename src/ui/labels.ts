import { FluentBundle, FluentResource } from "@fluent/bundle";
import { DEFAULT_CHAT } from "../sessions/rows";
import { DEFAULT_AGENT } from "../tenancy/principal";
import type { Dictionary, UiLocale } from "./i18n";

/** The person's word for a stored value (a category, priority, role, …): `t[prefix_value]`, else the value. */
export function label(t: Dictionary, prefix: string, value: string): string {
  const key = `${prefix}_${value}`;
  return key in t ? t[key as keyof Dictionary] : value;
}

/** An agent namespace as a person reads it: the default one in their language, any other by its name. */
export const namespaceLabel = (t: Dictionary, agent: string) => (agent === DEFAULT_AGENT ? t.agentDefault : agent);

/** A chat as a person names it: a Telegram chat, or an API chat by its name and agent namespace. */
export function chatLabel(t: Dictionary, chat: { kind: string; external_id: string; agent: string }): string {
  if (chat.kind === "telegram") return `${t.chatTelegram} ${chat.external_id}`;
  const name = chat.external_id === DEFAULT_CHAT ? t.chatDefault : chat.external_id;
  return `${t.chatApi.replace("{name}", name)} · ${t.agentNs}: ${namespaceLabel(t, chat.agent)}`;
}

/** Who wrote a version or a change, as a person reads it (see actorOf). */
export function authorLabel(t: Dictionary, author: string, accountId: string): string {
  const rollback = /^rollback to (\d+) by (.+)$/.exec(author);
  if (rollback) return `${t.authorRollback} ${rollback[1]} (${authorLabel(t, rollback[2]!, accountId)})`;
  if (author === "consolidation") return t.authorConsolidation;
  if (author.startsWith("user:")) return author.slice(5) === accountId ? t.authorYou : t.authorPerson;
  if (author.startsWith("key:")) return `${t.authorKey} ${author.slice(4)}`;
  if (author.startsWith("import:")) return `${t.authorImport} ${author.slice(7)}`;
  return author;
}

// Counted phrases, with each language's plural rules (Fluent uses Intl.PluralRules).
const SOURCES: Record<UiLocale, string> = {
  en: `
memories = { $count ->
    [one] one memory
   *[other] { $count } memories
  }
notes-waiting = { $count ->
    [one] One note waits for the next consolidation
   *[other] { $count } notes wait for the next consolidation
  }
messages = { $count ->
    [one] one message
   *[other] { $count } messages
  }
lines-added = { $count ->
    [one] one line added
   *[other] { $count } lines added
  }
lines-removed = { $count ->
    [one] one line removed
   *[other] { $count } lines removed
  }
`,
  ru: `
memories = { $count ->
    [one] { $count } воспоминание
    [few] { $count } воспоминания
   *[other] { $count } воспоминаний
  }
notes-waiting = { $count ->
    [one] { $count } заметка ждёт следующей консолидации
    [few] { $count } заметки ждут следующей консолидации
   *[other] { $count } заметок ждут следующей консолидации
  }
messages = { $count ->
    [one] { $count } сообщение
    [few] { $count } сообщения
   *[other] { $count } сообщений
  }
lines-added = { $count ->
    [one] { $count } строка добавлена
    [few] { $count } строки добавлены
   *[other] { $count } строк добавлено
  }
lines-removed = { $count ->
    [one] { $count } строка удалена
    [few] { $count } строки удалены
   *[other] { $count } строк удалено
  }
`,
};

export type CountedPhrase = "memories" | "notes-waiting" | "messages" | "lines-added" | "lines-removed";

const bundles = new Map<UiLocale, FluentBundle>();

/** "2 заметки ждут…", "one memory": a count in words, by the locale's plural rules. */
export function counted(locale: UiLocale, id: CountedPhrase, count: number): string {
  let bundle = bundles.get(locale);
  if (!bundle) {
    bundle = new FluentBundle(locale, { useIsolating: false });
    bundle.addResource(new FluentResource(SOURCES[locale]));
    bundles.set(locale, bundle);
  }
  const message = bundle.getMessage(id);
  if (!message?.value) throw new Error(`no counted phrase "${id}" in ${locale}`);
  return bundle.formatPattern(message.value, { count });
}
