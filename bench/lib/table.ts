/** A markdown table from a header row and body rows. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cell = (v: string | number) => (typeof v === "number" ? fmt(v) : v);
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

/** Numbers as tables show them: one decimal below 100, none above. */
export function fmt(v: number, digits?: number): string {
  if (!Number.isFinite(v)) return "–";
  const d = digits ?? (Math.abs(v) >= 100 ? 0 : 1);
  return v.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
}

/** A signed difference, e.g. +3.5. */
export const delta = (v: number) => (v >= 0 ? "+" : "") + fmt(v);
