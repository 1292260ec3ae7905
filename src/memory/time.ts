import { and, gt, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import { memories } from "../db/schema";
import { invalid } from "../errors";

// A memory is a statement made at a time (DESIGN.md section 11): when it was stated, from when
// it holds, and once a later statement replaced it, until when and by what. Rows written before
// these columns existed read as stated and valid from when they were created.

/** When a memory was stated: the one expression every ordering "stated later first" reads. */
export const statedAt = sql<string>`coalesce(${memories.observedAt}, ${memories.createdAt})`;

/** From when a memory holds. */
export const validFrom = sql<string>`coalesce(${memories.validFrom}, ${memories.observedAt}, ${memories.createdAt})`;

/** A memory no later statement replaced. */
export const isCurrent = isNull(memories.supersededBy);

/** Which statements a read shows: what holds now (the default), what held at `asOf`, or every version. */
export interface TimeView {
  /** ISO 8601: show what was valid then. */
  asOf?: string;
  /** Show replaced statements too, each marked with its validity; with `asOf`, those stated by then. */
  includeSuperseded?: boolean;
}

/**
 * The statements a read in time shows: the current ones; those valid at `asOf`; or with
 * `includeSuperseded` every version (those stated by `asOf` when given). Expiry is the reader's
 * own filter, at `expiryTime`.
 */
export function inTime(view: TimeView): SQL | undefined {
  if (view.includeSuperseded) return view.asOf === undefined ? undefined : lte(validFrom, view.asOf);
  if (view.asOf === undefined) return isCurrent;
  return and(lte(validFrom, view.asOf), or(isNull(memories.validUntil), gt(memories.validUntil, view.asOf)));
}

/** The time a read in time hides expired memories at: `asOf`, or now. */
export const expiryTime = (view: TimeView, nowIso: string) => view.asOf ?? nowIso;

/** Lateness allowed to a writer's clock: a statement cannot be made later than now, give or take this. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** When a write's statement was made: as given (never in the future), or now. */
export function statementTime(observedAt: string | undefined, nowIso: string): string {
  if (observedAt === undefined) return nowIso;
  if (Date.parse(observedAt) > Date.parse(nowIso) + CLOCK_SKEW_MS) throw invalid("observed_at: a statement cannot be made in the future");
  return observedAt;
}

/** Until when a replaced statement held: until the replacing one holds, never before it began itself. */
export const validUntilReplacedBy = (replacingFrom: string) => sql<string>`max(${validFrom}, ${replacingFrom})`;

const TIME_QUESTION = new RegExp(
  [
    "\\b(when|how long|since when|which (came|happened|was) (first|earlier|later|last)|before or after|what (date|year|month|day|time))\\b",
    "\\b(used? to|anymore|no longer|still|changed?|previous(ly)?|before|earlier|originally|at first)\\b",
    "(?<![\\p{L}])(когда|как давно|сколько (времени|лет|дней)|раньше|прежде|до того|сначала|всё ещё|все еще|больше не|изменил)",
  ].join("|"),
  "iu",
);

/**
 * Whether a question is about time (when, how long ago, which came first, what it used to be):
 * it needs statements a later one replaced as well, each with its dates.
 */
export const asksAboutTime = (question: string) => TIME_QUESTION.test(question.normalize("NFC"));

const DAY_FORMAT = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

/** A day as people write it, "21 May 2023" (UTC): how dates reach a model in recall and context. */
export const dayOf = (iso: string) => DAY_FORMAT.format(new Date(iso)).replace("Sept", "Sep");
