import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";

let counter = 0;
/** A username unique to this run, so tests never collide in the shared server. */
export function uniqueName(prefix = "user") {
  return `${prefix}${Date.now().toString(36)}${(counter++).toString(36)}`.slice(0, 32).toLowerCase();
}

export const PASSWORD = "correct horse battery";

let clients = 0;
/**
 * A client address of its own for each set-up sign-up: sign-ups are limited per address
 * (src/http/rateLimit.ts), and the server believes X-Forwarded-For from loopback, its default
 * trusted proxy, as it would from nginx in front of it. 198.18.0.0/15 is the benchmarking range.
 */
export const nextClientAddress = () => `198.18.${Math.floor(clients / 250) % 256}.${(clients++ % 250) + 1}`;

/** Registers through the API (fast set-up); the browser context shares the session cookie. */
export async function registerViaApi(request: APIRequestContext, username = uniqueName()) {
  const res = await request.post("/api/register", {
    data: { username, password: PASSWORD, email: `${username}@example.test` },
    headers: { "x-forwarded-for": nextClientAddress() },
  });
  expect(res.status(), await res.text()).toBe(201);
  return username;
}

/** Signs in through the real form. */
export async function signInViaUi(page: Page, username: string, password = PASSWORD) {
  await page.goto("/auth");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Every request the page makes must stay on this machine (no CDN, no telemetry). */
export function trackOutsideRequests(page: Page) {
  const outside: string[] = [];
  page.on("request", (r) => {
    const u = new URL(r.url());
    if (!["127.0.0.1", "localhost"].includes(u.hostname) && !["data:", "blob:"].includes(u.protocol)) outside.push(r.url());
  });
  return outside;
}

/**
 * No sideways scrolling: neither the page nor any clipped or scrolling box inside it is wider
 * than it shows (a list with overflow:auto hides a too-wide row from the page's own
 * scrollWidth). Form fields scroll their own text; screen-reader-only text, visually hidden
 * helpers and ellipsis-truncated text are clipped on purpose; all of those are skipped.
 */
export async function expectNoHorizontalOverflow(page: Page) {
  const wide = await page.evaluate(() => {
    const out: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) out.push(`page ${root.scrollWidth}px > ${root.clientWidth}px`);
    for (const el of document.body.querySelectorAll<HTMLElement>("*")) {
      if (["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName) || el.closest(".sr-only")) continue;
      const style = getComputedStyle(el);
      // Visually hidden helpers (1 px boxes) and ellipsis-truncated text are clipped on purpose.
      if (style.overflowX === "visible" || style.textOverflow === "ellipsis" || el.clientWidth <= 1) continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join(".")} ${el.scrollWidth}px > ${el.clientWidth}px`);
    }
    return out;
  });
  expect(wide, "horizontal overflow").toEqual([]);
}

/**
 * WCAG contrast of an element's text against the first opaque background behind it: at least
 * 4.5:1 (3:1 for large text). Catches dark-mode pairs such as white on a light red.
 */
export async function expectReadableContrast(locator: Locator) {
  const { ratio, large } = await locator.evaluate((el) => {
    const parse = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r = 0, g = 0, b = 0]: number[]) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let bg = [255, 255, 255];
    for (let e: Element | null = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c[3] ?? 0) > 0.5) {
        bg = c;
        break;
      }
    }
    const style = getComputedStyle(el);
    const [a, b] = [lum(parse(style.color)), lum(bg)];
    const size = parseFloat(style.fontSize);
    return { ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05), large: size >= 24 || (size >= 18.6 && Number(style.fontWeight) >= 700) };
  });
  expect(ratio, `contrast ${ratio.toFixed(2)}:1`).toBeGreaterThanOrEqual(large ? 3 : 4.5);
}
