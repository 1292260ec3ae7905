// The span of time a question points back to, read relative to when it is asked: "two weeks
// ago", "last Saturday", "in the past month", «три дня назад», «на прошлой неделе». Memories
// stated within it answer it more likely than the same words said at another time (rerank.ts).
// English and Russian; a question naming no such time has no span.

const DAY_MS = 86_400_000;

export interface TimeSpan {
  from: Date;
  to: Date;
}

const UNIT_DAYS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };
const COUNTS: Record<string, number> = {
  ...{ a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 },
  ...{ "a couple of": 2, "a few": 3, several: 3, couple: 2, few: 3 },
  ...{ один: 1, одна: 1, одну: 1, два: 2, две: 2, три: 3, четыре: 4, пять: 5, шесть: 6, семь: 7, восемь: 8, девять: 9, десять: 10 },
  ...{ пару: 2, несколько: 3 },
};
const COUNT = `(\\d{1,3}|${Object.keys(COUNTS).join("|")})`;
const RU_UNITS: [RegExp, number][] = [
  [/^(день|дня|дней|сутки|суток)$/u, 1],
  [/^(неделю|недели|недель|неделя)$/u, 7],
  [/^(месяц|месяца|месяцев)$/u, 30],
  [/^(год|года|лет)$/u, 365],
];
const WEEKDAYS_EN = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const WEEKDAYS_RU = ["воскресенье", "понедельник", "вторник", "сред", "четверг", "пятниц", "суббот"];

const count = (word: string | undefined) => (word === undefined ? 1 : /^\d+$/.test(word) ? Number(word) : (COUNTS[word] ?? 1));
const ruUnit = (word: string) => RU_UNITS.find(([re]) => re.test(word))?.[1];

/** `days` before now, give or take `slack` days. */
function around(now: Date, days: number, slack: number): TimeSpan {
  const at = now.getTime() - days * DAY_MS;
  return { from: new Date(at - slack * DAY_MS), to: new Date(at + slack * DAY_MS) };
}

/** From `days` before now until now. */
const within = (now: Date, days: number): TimeSpan => ({ from: new Date(now.getTime() - days * DAY_MS), to: now });

/** "N units ago", «N единиц назад»: that far back, give or take half a unit (a quarter of the days, at least one). */
function ago(n: number, unitDays: number, now: Date): TimeSpan {
  return around(now, n * unitDays, unitDays === 1 ? Math.max(1, n / 4) : unitDays / 2);
}

/** The last such weekday before today (a week ago when today is one), give or take a day. */
function lastWeekday(day: number, now: Date): TimeSpan {
  const back = (now.getUTCDay() - day + 7) % 7 || 7;
  return around(now, back, 1);
}

function english(q: string, now: Date): TimeSpan | null {
  let m = new RegExp(`\\b${COUNT} (day|week|month|year)s? ago\\b`).exec(q);
  if (m) return ago(count(m[1]), UNIT_DAYS[m[2]!]!, now);
  if (/\bday before yesterday\b/.test(q)) return around(now, 2, 1);
  if (/\byesterday\b/.test(q)) return within(now, 2);
  m = /\blast (sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/.exec(q);
  if (m) return lastWeekday(WEEKDAYS_EN.indexOf(m[1]!), now);
  m = /\blast (week|weekend|month|year)\b/.exec(q);
  if (m) return within(now, 2 * (m[1] === "weekend" ? 7 : UNIT_DAYS[m[1]!]!));
  m = new RegExp(`\\bpast (?:${COUNT} )?(day|week|month|year)s?\\b`).exec(q);
  if (m) return within(now, count(m[1]) * UNIT_DAYS[m[2]!]!);
  return null;
}

function russian(q: string, now: Date): TimeSpan | null {
  let m = new RegExp(`(?:^|[^\\p{L}])(?:${COUNT} )?(\\p{L}+) назад(?![\\p{L}])`, "u").exec(q);
  const unit = m ? ruUnit(m[2]!) : undefined;
  if (m && unit !== undefined) return ago(count(m[1]), unit, now);
  if (/(?:^|[^\p{L}])позавчера(?![\p{L}])/u.test(q)) return around(now, 2, 1);
  if (/(?:^|[^\p{L}])вчера(?![\p{L}])/u.test(q)) return within(now, 2);
  m = /(?:^|[^\p{L}])в прошл\p{L}* (\p{L}+)/u.exec(q);
  const weekday = m ? WEEKDAYS_RU.findIndex((d) => m![1]!.startsWith(d)) : -1;
  if (weekday >= 0) return lastWeekday(weekday, now);
  m = /(?:^|[^\p{L}])(?:на|в) прошл\p{L}* (недел|месяц|год)/u.exec(q);
  if (m) return within(now, 2 * (m[1] === "недел" ? 7 : m[1] === "месяц" ? 30 : 365));
  m = new RegExp(`за (?:последн\\p{L}* )?(?:${COUNT} )?(\\p{L}+)`, "u").exec(q);
  const span = m ? ruUnit(m[2]!) : undefined;
  if (m && span !== undefined && /последн/u.test(m[0])) return within(now, count(m[1]) * span);
  return null;
}

/** The span of time the question points back to from `now`, or null when it names none. */
export function askedTime(question: string, now: Date): TimeSpan | null {
  const q = question.normalize("NFC").toLowerCase().replaceAll("ё", "е").replace(/\s+/g, " ");
  return english(q, now) ?? russian(q, now);
}
