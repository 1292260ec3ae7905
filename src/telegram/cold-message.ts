import type { MessageEntity } from "grammy/types";
import { headingText } from "../notes/document";
import type { MessagePart } from "./split";

const BULLET = /^\s*[-*]\s+/;

/**
 * Cold memory as a Telegram message: a heading's words in bold without its `#` markers, a
 * `-` or `*` bullet as "•", every other line as written. Formatting goes in entities, not a parse
 * mode, so a fact's own `<`, `&` or `*` reaches the reader as it was written.
 */
export function coldMessage(document: string): MessagePart {
  const lines: string[] = [];
  const entities: MessageEntity[] = [];
  let offset = 0;
  for (const line of document.split("\n")) {
    const heading = headingText(line);
    const shown = heading ?? line.replace(BULLET, "• ");
    if (heading !== null) entities.push({ type: "bold", offset, length: heading.length });
    lines.push(shown);
    // Offsets count UTF-16 code units, as JavaScript's string length does and Telegram expects.
    offset += shown.length + 1;
  }
  return { text: lines.join("\n"), entities };
}
