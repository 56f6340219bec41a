// The dense link list (issue 25): rows, not cards; ≥ 10 links visible at 1280 × 800, readable at
// 360 px, in-place copy confirmation, secondary actions in a menu, keyboard throughout.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { expectNoHorizontalOverflow, registerViaApi } from "./helpers";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const TITLES = [
  "Spring sale landing page",
  "Newsletter — March issue",
  "Conference talk slides",
  "שלום עולם — Hebrew campaign",
  "Support page",
  "Podcast episode 42: building things",
  "Careers",
  "Pricing (annual plans)",
  "Blog: why we moved to Bun",
  "Onboarding checklist",
  "Партнёрская программа",
  "Product Hunt launch",
  "Docs — API reference",
  "Status page",
];

async function seed(page: Page) {
  const user = await registerViaApi(page.request);
  for (const [i, title] of TITLES.entries()) {
    const r = await page.request.post("/api/links", {
      data: { originalUrl: `https://example.com/${i}/${encodeURIComponent(title.toLowerCase().replace(/\s+/g, "-"))}?utm_source=newsletter&utm_medium=email`, title, description: i % 3 ? "" : "A description" },
    });
    expect(r.status()).toBe(201);
  }
  return user;
}

test("dense rows: ≥ 10 links visible at 1280 × 800, one menu per row with Delete last, no red block per row", async ({ page }) => {
  await seed(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/link-tracker");
  const rows = page.getByRole("list", { name: "Links" }).getByRole("listitem");
  await expect(rows).toHaveCount(TITLES.length);
  const visible = await rows.evaluateAll((els) => els.filter((el) => el.getBoundingClientRect().bottom <= window.innerHeight).length);
  expect(visible).toBeGreaterThanOrEqual(10);
  // No solid Delete button per row: Delete sits last in each row's menu.
  await expect(page.getByRole("button", { name: /^Delete / })).toHaveCount(0);
  const row = rows.filter({ hasText: "Careers" });
  await row.getByRole("button", { name: "More actions for Careers" }).click();
  await expect(page.getByRole("menu").getByRole("menuitem")).toHaveText(["Open destination", "Edit", "Smart settings", "QR code", "Public stats page", "Delete"]);
  await page.keyboard.press("Escape");
  await expect(row.getByRole("button", { name: "More actions for Careers" })).toBeFocused();

  // Title, destination, short URL, clicks, all in the row; an RTL title starts at the right.
  const hebrew = rows.filter({ hasText: "שלום עולם" });
  await expect(hebrew.getByRole("heading")).toHaveAttribute("dir", "auto");
  await expect(hebrew.getByText(/^0 clicks$/)).toBeVisible();
  // The short URL shows without its scheme (the tooltip and Copy have it whole).
  await expect(hebrew.locator("code")).toHaveText(/^127\.0\.0\.1:\d+\/[\w-]+$/);
  await expect(hebrew.locator("code")).toHaveAttribute("title", /^http:\/\/127\.0\.0\.1:\d+\/[\w-]+$/);

  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical"), `${scheme}: ${axe.violations.map((v) => v.id).join(", ")}`).toEqual([]);
  }

  // 360 px: every part still readable, nothing sideways.
  await page.setViewportSize({ width: 360, height: 740 });
  await expectNoHorizontalOverflow(page);
  const small = rows.filter({ hasText: "Careers" });
  for (const part of [small.getByRole("heading", { name: "Careers" }), small.locator("code"), small.getByRole("button", { name: "Copy short URL for Careers" }), small.getByText(/clicks?$/)]) {
    await part.scrollIntoViewIfNeeded();
    const box = (await part.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
  }
});

test("Copy says 'Copied ✓' in place, then reads Copy again; the short URL is on the clipboard", async ({ page }) => {
  await seed(page);
  await page.goto("/link-tracker");
  const row = page.getByRole("list", { name: "Links" }).getByRole("listitem").filter({ hasText: "Support page" });
  const shortUrl = (await row.locator("code").getAttribute("title"))!;
  await row.getByRole("button", { name: "Copy short URL for Support page" }).click();
  await expect(row.getByRole("button", { name: "Copied short URL for Support page" })).toHaveText(/Copied ✓/);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shortUrl);
  await expect(row.getByRole("button", { name: "Copy short URL for Support page" })).toHaveText(/^Copy$/, { timeout: 5000 });
});

test("search finds a link by its short code (issue 25)", async ({ page }) => {
  await seed(page);
  const made = (await (await page.request.post("/api/links", { data: { originalUrl: "https://example.com/by-code", title: "Found by code", shortCode: `code-${Date.now().toString(36)}` } })).json()) as { shortCode: string };
  await page.goto("/link-tracker");
  await page.getByLabel("Search links").fill(made.shortCode);
  const rows = page.getByRole("list", { name: "Links" }).getByRole("listitem");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Found by code");
});

test("a new user's empty Link Tracker guides: create, or import", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/link-tracker");
  await expect(page.getByText("You haven't created any links yet.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Create your first link" })).toBeVisible();
  await expect(page.getByRole("main").getByRole("link", { name: "import them from a CSV file" })).toHaveAttribute("href", "/link-tracker/import");
  // From the QR page's empty state: the Link Tracker opens with Create Short Link.
  await page.goto("/link-tracker?create=1");
  await expect(page.getByRole("dialog", { name: "Create Short Link" })).toBeVisible();
  await expect(page.getByRole("dialog", { name: "Create Short Link" }).getByLabel("URL")).toBeFocused();
});

test("each row's sparkline: the last 14 days' clicks from the list page itself, named by their total", async ({ page }) => {
  await seed(page);
  const links = (await (await page.request.get("/api/links?limit=100")).json()) as { title: string; shortUrl: string; recentClicks: number[] }[];
  const careers = links.find((l) => l.title === "Careers")!;
  for (let i = 0; i < 2; i++) expect((await page.request.get(careers.shortUrl, { maxRedirects: 0 })).status()).toBe(302);
  const perRow: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/links") && !r.url().includes("/api/links?")) perRow.push(r.url());
  });
  await page.goto("/link-tracker");
  const rows = page.getByRole("list", { name: "Links" }).getByRole("listitem");
  await expect(rows.filter({ hasText: "Careers" }).getByRole("img", { name: "2 clicks in the last 14 days" })).toBeVisible();
  await expect(rows.filter({ hasText: "Status page" }).getByRole("img", { name: "0 clicks in the last 14 days" })).toBeVisible();
  // No request per row: the series came with the page.
  expect(perRow.filter((u) => /\/api\/links\/\d+/.test(u))).toEqual([]);
});
