import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import type { Dictionary, UiLocale } from "./i18n";

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2329;background:#f4f5f7}
header{background:#1f3a5f;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center}
header a{color:#fff;text-decoration:none}header .brand{font-weight:700;margin-right:auto}
nav{display:flex;flex-wrap:wrap;gap:.3rem .9rem;font-size:.95rem}nav a[aria-current]{text-decoration:underline}
main{max-width:60rem;margin:0 auto;padding:1rem}h1{font-size:1.35rem;margin:.3rem 0 1rem}h2{font-size:1.1rem;margin:1.4rem 0 .6rem}
.card{background:#fff;border:1px solid #d9dde3;border-radius:.6rem;padding:.8rem 1rem;margin:0 0 .8rem}
.card h3{margin:0 0 .3rem;font-size:1rem;word-break:break-word}.meta{color:#5b6673;font-size:.85rem}
.badge{display:inline-block;border-radius:1rem;padding:0 .5rem;font-size:.78rem;background:#e7ebf0;margin-right:.25rem}
.ok{background:#d9f2e1;color:#17613a}.warn{background:#fdecc8;color:#7a4b00}.eph{background:#efe3fb;color:#5b2a86}
.actions{display:flex;flex-wrap:wrap;gap:.4rem;margin-top:.6rem}.actions form{margin:0}
button,.button{font:inherit;border:1px solid #1f3a5f;background:#1f3a5f;color:#fff;border-radius:.4rem;padding:.35rem .8rem;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#1f3a5f}button.danger{background:#a4262c;border-color:#a4262c}
input,select,textarea{font:inherit;padding:.35rem .5rem;border:1px solid #b8c0ca;border-radius:.4rem;max-width:100%}
textarea{width:100%;min-height:8rem}label{display:block;margin:.5rem 0 .2rem;font-size:.9rem}
.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}.filters label{margin:0}
.flash{background:#d9f2e1;border:1px solid #9fd5b2;padding:.5rem .8rem;border-radius:.4rem;margin-bottom:1rem}
.error{background:#fbe0e0;border-color:#e6a5a5}
table{border-collapse:collapse;width:100%;background:#fff;font-size:.9rem}td,th{border:1px solid #d9dde3;padding:.3rem .5rem;text-align:left;vertical-align:top}
.scroll{overflow-x:auto}pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #d9dde3;border-radius:.4rem;padding:.7rem;margin:0}
.diff .add{background:#e3f6e8;display:block}.diff .del{background:#fbe4e4;display:block}.diff .hunk{color:#5b6673;display:block}
.ns{display:flex;flex-wrap:wrap;gap:.3rem .6rem;align-items:center;padding:.5rem .8rem}.ns a{color:#1f3a5f;text-decoration:none;border:1px solid #d9dde3;border-radius:1rem;padding:0 .6rem}.ns a[aria-current]{background:#1f3a5f;color:#fff}.ns a[aria-current] .meta{color:#dfe6ee}
ul.tasks{list-style:none;padding:0;margin:0}ul.tasks li{padding:.35rem 0;border-top:1px solid #eef0f3}ul.tasks li:first-child{border-top:0}
a.task{color:#1f3a5f;font-weight:600;text-decoration:none}a.task:hover{text-decoration:underline}a.task:visited{color:#1f3a5f}
table.versions td:last-child .actions{flex-wrap:wrap}
@media (max-width:30rem){table.versions,table.versions tbody,table.versions tr,table.versions td{display:block;width:100%}table.versions tr:first-child{display:none}table.versions tr{border-bottom:2px solid #d9dde3}table.versions td{border:0;padding:.2rem .5rem}}
ul.changes{margin:.2rem 0 0;padding-left:1rem;font-size:.85rem}.content{white-space:pre-wrap}.msg{border-left:4px solid #1f3a5f}.msg.ephemeral{border-left-color:#8a4fc1;background:#faf6fe}
@media (max-width:30rem){main{padding:.6rem}header{padding:.5rem .6rem}nav{font-size:.9rem}}
`;

export interface LayoutProps {
  t: Dictionary;
  locale: UiLocale;
  title: string;
  path: string;
  /** The page's query (an OAuth request, a login link, filters), kept by the language switch. */
  query?: string;
  /** Shown above the page: a confirmation or an error. */
  flash?: { text: string; error?: boolean } | null;
  signedIn?: boolean;
  mindName?: string;
  csrf?: string;
  children?: Child;
}

const NAV = [
  ["/ui/memories", "memories"],
  ["/ui/notes", "notes"],
  ["/ui/cold", "cold"],
  ["/ui/sessions", "sessions"],
  ["/ui/usage", "usage"],
  ["/ui/data", "data"],
  ["/ui/apps", "apps"],
  ["/ui/keys", "keys"],
  ["/ui/webhooks", "webhooks"],
  ["/ui/settings", "settings"],
  ["/ui/minds", "minds"],
] as const;

/** The same page in another language: its query kept, `lang` set. */
function inLanguage(query: string | undefined, locale: UiLocale): string {
  const params = new URLSearchParams(query);
  params.set("lang", locale);
  return `?${params}`;
}

/** Every page's frame: inline styles (no external resource), navigation, language switch. */
export function Layout(props: LayoutProps) {
  const { t, locale } = props;
  const other = locale === "en" ? "ru" : "en";
  // Standards mode: without a doctype browsers lay the page out in quirks mode.
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang={locale}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <title>{`${props.title} · ${t.app}`}</title>
          <style>{STYLE}</style>
        </head>
        <body>
          <header>
            <a class="brand" href="/ui">
              {t.app}
              {props.mindName ? ` · ${props.mindName}` : ""}
            </a>
            {props.signedIn ? (
              <nav>
                {NAV.map(([href, key]) => (
                  <a href={href} aria-current={props.path.startsWith(href) ? "page" : undefined}>
                    {t[key]}
                  </a>
                ))}
              </nav>
            ) : null}
            <a href={inLanguage(props.query, other)} lang={other}>
              {other === "ru" ? "Русский" : "English"}
            </a>
            {props.signedIn && props.csrf ? (
              <form method="post" action="/ui/logout" style="margin:0">
                <CsrfField token={props.csrf} />
                <button class="secondary" type="submit">{t.logout}</button>
                <button class="secondary" type="submit" name="everywhere" value="1">{t.logoutEverywhere}</button>
              </form>
            ) : null}
          </header>
          <main>
            <h1>{props.title}</h1>
            {props.flash ? <div class={props.flash.error ? "flash error" : "flash"} role="status">{props.flash.text}</div> : null}
            {props.children}
          </main>
        </body>
      </html>
    </>
  );
}

export const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

/** A one-button form posting to `action` with the session's CSRF token. */
export function PostButton(props: { action: string; csrf: string; label: string; kind?: "secondary" | "danger"; fields?: Record<string, string> }) {
  return (
    <form method="post" action={props.action}>
      <CsrfField token={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => <input type="hidden" name={name} value={value} />)}
      <button type="submit" class={props.kind}>{props.label}</button>
    </form>
  );
}
