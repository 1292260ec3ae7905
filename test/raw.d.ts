// Files imported as text with Vite's `?raw` suffix (wrangler.toml, to test what it declares).
declare module "*?raw" {
  const content: string;
  export default content;
}

// Vite's import.meta.glob, as the layout test uses it (eager, one export of each file).
interface ImportMeta {
  glob<T>(pattern: string | string[], options: { query?: string; import?: string; eager: true }): Record<string, T>;
}
