// Files imported as text with Vite's `?raw` suffix (wrangler.toml, to test what it declares).
declare module "*?raw" {
  const content: string;
  export default content;
}
