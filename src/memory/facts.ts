import type { MindContext } from "../tenancy/mind-context";
import { MEMORY_KEY_MAX } from "./fields";
import { storeMemory } from "./memories";
import { normalizeText, STOP_WORDS, words } from "./normalize";
import type { Category } from "./rows";

// A fact a person states in one line (the bot's /remember) becomes a memory: its category is
// guessed from its wording, and its key is derived from its words, so stating the same fact
// again updates it (its history keeps the old wording) instead of adding a copy.

// What a person habitually likes, drinks, eats or does, said of themselves. English needs the
// "I" ("I usually drink", "I really like"); Russian first-person forms carry it («пью», «люблю»)
// and «обычно», «всегда», «часто» say a habit on their own. Dislikes are preferences too.
const LIKES_EN = /\bi\s+(?:[\w']+\s+){0,2}?(?:like|love|prefer|enjoy|adore|hate|dislike|drink|eat|usually|always|often|normally)\b|\bfavou?rite\b/iu;
const LIKES_RU =
  /(?<!\p{L})(?:люблю|нравится|нравятся|предпочитаю|обожаю|ненавижу|пью|ем|обычно|всегда|часто|любим\p{L}*)(?!\p{L})/iu;

const CATEGORY_PATTERNS: [Category, RegExp][] = [
  ["identity", /\b(my name is|i am|i'm|call me)\b|меня зовут|(?<!\p{L})я\s+—|(?<!\p{L})мне\s+\d+/iu],
  ["preference", LIKES_EN],
  ["preference", LIKES_RU],
  ["mistake", /\b(never|don't|do not|avoid)\b|(никогда|не надо|не нужно|избегай|нельзя)/iu],
  ["skill", /\b(i (can|know how)|i'm good at|expert in)\b|(умею|владею|разбираюсь)/iu],
  ["project", /\b(project|repo|repository|deadline|release)\b|(проект|репозитори|дедлайн|релиз)/iu],
];

/** The category a fact's wording suggests; `note` when nothing does. */
export function inferCategory(text: string): Category {
  const normalized = normalizeText(text);
  return CATEGORY_PATTERNS.find(([, pattern]) => pattern.test(normalized))?.[0] ?? "note";
}

const MAX_KEY_WORDS = 6;

// Words that say how a person relates to a thing, not what it is: "I drink green tea" and
// "I prefer green tea" are both about green_tea. Contractions split into "don" and "t".
const KEY_SKIPPED = new Set([
  ...STOP_WORDS,
  ..."like likes love prefer enjoy adore hate dislike drink eat usually always often normally really also very don doesn didn t s m ll re ve".split(" "),
  ..."люблю нравится нравятся предпочитаю обожаю ненавижу пью ем обычно всегда часто очень тоже также".split(" "),
]);

const CYRILLIC_LATIN: Record<string, string> = {
  а: "a", б: "b", в: "v", г: "g", д: "d", е: "e", ж: "zh", з: "z", и: "i", й: "j", к: "k", л: "l", м: "m",
  н: "n", о: "o", п: "p", р: "r", с: "s", т: "t", у: "u", ф: "f", х: "kh", ц: "ts", ч: "ch", ш: "sh",
  щ: "shch", ъ: "", ы: "y", ь: "", э: "e", ю: "yu", я: "ya", і: "i", ї: "yi", є: "ye", ґ: "g", ў: "u",
};

/** A normalised word in the letters a key allows: Cyrillic transliterated, accents dropped, the rest left out. */
function latinWord(word: string): string {
  const spelled = [...word].map((letter) => CYRILLIC_LATIN[letter] ?? letter).join("");
  return spelled.normalize("NFD").replace(/[^a-z0-9]/g, "");
}

/**
 * A snake_case key from the fact's first words that say what it is about, in Latin letters
 * (`green_tea`, `zelenyj_chaj`); a fact with no such words (another script) gets `fact_` and a
 * short hash of its words.
 */
export async function keyForFact(text: string): Promise<string> {
  const all = words(text);
  const meaningful = all.filter((w) => !KEY_SKIPPED.has(w));
  const latin = (meaningful.length > 0 ? meaningful : all).map(latinWord).filter((w) => w !== "");
  let key = "";
  for (const word of latin.slice(0, MAX_KEY_WORDS)) {
    const longer = key ? `${key}_${word}` : word;
    if (longer.length > MEMORY_KEY_MAX) break;
    key = longer;
  }
  return key || `fact_${await shortHash(all.join(" "))}`;
}

async function shortHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest).slice(0, 3)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Stores a fact stated in one line under its guessed category and the key its words give. */
export async function rememberFact(mindContext: MindContext, fact: string): ReturnType<typeof storeMemory> {
  return storeMemory(mindContext, { category: inferCategory(fact), key: await keyForFact(fact), content: fact });
}
