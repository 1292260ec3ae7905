import type { MindContext } from "../tenancy/mind-context";
import { storeMemory } from "./memories";
import type { Category } from "./model";
import { words } from "./normalize";

// A fact a person states in one line (the bot's /remember) becomes a memory: its category is
// guessed from its wording, and its key is derived from its words, so stating the same fact
// again updates it instead of adding a copy.

const CATEGORY_PATTERNS: [Category, RegExp][] = [
  ["identity", /\b(my name is|i am|i'm|call me)\b|меня зовут|\bя\s+—|\bмне\s+\d+/iu],
  ["preference", /\b(i (like|love|prefer|hate|dislike|enjoy|usually|always)|favou?rite)\b|(люблю|нравится|предпочитаю|ненавижу|не люблю|любимый|любимая|обычно|всегда)/iu],
  ["mistake", /\b(never|don't|do not|avoid)\b|(никогда|не надо|не нужно|избегай|нельзя)/iu],
  ["skill", /\b(i (can|know how)|i'm good at|expert in)\b|(умею|владею|разбираюсь)/iu],
  ["project", /\b(project|repo|repository|deadline|release)\b|(проект|репозитори|дедлайн|релиз)/iu],
];

/** The category a fact's wording suggests; `note` when nothing does. */
export function inferCategory(text: string): Category {
  return CATEGORY_PATTERNS.find(([, pattern]) => pattern.test(text))?.[0] ?? "note";
}

const MAX_KEY_WORDS = 6;

/** A snake_case key from the fact's first Latin words and a short hash of all its words. */
export async function keyForFact(text: string): Promise<string> {
  const all = words(text);
  const latin = all.filter((w) => /^[a-z0-9]+$/.test(w)).slice(0, MAX_KEY_WORDS);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(all.join(" ")));
  const hash = [...new Uint8Array(digest).slice(0, 3)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return [...(latin.length > 0 ? latin : ["fact"]), hash].join("_");
}

/** Stores a fact stated in one line under its guessed category and the key its words give. */
export async function rememberFact(ctx: MindContext, fact: string): ReturnType<typeof storeMemory> {
  return storeMemory(ctx, { category: inferCategory(fact), key: await keyForFact(fact), content: fact });
}
