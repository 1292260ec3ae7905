import { stemmer as russian } from "@orama/stemmers/russian";
import english from "wink-porter2-stemmer";

// Search text is normalised in code, identically for what is indexed and what is asked:
// NFC, lower case, ё→е, words split on anything that is not a letter or digit, and each
// word stemmed by the Russian or English Snowball algorithm according to its script.
// FTS5 then only sees plain stems, so «любит» and «любить» meet at «люб».
// Every stem is indexed and asked for behind its mind's search token (`mindSearchToken`), so
// each term of the index belongs to one mind: a search walks only that mind's postings, bm25's
// document frequencies are the mind's own, and one mind's query cannot match another's rows.
// (The `snowball-stemmers` package aborted workerd on long texts; these two give the same
// stems and survive a soak of thousands of long texts, see bench/jobs/soak.job.ts. A Node-side
// test, test/node/stemmer.test.ts, holds the Russian one to Snowball's output.)
// Snowball's Russian algorithm reads a final -н or -л after а/я as a verb ending, so the
// nominative of «туман», «ресторан», «канал» loses its last letter while every other case keeps
// it («туман» → «тума», «тумане» → «туман»). Queries ask for both stems (`stemVariants`).

const WORD = /[\p{L}\p{N}]+/gu;
const CYRILLIC = /\p{Script=Cyrillic}/u;
const LATIN = /\p{Script=Latin}/u;
const MAX_QUERY_TERMS = 32;
const DIGIT = /\p{N}/u;

// Function words that say nothing about what a memory is about; dropped from queries only.
export const STOP_WORDS: ReadonlySet<string> = new Set([
  ..."a an and are as at be but by did do does for from had has have he her his how i if in is it its me my of on or our she so that the their them they this to was we were what when where which who whom why will with you your".split(" "),
  ..."а без бы был была были было в во вы да для до его ее если есть же за и из или им их к как ли мне мы на не нет ни но о об от по при с со так то ты у уже что чтобы это я".split(" "),
]);

// Words that frame a question rather than name what it asks about ("how many", "the total
// number", "two weeks ago", "something"): a long natural-language question repeats them, and
// memories that happen to hold them say nothing about its subject. Dropped from queries only;
// a question's time ("ago", "назад") is read apart (asked-time.ts).
export const QUESTION_WORDS: ReadonlySet<string> = new Set([
  ..."many much total number ago something anything".split(" "),
  ..."сколько всего количество назад нибудь".split(" "),
]);

/** NFC, lower case, ё→е: the form both the index and the queries are compared in. */
export function normalizeText(text: string): string {
  return text.normalize("NFC").toLowerCase().replaceAll("ё", "е");
}

/** Words of a text, normalised, in order. */
export function words(text: string): string[] {
  return normalizeText(text).match(WORD) ?? [];
}

/**
 * Longest word handed to a stemmer: the English one takes time quadratic in a word's length
 * (a 7,000-letter "word" took over a second), and no real word is this long.
 */
const MAX_STEMMED_LENGTH = 64;

/**
 * Stems one normalised word with the stemmer of its script; other scripts, words with digits
 * (ids, versions: the stemmer mangles them) and overlong words pass unchanged.
 */
export function stem(word: string): string {
  if (word.length > MAX_STEMMED_LENGTH || DIGIT.test(word)) return word;
  const known = stemmed.get(word);
  if (known !== undefined) return known;
  const result = CYRILLIC.test(word) ? russian(word) : LATIN.test(word) ? english(word) : word;
  if (stemmed.size >= STEMMED_MAX) stemmed.clear();
  stemmed.set(word, result);
  return result;
}

/**
 * Stems already computed. Stemming a word costs microseconds (the English stemmer ~6 µs), and
 * text repeats its words: LoCoMo's 309,000 words are 10,000 distinct ones. Bounded: 20,000 words
 * of at most MAX_STEMMED_LENGTH characters and their stems, about 6 MB at most; emptied when full.
 */
const STEMMED_MAX = 20_000;
const stemmed = new Map<string, string>();

/** The stems of every word of a text, in order. */
export function stems(text: string): string[] {
  return words(text).map(stem);
}

/** Length of a mind's search token: fixed, so a token and the stem behind it split one way only. */
export const SEARCH_TOKEN_LENGTH = 12;

/**
 * The token in front of every stem a mind indexes and asks for: the last 12 letters and digits
 * of its id (a mind id ends in 16 random characters), zero-padded, lower case. Derived from the
 * id alone, so it needs no lookup and stays right when a mind's rows are copied to another
 * database. Letters and digits only, so FTS5 keeps token and stem as one term. Migration 0013
 * computes the same in SQL and makes it unique among minds.
 */
export function mindSearchToken(mindId: string): string {
  return ("0".repeat(SEARCH_TOKEN_LENGTH) + mindId.replaceAll("_", "").replaceAll("-", "").toLowerCase()).slice(-SEARCH_TOKEN_LENGTH);
}

/** The text a mind stores in an FTS column: every stem behind the mind's token, space separated. */
export function toIndexText(mindId: string, text: string): string {
  const token = mindSearchToken(mindId);
  return stems(text).map((s) => token + s).join(" ");
}

/** A Russian stem that ends where Snowball's verb step may have cut a final н or л. */
const CUT_STEM = /[ая]$/u;
const CUT_LETTER = /^[нл]/u;
/**
 * A Russian stem that still holds the н or л that other forms of its word lose. Snowball cuts
 * it only where a vowel stands before the а/я (its RV region): «туман» → «тума», but «зал»,
 * «дал» keep theirs, so they have no other stem to ask for.
 */
const UNCUT_STEM = /[аеёиоуыэюя].*[ая][нл]$/u;

/**
 * The stems a normalised word's other forms may be indexed under: its own stem, and for a
 * Russian noun in -ан/-ал (-ян/-ял) the one Snowball gives its other cases, with or without the
 * н/л. «туман» and «туманы» ask for «тума» and «туман»; «тумане» for «туман» and «тума». Verb
 * forms such as «читала» gain a stem no verb form has, so they match as before.
 */
export function stemVariants(word: string): string[] {
  const own = stem(word);
  if (!CYRILLIC.test(word)) return [own];
  const cut = word.slice(own.length);
  if (CUT_STEM.test(own) && word.startsWith(own) && CUT_LETTER.test(cut)) return [own, own + cut[0]];
  if (UNCUT_STEM.test(own) && !STOP_WORDS.has(own.slice(0, -1))) return [own, own.slice(0, -1)];
  return [own];
}

/** Distinct stems to search for: stop words and question words dropped unless the query is nothing else. */
export function queryTerms(query: string): string[] {
  const all = words(query);
  const meaningful = all.filter((w) => !STOP_WORDS.has(w) && !QUESTION_WORDS.has(w));
  const chosen = new Set(meaningful.length > 0 ? meaningful : all);
  return [...new Set([...chosen].flatMap(stemVariants))].slice(0, MAX_QUERY_TERMS);
}

/**
 * A mind's FTS5 MATCH expression: its quoted terms (token and stem) OR-ed together, so no user
 * text is ever read as FTS syntax and no other mind's term can match. Null when the query
 * holds no word at all.
 */
export function toMatchExpression(mindId: string, query: string): string | null {
  const terms = queryTerms(query);
  if (terms.length === 0) return null;
  const token = mindSearchToken(mindId);
  return terms.map((t) => `"${(token + t).replaceAll('"', '""')}"`).join(" OR ");
}

/** Tags are compared whole: trimmed, NFC, lower case. */
export function normalizeTag(tag: string): string {
  return tag.trim().normalize("NFC").toLowerCase();
}
