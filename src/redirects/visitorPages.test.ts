import { describe, expect, test } from "bun:test";
import { staticPageCsp } from "../http/headers";
import { EXPIRED_PAGE, INACTIVE_PAGE, UNKNOWN_PAGE, VISITOR_CSS, visitorPageHtml, visitorPages } from "./visitorPages";

/** `--name: value` pairs of one CSS block. */
const vars = (css: string) => Object.fromEntries([...css.matchAll(/--([\w-]+):\s*([^;}]+)/g)].map((m) => [m[1]!, m[2]!.trim()]));

describe("visitor pages (404 unknown code, 410 expired / inactive)", () => {
  const pages = visitorPages("Threadlink");

  test("all three together stay under 10 kB, with no script and nothing fetched", () => {
    const all = [pages.unknown, pages.expired, pages.inactive].map((p) => p.html);
    const bytes = all.reduce((n, html) => n + new TextEncoder().encode(html).length, 0);
    expect(bytes).toBeLessThan(10 * 1024);
    for (const html of all) {
      expect(html).not.toMatch(/<script|src=|rel="stylesheet"|@import|url\(/);
    }
  });

  test("statuses, texts, and the 2 s return home only on the unknown-code page", async () => {
    const cases: [Response, number, string, boolean][] = [
      [pages.unknown.respond(), 404, "Link not found", true],
      [pages.expired.respond(), 410, "This link has expired", false],
      [pages.inactive.respond(), 410, "This link is no longer active", false],
    ];
    for (const [res, status, heading, refresh] of cases) {
      expect(res.status).toBe(status);
      const html = await res.text();
      expect(html).toContain(`<h1>${heading}</h1>`);
      expect(html).toContain(`<title>${heading} · Threadlink</title>`);
      expect(html).toContain('<a href="/">Go Home</a>');
      expect(html.includes('<meta http-equiv="refresh" content="2;url=/">')).toBe(refresh);
      // The inline style is allowed by its hash, and nothing else runs or loads.
      expect(res.headers.get("content-security-policy")).toBe(staticPageCsp(html));
      expect(res.headers.get("content-security-policy")).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    // A second answer is a fresh Response with the same body.
    expect(await pages.unknown.respond().text()).toBe(pages.unknown.html);
  });

  test("the texts are the app's redirect page's (web/redirect/RedirectPage.tsx)", async () => {
    const tsx = await Bun.file(new URL("../../web/redirect/RedirectPage.tsx", import.meta.url)).text();
    expect(tsx).toContain(`<h1>${UNKNOWN_PAGE.heading}</h1>`);
    expect(tsx).toContain(`<p>${UNKNOWN_PAGE.message}</p>`);
    expect(tsx).toContain("REDIRECT_FALLBACK_MS = 2000");
    expect([EXPIRED_PAGE.homeAfterS, INACTIVE_PAGE.homeAfterS]).toEqual([undefined, undefined]);
  });

  test("light and dark colours are the app's (web/styles.css)", async () => {
    const css = await Bun.file(new URL("../../web/styles.css", import.meta.url)).text();
    const light = vars(css.slice(css.indexOf(":root {"), css.indexOf("}", css.indexOf(":root {"))));
    const dark = vars(css.slice(css.indexOf(":root.dark {"), css.indexOf("}", css.indexOf(":root.dark {"))));
    const split = VISITOR_CSS.indexOf("@media(prefers-color-scheme:dark)");
    const ours = { light: vars(VISITOR_CSS.slice(0, split)), dark: vars(VISITOR_CSS.slice(split)) };
    expect(Object.keys(ours.light).length).toBeGreaterThan(4);
    for (const [k, v] of Object.entries(ours.light)) expect([k, v]).toEqual([k, light[k]!]);
    for (const [k, v] of Object.entries(ours.dark)) expect([k, v]).toEqual([k, dark[k]!]);
  });

  test("the app name is escaped", () => {
    const html = visitorPageHtml(`<script>"x"&`, EXPIRED_PAGE);
    expect(html).toContain("<title>This link has expired · &lt;script&gt;&quot;x&quot;&amp;</title>");
    expect(html).not.toContain("<script>");
  });
});
