import { exports } from "cloudflare:workers";
import { bodyText } from "../helpers";

export const ORIGIN = "https://edgemind.test";

/** A browser-like client: keeps cookies, sends same-origin form posts, does not follow redirects; the Worker's fetch unless `fetch` is given. */
export function browser(headers: Record<string, string> = {}, fetch: (request: Request) => Promise<Response> = (request) => exports.default.fetch(request)) {
  const jar = new Map<string, string>();
  async function request(method: string, path: string, body?: BodyInit, extra: Record<string, string> = {}) {
    const h = new Headers({ ...headers, ...extra });
    if (jar.size > 0) h.set("Cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    if (method === "POST" && !h.has("Origin")) h.set("Origin", ORIGIN);
    const res = await fetch(new Request(`${ORIGIN}${path}`, { method, headers: h, body, redirect: "manual" }));
    for (const cookie of res.headers.getAll("Set-Cookie")) {
      const [pair = ""] = cookie.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      if (value === "" || /max-age=0/i.test(cookie)) jar.delete(name);
      else jar.set(name, value);
    }
    return { status: res.status, headers: res.headers, text: await bodyText(res), setCookies: res.headers.getAll("Set-Cookie") };
  }
  return {
    jar,
    get: (path: string, extra?: Record<string, string>) => request("GET", path, undefined, extra),
    post: (path: string, fields: Record<string, string>, extra?: Record<string, string>) =>
      request("POST", path, new URLSearchParams(fields), { "Content-Type": "application/x-www-form-urlencoded", ...extra }),
    postForm: (path: string, form: FormData) => request("POST", path, form),
  };
}

/** The CSRF token a rendered page carries in its forms. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error("no CSRF token on the page");
  return match[1]!;
}
