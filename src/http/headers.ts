// The security headers, stated once. Every kind of response takes them from here: API JSON of
// every status (securityHeaders in security.ts, errorResponse in errors.ts), redirects
// (redirects/routes.ts), the 404 and 410 visitor pages (redirects/visitorPages.ts), the web
// app's files (spa.ts adds its CSP), downloads and vendor files (through the app's
// afterHandle). http/hardening.test.ts checks each kind.

/** Headers every response carries (a route may choose its own referrer-policy). */
export const BASE_SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-frame-options": "DENY",
} as const;

const sha256 = (text: string) => `'sha256-${new Bun.CryptoHasher("sha256").update(text).digest("base64")}'`;

/**
 * The policy for a self-contained server-rendered page (the 404 and 410 visitor pages): no
 * script at all, its inline <style> blocks allowed by hash, images only from this origin or
 * inline, nothing may frame it and its links are plain links (no forms).
 */
export function staticPageCsp(html: string): string {
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi)].map((m) => sha256(m[1]!));
  return [
    "default-src 'none'",
    ["style-src", ...(styles.length ? new Set(styles) : ["'none'"])].join(" "),
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * Complete headers for a static HTML page: the security headers, its CSP, type and no-store.
 * Worked out once per page (src/redirects/visitorPages.ts renders its pages at start).
 */
export function staticPageHeaders(html: string): Record<string, string> {
  return {
    ...BASE_SECURITY_HEADERS,
    "content-security-policy": staticPageCsp(html),
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
  };
}
