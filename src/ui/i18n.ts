import en from "./locales/en";
import ru from "./locales/ru";

// The web UI's languages and the lookup; the words of each are in locales/, one file a language.

export const UI_LOCALES = ["en", "ru"] as const;
export type UiLocale = (typeof UI_LOCALES)[number];

export type Dictionary = Record<keyof typeof en, string>;

export const DICTIONARIES: Record<UiLocale, Dictionary> = { en, ru };

/** The locale a request asks for: ?lang=, then the lang cookie, then Accept-Language. */
export function pickLocale(query: string | undefined, cookie: string | undefined, acceptLanguage: string | undefined): UiLocale {
  for (const wanted of [query, cookie]) if (wanted === "en" || wanted === "ru") return wanted;
  const ranked = (acceptLanguage ?? "")
    .split(",")
    .map((part) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.find((p) => p.trim().startsWith("q="));
      return { lang: tag.trim().slice(0, 2).toLowerCase(), q: q ? Number(q.trim().slice(2)) : 1 };
    })
    .filter((x) => x.lang === "en" || x.lang === "ru")
    .sort((a, b) => b.q - a.q);
  return (ranked[0]?.lang as UiLocale | undefined) ?? "en";
}
