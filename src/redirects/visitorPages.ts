// The pages a visitor of a short link can meet: an unknown code (404, the spec's redirect
// page, home after 2000 ms) and an expired or switched-off link (410). A visitor reads one
// sentence, so each page is one small self-contained HTML document (~1.5 kB, the app's looks
// in light and dark through prefers-color-scheme) and never the dashboard's bundle. No script
// at all: the 2 s return home is a <meta> refresh, which the page's CSP (staticPageCsp) need
// not allow and which replaces the history entry like the app's navigate(…, {replace}).
import { staticPageHeaders } from "../http/headers";

/** Spec §9: the redirect page goes home after 2000 ms (web/redirect/RedirectPage.tsx too). */
export const REDIRECT_FALLBACK_S = 2;

// The app's colours (web/styles.css :root and :root.dark; visitorPages.test.ts keeps them
// equal) and the look of its .center-page, h1 and .btn-primary.
export const VISITOR_CSS =
  ":root{--bg:#f7f7fb;--text:#16181d;--muted:#5b6170;--primary:#4338ca;--primary-text:#ffffff;--focus:#2563eb;color-scheme:light}" +
  "@media(prefers-color-scheme:dark){:root{--bg:#0f1115;--text:#eceef3;--muted:#a2a9b8;--primary:#8b85ff;--primary-text:#0f1115;--focus:#93c5fd;color-scheme:dark}}" +
  "*{box-sizing:border-box}" +
  'body{margin:0;min-width:320px;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}' +
  "main{min-height:100vh;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:.75rem;padding:1rem;text-align:center}" +
  "h1{font-size:1.6rem;line-height:1.25;margin:0 0 .5rem;overflow-wrap:break-word}" +
  "p{margin:0 0 .5rem;max-width:34rem;color:var(--muted)}" +
  "a{display:inline-flex;align-items:center;justify-content:center;min-height:40px;padding:.45rem .9rem;border-radius:8px;background:var(--primary);color:var(--primary-text);font-weight:600;font-size:.95rem;text-decoration:none}" +
  "a:hover{filter:brightness(1.08)}a:focus-visible{outline:2px solid var(--focus);outline-offset:2px}";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Page = { heading: string; message: string; homeAfterS?: number };

/** One visitor page. Only fixed texts and the configured app name go into it, never request data. */
export function visitorPageHtml(appName: string, { heading, message, homeAfterS }: Page): string {
  const refresh = homeAfterS === undefined ? "" : `<meta http-equiv="refresh" content="${homeAfterS};url=/">`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><meta name="robots" content="noindex">${refresh}` +
    `<title>${escapeHtml(heading)} · ${escapeHtml(appName)}</title><link rel="icon" href="data:,"><style>${VISITOR_CSS}</style></head>` +
    `<body><main><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(message)}</p><a href="/">Go Home</a></main></body></html>`
  );
}

export const UNKNOWN_PAGE: Page = {
  // The texts of web/redirect/RedirectPage.tsx, the app's own redirect page.
  heading: "Link not found",
  message: "This short link doesn't exist or was removed. Taking you to the home page…",
  homeAfterS: REDIRECT_FALLBACK_S,
};
export const INACTIVE_PAGE: Page = { heading: "This link is no longer active", message: "The owner of this short link has switched it off." };
/** Spec: any other path shows 'Page Not Found' (here: a path that cannot even be decoded). */
export const NOT_FOUND_PAGE: Page = { heading: "Page Not Found", message: "The page you're looking for doesn't exist." };
export const EXPIRED_PAGE: Page = { heading: "This link has expired", message: "This short link is past its expiry date." };
/** A smart link past its click limit with no fallback URL (issue 24). */
export const LIMIT_PAGE: Page = { heading: "This link is no longer available", message: "This short link has reached its click limit." };

/** The three pages for one app name, rendered once; each call answers with a fresh Response. */
export function visitorPages(appName: string) {
  const make = (page: Page, status: number) => {
    const html = visitorPageHtml(appName, page);
    const body = new TextEncoder().encode(html);
    const headers = staticPageHeaders(html);
    return { html, respond: () => new Response(body, { status, headers }) };
  };
  return { unknown: make(UNKNOWN_PAGE, 404), inactive: make(INACTIVE_PAGE, 410), expired: make(EXPIRED_PAGE, 410), limit: make(LIMIT_PAGE, 410), notFound: make(NOT_FOUND_PAGE, 404) };
}
