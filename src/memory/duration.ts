import { invalid } from "../errors";

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d{1,6})([mhd])$/;

/** "30m", "12h", "7d" → milliseconds; anything else is a clear 400. */
export function parseDuration(text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) throw invalid(`"${text}" is not a duration: use a whole number followed by m, h or d, such as 7d`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
