declare module "wink-porter2-stemmer" {
  /** Porter2 (Snowball English) stem of one lower-case word. */
  export default function stem(word: string): string;
}
