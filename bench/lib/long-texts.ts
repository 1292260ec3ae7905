// Long texts for the soak, made from a seed: English words drawn from LoCoMo's dialogue (a real
// vocabulary, whose variety aborted workerd with the old stemmer), Russian stems with many endings.
import type { Turn } from "./dataset";

const RUSSIAN_STEMS = (
  "люб работ путешеств читал писа дом город книг друг семь дет мам пап учител врач машин собак кош рук голов глаз слов врем жизн дел мир стол окн двер ход говор дума зна сдела смотр слуш игра жив пиш рисова готов кофе сахар чай молок хлеб вод мор рек гор лес пол неб солнц звезд ноч утр вечер зим лет весн осен праздник подар музык песн танц картин фильм театр школ университет работник компани проект задач репозитори памят воспоминани ёжик ёлк зелён берёз тёпл счёт объём"
).split(" ");
const RUSSIAN_ENDINGS = ["", "а", "я", "о", "е", "ё", "ы", "и", "у", "ю", "ой", "ей", "ом", "ем", "ами", "ями", "ах", "ях", "ов", "ев", "ить", "ать", "ять", "ет", "ит", "ют", "ут", "ал", "ала", "али", "ило", "ешь", "ишь", "ется", "ются", "ался", "ться", "ость", "ости", "ение", "ения", "ениями", "ный", "ная", "ное", "ные", "ного", "ному", "ными", "ейший", "айший", "ский", "ская", "нность", "ировать", "ированный", "вшись", "ющий", "ащий", "нный"];

/** A deterministic pseudo-random sequence (a linear congruential generator). */
function sequence(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

/** About `chars` characters of Russian: sentences of stems with endings. */
export function russianText(seed: number, chars: number): string {
  return sentences(RUSSIAN_STEMS, RUSSIAN_ENDINGS, seed, chars);
}

/** The distinct words of LoCoMo's dialogue, lower case: a real English vocabulary. */
export function englishVocabulary(turns: Turn[]): string[] {
  return [...new Set(turns.flatMap((t) => t.text.toLowerCase().match(/\p{L}+/gu) ?? []))];
}

/** About `chars` characters of English: sentences of words drawn from a vocabulary. */
export function englishText(vocabulary: readonly string[], seed: number, chars: number): string {
  return sentences(vocabulary, [""], seed, chars);
}

function sentences(stems: readonly string[], endings: readonly string[], seed: number, chars: number): string {
  const next = sequence(seed);
  const out: string[] = [];
  let length = 0;
  while (length < chars) {
    const words = Array.from({ length: 6 + next(12) }, () => stems[next(stems.length)]! + endings[next(endings.length)]!);
    const sentence = words.join(" ");
    out.push(sentence.charAt(0).toUpperCase() + sentence.slice(1) + ".");
    length += sentence.length + 2;
  }
  return out.join(" ").slice(0, chars);
}
