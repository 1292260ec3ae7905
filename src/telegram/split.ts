import type { MessageEntity } from "grammy/types";

/** The most text one Telegram message may carry, in UTF-16 code units as Telegram counts it. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

export interface MessagePart {
  text: string;
  entities: MessageEntity[];
}

/**
 * Splits a reply into Telegram-sized parts: at a paragraph break, else a line break, else a
 * space, else between two characters (graphemes: an emoji with its modifiers is one), and
 * never inside an entity unless the entity alone is longer than a part.
 */
export function splitMessage(text: string, entities: MessageEntity[] = [], limit = TELEGRAM_MESSAGE_LIMIT): MessagePart[] {
  if (text.length <= limit) return [{ text, entities }];
  const boundaries = graphemeBoundaries(text);
  const parts: MessagePart[] = [];
  let start = 0;
  while (start < text.length) {
    let cut = text.length;
    if (text.length - start > limit) cut = chooseCut(text, start, start + limit, boundaries, entities);
    const part = text.slice(start, cut);
    if (part.trim() !== "") parts.push({ text: part, entities: clip(entities, start, cut) });
    start = cut;
    while (start < text.length && /\s/.test(text[start]!)) start++;
  }
  return parts;
}

function chooseCut(text: string, start: number, max: number, boundaries: Set<number>, entities: MessageEntity[]): number {
  const window = text.slice(start, max + 1);
  const insideEntity = (at: number) => entities.some((e) => e.offset < at && at < e.offset + e.length);
  // Cut before the separator, so the separator is dropped with the whitespace after the cut.
  for (const separator of [/\n\s*\n/g, /\n/g, /\s/g]) {
    const cuts = [...window.matchAll(separator)].map((m) => start + m.index).filter((at) => at > start && at <= max);
    const fitting = cuts.filter((at) => !insideEntity(at));
    if (fitting.length > 0) return fitting.at(-1)!;
  }
  for (let at = max; at > start; at--) if (boundaries.has(at) && !insideEntity(at)) return at;
  for (let at = max; at > start; at--) if (boundaries.has(at)) return at;
  return max;
}

function graphemeBoundaries(text: string): Set<number> {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const set = new Set<number>();
  for (const { index } of segmenter.segment(text)) set.add(index);
  set.add(text.length);
  return set;
}

/** The entities of [start, end), moved to the part's offsets; one crossing the cut is shortened. */
function clip(entities: MessageEntity[], start: number, end: number): MessageEntity[] {
  return entities.flatMap((e) => {
    const from = Math.max(e.offset, start);
    const to = Math.min(e.offset + e.length, end);
    return to > from ? [{ ...e, offset: from - start, length: to - from }] : [];
  });
}
