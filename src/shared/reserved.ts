// First path segments the app itself serves. A short code or username may never equal one,
// or it would shadow (or be shadowed by) a page. src/app.test.ts checks this list against
// the live router, so a new top-level route without an entry here fails the build.
export const RESERVED_WORDS = [
  // SPA pages
  "auth", "pricing", "about", "how-to-use", "share", "l", "r", "qr", "link-tracker",
  "pic-drift-link-tracker", "notifications", "invite", "topic", "settings", "login", "logout",
  "register", "signup", "admin", "dashboard", "home",
  // server
  "api", "assets", "health", "vendor", "static", "public", "_bun", "favicon.ico", "robots.txt",
  "manifest.json", "index.html",
] as const;

const reserved = new Set<string>(RESERVED_WORDS);

export function isReserved(word: string) {
  const w = word.toLowerCase();
  // Bun serves the bundled web chunks at /chunk-<hash>.js|css.
  return reserved.has(w) || w.startsWith("chunk-");
}

// Second path segments under /api/ that the API itself serves. A username may not equal one:
// title routes are /api/:username/:topic/titles, so a user named "links" would have their
// titles' paths read as the links API (and an API key's area decided by the wrong word).
// src/app.test.ts checks this list against the live router.
export const API_WORDS = [
  "api-keys", "config", "docs", "health", "invites", "links", "login", "logout", "notifications",
  "openapi.json", "pic-drift-links", "register", "share", "shared-topics", "sharing-users",
  "sharing-members", "subscription", "topic", "topics", "user", "users", "me", "events", "webhooks", "tags", "stats",
  "qr-styles",
] as const;

const apiWords = new Set<string>(API_WORDS);

/** Whether a username would shadow (or be shadowed by) an API path word. */
export const isApiWord = (word: string) => apiWords.has(word.toLowerCase());
