import { FluentBundle, FluentResource, type FluentVariable } from "@fluent/bundle";
import en from "./locales/en";
import ru from "./locales/ru";

export const BOT_LOCALES = ["en", "ru"] as const;
export type BotLocale = (typeof BOT_LOCALES)[number];

export type Translate = (id: string, args?: Record<string, FluentVariable>) => string;

const SOURCES: Record<BotLocale, string> = { en, ru };
const bundles = new Map<BotLocale, FluentBundle>();

function bundleOf(locale: BotLocale): FluentBundle {
  let bundle = bundles.get(locale);
  if (!bundle) {
    // No bidi isolation marks: replies are plain Telegram text.
    bundle = new FluentBundle(locale, { useIsolating: false });
    const errors = bundle.addResource(new FluentResource(SOURCES[locale]));
    if (errors.length > 0) throw new Error(`locale ${locale}: ${errors.map(String).join("; ")}`);
    bundles.set(locale, bundle);
  }
  return bundle;
}

/** The bot's language for a Telegram language_code: Russian for ru*, English otherwise. */
export function localeOf(languageCode: string | undefined | null): BotLocale {
  return languageCode?.toLowerCase().startsWith("ru") ? "ru" : "en";
}

/** Message lookup in one language; a missing message is a bug, so it throws. */
export function translator(locale: BotLocale): Translate {
  const bundle = bundleOf(locale);
  return (id, args) => {
    const message = bundle.getMessage(id);
    if (!message?.value) throw new Error(`no message "${id}" in locale ${locale}`);
    const errors: Error[] = [];
    const text = bundle.formatPattern(message.value, args, errors);
    if (errors.length > 0) throw new Error(`message "${id}" (${locale}): ${errors.map(String).join("; ")}`);
    return text;
  };
}

/** Every message id of a locale, to check that the languages say the same things. */
export function messageIds(locale: BotLocale): string[] {
  return [...new FluentResource(SOURCES[locale]).body].map((entry) => entry.id);
}
