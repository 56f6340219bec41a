// The password page of a protected link: one small self-contained HTML document in the visitor
// pages' style (redirects/visitorPages.ts), no script, its CSP allowing nothing but its own
// style and a form posted back to the same address. Rendered once per variant at start; only
// fixed texts and the app name go into it, never request data.
import { BASE_SECURITY_HEADERS } from "../http/headers";
import { VISITOR_CSS } from "../redirects/visitorPages";

const FORM_CSS =
  "form{display:flex;flex-direction:column;gap:.5rem;width:100%;max-width:20rem;text-align:left}" +
  "label{font-weight:600}" +
  "input{font:inherit;min-height:40px;padding:.4rem .6rem;border:1px solid var(--muted);border-radius:8px;background:var(--bg);color:var(--text)}" +
  "input:focus-visible,button:focus-visible{outline:2px solid var(--focus);outline-offset:2px}" +
  "button{font:inherit;min-height:40px;padding:.45rem .9rem;border:0;border-radius:8px;background:var(--primary);color:var(--primary-text);font-weight:600;cursor:pointer}" +
  ".error{color:var(--text);font-weight:600;margin:0}";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export const GATE_TEXT = {
  heading: "This link is password protected",
  message: "Enter the password you were given to continue.",
  wrong: "That password is not right. Please try again.",
  button: "Continue",
} as const;

/**
 * The rate-limited page's words for a wait of `ms`, in whole minutes rounded up: the real wait
 * (the rest of the limit's window, up to 15 minutes), where "a few minutes" undersold it.
 */
export const limitedText = (ms: number) => {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return `Too many wrong passwords. Please wait ${minutes === 1 ? "1 minute" : `${minutes} minutes`} and try again.`;
};

const sha256 = (text: string) => `'sha256-${new Bun.CryptoHasher("sha256").update(text).digest("base64")}'`;

export function gatePageHtml(appName: string, error: string | null) {
  const css = VISITOR_CSS + FORM_CSS;
  // The error is announced (role=alert) and tied to the field, so a screen reader hears it at once.
  const err = error ? `<p class="error" id="pw-error" role="alert">${escapeHtml(error)}</p>` : "";
  return {
    css,
    html:
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<meta name="color-scheme" content="light dark"><meta name="robots" content="noindex">` +
      `<title>${escapeHtml(GATE_TEXT.heading)} · ${escapeHtml(appName)}</title><link rel="icon" href="data:,"><style>${css}</style></head>` +
      `<body><main><h1>${escapeHtml(GATE_TEXT.heading)}</h1><p>${escapeHtml(GATE_TEXT.message)}</p>` +
      `<form method="post"><label for="pw">Password</label>${err}` +
      `<input id="pw" name="password" type="password" autocomplete="current-password" required autofocus maxlength="128"${error ? ' aria-invalid="true" aria-describedby="pw-error"' : ""}>` +
      `<button type="submit">${escapeHtml(GATE_TEXT.button)}</button></form></main></body></html>`,
  };
}

/**
 * The pages (ask, wrong, rate-limited), rendered once; each call answers with a fresh Response.
 * The rate-limited page once per whole minute of wait up to `maxWaitMs` (the limit's window):
 * still fixed texts only, and its Retry-After says the same wait in seconds.
 */
export function gatePages(appName: string, maxWaitMs: number) {
  const make = (error: string | null, status: number) => {
    const { css, html } = gatePageHtml(appName, error);
    const body = new TextEncoder().encode(html);
    const headers: Record<string, string> = {
      ...BASE_SECURITY_HEADERS,
      // form-action also governs the redirects that follow a submission (Chromium enforces it on
      // the 303 to the link and the link's 302 onwards): the destination is any web address.
      "content-security-policy": `default-src 'none'; style-src ${sha256(css)}; img-src 'self' data:; base-uri 'none'; form-action 'self' https: http:; frame-ancestors 'none'`,
      "content-type": "text/html; charset=utf-8",
      "cache-control": "private, no-store",
    };
    return { html, respond: (extra: Record<string, string> = {}) => new Response(body, { status, headers: { ...headers, ...extra } }) };
  };
  // 200 for the page a visitor is meant to see; 403 after a wrong password (no WWW-Authenticate scheme applies).
  const waits = Array.from({ length: Math.max(1, Math.ceil(maxWaitMs / 60_000)) }, (_, i) => make(limitedText((i + 1) * 60_000), 429));
  // Never more than a window (the store caps its wait so too): the page and the header agree.
  const limited = (waitMs: number) => {
    const ms = Math.min(waitMs, maxWaitMs);
    const i = Math.min(waits.length, Math.max(1, Math.ceil(ms / 60_000))) - 1;
    return waits[i]!.respond({ "retry-after": String(Math.max(1, Math.ceil(ms / 1000))) });
  };
  return { ask: make(null, 200), wrong: make(GATE_TEXT.wrong, 403), limited };
}
