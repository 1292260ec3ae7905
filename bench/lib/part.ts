/** What every part hands back: its figures, and the markdown that shows them. */
export interface PartResult {
  json: unknown;
  markdown: string;
}

export interface Part {
  name: string;
  title: string;
  run(log: (line: string) => void): Promise<PartResult>;
}
