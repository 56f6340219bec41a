// The pages a visitor of a short link meets when it does not redirect: an unknown code (404,
// home after 2 s) and an expired link (410). Small pages of the server's own: no app bundle,
// no script, the app's colours in light and dark, and no CSP complaint.
import { expect, test, type Page } from "@playwright/test";
import { registerViaApi } from "./helpers";

const LIGHT_BG = "rgb(247, 247, 251)";
const DARK_BG = "rgb(15, 17, 21)";

/** Everything the page requests, and any console error (a CSP violation is one). */
function watch(page: Page) {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => requests.push(new URL(r.url()).pathname));
  page.on("console", (m) => {
    // The 404 and 410 statuses themselves are logged as "Failed to load resource": not errors here.
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) errors.push(m.text());
  });
  return { requests, errors };
}

for (const scheme of ["light", "dark"] as const)
  for (const width of [360, 1280])
    test(`unknown code, ${scheme} at ${width} px: 404 'Link not found' without the app, then home after 2 s`, async ({ page }) => {
      await page.setViewportSize({ width, height: 740 });
      await page.emulateMedia({ colorScheme: scheme });
      const seen = watch(page);
      const res = await page.goto("/no-such-code-here");
      expect(res?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "Link not found", level: 1 })).toBeVisible();
      await expect(page.getByText("This short link doesn't exist or was removed. Taking you to the home page…")).toBeVisible();
      const home = page.getByRole("link", { name: "Go Home" });
      await expect(home).toHaveAttribute("href", "/");
      await expect(page.locator("body")).toHaveCSS("background-color", scheme === "dark" ? DARK_BG : LIGHT_BG);
      // The button reads well on its background in both schemes (the app's primary colours).
      await expect(home).toHaveCSS("background-color", scheme === "dark" ? "rgb(139, 133, 255)" : "rgb(67, 56, 202)");
      // Nothing but the page itself: no /chunk-*.js, no stylesheet, no script.
      expect(seen.requests).toEqual(["/no-such-code-here"]);
      expect(await page.locator("script").count()).toBe(0);
      // Fits a phone: no sideways scrolling.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      // Keyboard: the one control is reachable and named.
      await page.keyboard.press("Tab");
      await expect(home).toBeFocused();
      // Home after 2000 ms (signed out, home is the sign-in page), replacing the 404 in history.
      const left = Date.now();
      await expect(page).toHaveURL(/\/(auth)?$/, { timeout: 6000 });
      expect(Date.now() - left).toBeGreaterThan(1000);
      await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();
      expect(seen.requests.some((p) => p.startsWith("/chunk-"))).toBe(true);
      expect(seen.errors).toEqual([]);
    });

test("an expired link: 410 'This link has expired', styled in dark mode, without the app, and it stays", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", {
    data: { originalUrl: "https://example.com/old", title: "Old offer", expiresAt: new Date(Date.now() + 1500).toISOString() },
  });
  expect(r.status()).toBe(201);
  const { shortUrl } = (await r.json()) as { shortUrl: string };
  await page.waitForTimeout(1600);
  await page.emulateMedia({ colorScheme: "dark" });
  const seen = watch(page);
  const res = await page.goto(shortUrl);
  expect(res?.status()).toBe(410);
  await expect(page.getByRole("heading", { name: "This link has expired", level: 1 })).toBeVisible();
  await expect(page.getByText("This short link is past its expiry date.")).toBeVisible();
  await expect(page.locator("body")).toHaveCSS("background-color", DARK_BG);
  await expect(page.getByRole("link", { name: "Go Home" })).toBeVisible();
  expect(seen.requests).toEqual([new URL(shortUrl).pathname]);
  // No automatic return home on this page: the visitor reads why the link is gone.
  await page.waitForTimeout(2500);
  expect(new URL(page.url()).pathname).toBe(new URL(shortUrl).pathname);
  expect(seen.errors).toEqual([]);
});
