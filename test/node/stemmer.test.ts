// Runs in Node, not in workerd: the reference stemmer aborts workerd on long texts, and the
// word forms come from a Hunspell dictionary read from disk. `npm test` runs it with node --test.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { HunspellReader } from "hunspell-reader";
import snowball from "snowball-stemmers";
import { queryTerms, STOP_WORDS, stem } from "../../src/memory/normalize";

const require = createRequire(import.meta.url);
const dictionary = path.dirname(require.resolve("dictionary-ru"));
const reader = await HunspellReader.createFromFiles(path.join(dictionary, "index.aff"), path.join(dictionary, "index.dic"));
const lower = (word: string) => word.toLowerCase().replaceAll("ё", "е");
const RUSSIAN_WORD = /^[а-я]+$/;

/** Every lower-case Russian form the dictionary generates, with the entry it comes from. */
const forms = new Map<string, Set<string>>();
for (const { word, dic } of reader.seqAffWords()) {
  const lemma = lower(dic.split("/")[0] ?? "");
  const form = lower(word);
  if (!RUSSIAN_WORD.test(lemma) || !RUSSIAN_WORD.test(form)) continue;
  let set = forms.get(lemma);
  if (!set) forms.set(lemma, (set = new Set()));
  set.add(form);
}

test("the Russian stems are Snowball's on every form a Russian dictionary generates", () => {
  const reference = snowball.newStemmer("russian");
  const distinct = new Set([...forms.values()].flatMap((set) => [...set]));
  assert.ok(distinct.size >= 10_000, `only ${distinct.size} forms`);
  const differing = [...distinct].filter((w) => stem(w) !== reference.stem(w));
  assert.deepEqual(differing.slice(0, 20), [], `${differing.length} of ${distinct.size} forms differ`);
  console.log(`${distinct.size} Russian word forms, ${differing.length} stemmed unlike Snowball`);
});

test("a noun in -ан or -ал meets all its cases, whichever form is asked for", () => {
  const nouns = ["туман", "ресторан", "стакан", "карман", "диван", "роман", "экран", "океан", "банан", "чемодан", "канал", "журнал"];
  for (const noun of nouns) {
    const cases = forms.get(noun);
    assert.ok(cases && cases.size >= 6, `the dictionary declines ${noun}`);
    // Snowball alone parts the nominative from the other cases...
    assert.notEqual(stem(noun), stem(`${noun}е`));
    // ...the query's stems bring every form to every other, the nominative included.
    const all = [noun, ...cases];
    for (const asked of all) {
      const terms = queryTerms(asked);
      for (const stored of all) assert.ok(terms.includes(stem(stored)), `${asked} → ${stored}`);
    }
  }
});

test("verbs in the past tense still meet as they did", () => {
  for (const [a, b] of [["читал", "читала"], ["читали", "читал"], ["знал", "знали"], ["сказал", "сказала"]] as const) {
    assert.ok(queryTerms(a).includes(stem(b)), `${a} → ${b}`);
    assert.ok(queryTerms(b).includes(stem(a)), `${b} → ${a}`);
  }
});

test("a query asks for no stem its word's forms cannot have: short words keep one, no stop word is added", () => {
  // Snowball leaves the н/л of «зал», «дал» (no vowel before the а): asking for «за», «да» too
  // would match nearly every Russian text.
  for (const word of ["зал", "дал", "бал", "мал", "вал", "нал"]) assert.deepEqual(queryTerms(word), [stem(word)], word);
  const added = [...new Set([...forms.values()].flatMap((set) => [...set]))].flatMap((form) =>
    queryTerms(form).filter((term) => term !== stem(form) && STOP_WORDS.has(term)).map((term) => `${form} → ${term}`),
  );
  assert.deepEqual(added.slice(0, 20), [], `${added.length} forms ask for a stop word`);
});
