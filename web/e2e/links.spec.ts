import { expect, test, type Page } from "@playwright/test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { registerViaApi, trackOutsideRequests } from "./helpers";

// A tiny destination on loopback: short links must land here, not anywhere outside.
let dest: Server;
let destBase = "";
test.beforeAll(async () => {
  dest = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Landing</title><h1>Landing page</h1><p id="path">${encodeURI(req.url ?? "")}</p>`);
  });
  await new Promise<void>((r) => dest.listen(0, "127.0.0.1", r));
  destBase = `http://127.0.0.1:${(dest.address() as AddressInfo).port}`;
});
test.afterAll(() => dest.close());

const card = (page: Page, title: string) => page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

async function createViaDialog(page: Page, url: string, title: string, description = "") {
  await page.getByRole("button", { name: "Create Link" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Short Link" });
  await dialog.getByLabel("URL").fill(url);
  await dialog.getByLabel("Title", { exact: true }).fill(title);
  if (description) await dialog.getByLabel("Description (Optional)").fill(description);
  await dialog.getByRole("button", { name: "Create", exact: true }).click();
  await expect(page.getByText("Short link created successfully")).toBeVisible();
  await expect(dialog).toBeHidden();
}

test("create a link, follow it, see the clicks, new and return visits, then delete it", { tag: "@main-flow" }, async ({ page, context }) => {
  const outside = trackOutsideRequests(page);
  await registerViaApi(page.request);
  await page.goto("/link-tracker");
  await expect(page.getByRole("heading", { name: "Link Tracker", level: 1 })).toBeVisible();
  // Empty state.
  await expect(page.getByText("You haven't created any links yet.")).toBeVisible();
  await page.getByRole("button", { name: "Create your first link" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Short Link" });
  await expect(dialog).toBeVisible();
  // Validation from the shared schema, with the spec's messages.
  await dialog.getByLabel("URL").fill("javascript:alert(1)");
  await dialog.getByRole("button", { name: "Create", exact: true }).click();
  await expect(dialog.getByText("Only http:// and https:// links can be shortened")).toBeVisible();
  await expect(dialog.getByText("Title is required")).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();

  await createViaDialog(page, `${destBase}/landing?from=e2e`, "Landing", "where clicks go");
  const c = card(page, "Landing");
  await expect(c).toBeVisible();
  await expect(c.getByText(`${destBase}/landing?from=e2e`)).toBeVisible();
  await expect(c.getByText("0 clicks")).toBeVisible();
  const shortUrl = (await c.locator(".link-row-short code").getAttribute("title"))!;
  expect(shortUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{7}$/);

  // Visit 1: a new page in the same browser follows the server's 302 to the destination.
  const visitor = await context.newPage();
  await visitor.goto(shortUrl);
  await expect(visitor.getByRole("heading", { name: "Landing page" })).toBeVisible();
  expect(visitor.url()).toBe(`${destBase}/landing?from=e2e`);
  // Back to the tracker tab (a background tab gets no animation frames, which slows every click).
  await page.bringToFront();

  // Clicks are written within ~100 ms; Refresh picks them up.
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(c.getByText("1 click", { exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass();

  await c.getByRole("button", { name: "Analytics for Landing" }).click();
  const analytics = page.getByRole("dialog", { name: "Analytics: Landing" });
  await expect(analytics.getByRole("tab", { name: "Overview" })).toHaveAttribute("aria-selected", "true");
  await expect(analytics.getByText("Total Clicks")).toBeVisible();
  await expect(analytics.locator(".stat").filter({ hasText: "Total Clicks" })).toContainText("1");
  await expect(analytics.getByText("No location data yet")).toBeVisible();
  await expect(analytics.getByRole("link", { name: "IP Geolocation by DB-IP" })).toHaveAttribute("href", "https://db-ip.com");
  await expect(analytics.getByText("Link Information")).toBeVisible();
  await analytics.getByRole("tab", { name: "Click Details" }).click();
  const table = analytics.getByRole("table");
  await expect(table.getByRole("columnheader")).toHaveText(["Date", "Browser", "Device", "OS", "Location", "Visit Type", "Visit #"]);
  await expect(table.locator("caption")).toHaveText("1 record, newest first");
  const row = table.getByRole("row").nth(1);
  await expect(row).toContainText("Chrome");
  await expect(row).toContainText("New Visit");
  await expect(row).toContainText("Direct");
  await expect(row.getByRole("cell").nth(4)).toHaveText("Unknown");
  await expect(row.getByRole("cell").nth(6)).toHaveText("1");
  await analytics.getByRole("button", { name: "Close" }).click();

  // Visit 2 from the same browser: the visitor cookie makes it a return visit.
  await visitor.goto(shortUrl);
  await expect(visitor.getByRole("heading", { name: "Landing page" })).toBeVisible();
  await page.bringToFront();
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(c.getByText("2 clicks", { exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass();
  await c.getByRole("button", { name: "Analytics for Landing" }).click();
  await analytics.getByRole("tab", { name: "Click Details" }).click();
  const newest = analytics.getByRole("table").getByRole("row").nth(1);
  await expect(newest).toContainText("Return Visit");
  await expect(newest.getByRole("cell").nth(6)).toHaveText("2");
  await expect(newest.locator(".visit-n-repeat")).toHaveText("2");
  await expect(analytics.getByRole("table").locator("caption")).toHaveText("2 records, newest first");
  await analytics.getByRole("tab", { name: "Overview" }).click();
  await expect(analytics.locator(".stat").filter({ hasText: "Unique Visitors" })).toBeVisible();
  await page.keyboard.press("Escape");

  // Delete, after the spec's confirmation.
  await c.getByRole("button", { name: "More actions for Landing" }).click();
  await page.getByRole("menu").getByRole("menuitem", { name: "Delete" }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm.getByText("Are you sure you want to delete this link? This action cannot be undone.")).toBeVisible();
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Short link deleted successfully")).toBeVisible();
  await expect(c).toHaveCount(0);
  await expect(page.getByText("You haven't created any links yet.")).toBeVisible();
  // The deleted code is gone: the server's 404 page takes the visitor home after 2 s.
  await visitor.goto(shortUrl);
  await expect(visitor.getByRole("heading", { name: "Link not found" })).toBeVisible();
  await expect(visitor).toHaveURL(/\/auth$|\/$/, { timeout: 5000 });
  expect(outside.filter((u) => !u.startsWith(destBase))).toEqual([]);
});

test("search and sorts", async ({ page }) => {
  await registerViaApi(page.request);
  const make = async (title: string, path: string, description = "") => {
    const r = await page.request.post("/api/links", { data: { originalUrl: `${destBase}/${path}`, title, description } });
    expect(r.status()).toBe(201);
    return (await r.json()) as { shortUrl: string };
  };
  const alpha = await make("Alpha report", "alpha", "quarterly NUMBERS");
  await make("Beta notes", "beta");
  const gamma = await make("Gamma", "gamma-Special");
  // Clicks: gamma 2, alpha 1, beta 0.
  for (const u of [gamma.shortUrl, gamma.shortUrl, alpha.shortUrl]) expect((await page.request.get(u, { maxRedirects: 0 })).status()).toBe(302);
  await page.waitForTimeout(300);
  await page.goto("/link-tracker");
  const titles = page.locator(".link-title");
  await expect(titles).toHaveText(["Gamma", "Beta notes", "Alpha report"]);

  const sort = page.getByLabel("Sort by");
  await sort.selectOption({ label: "Oldest" });
  await expect(titles).toHaveText(["Alpha report", "Beta notes", "Gamma"]);
  await sort.selectOption({ label: "Most Clicked" });
  await expect(titles).toHaveText(["Gamma", "Alpha report", "Beta notes"]);
  await sort.selectOption({ label: "Least Clicked" });
  await expect(titles).toHaveText(["Beta notes", "Alpha report", "Gamma"]);
  await sort.selectOption({ label: "Newest" });

  const search = page.getByPlaceholder("Search links...");
  await search.fill("numbers"); // description, other case
  await expect(titles).toHaveText(["Alpha report"]);
  await search.fill("SPECIAL"); // original URL
  await expect(titles).toHaveText(["Gamma"]);
  await search.fill("beta"); // title
  await expect(titles).toHaveText(["Beta notes"]);
  await search.fill("nothing like this");
  await expect(page.getByText("No results found. Try a different search.")).toBeVisible();
  await expect(titles).toHaveCount(0);
  await search.fill("");
  await expect(titles).toHaveCount(3);

  // Text with no letter or digit finds nothing (it did show every link, as if it matched them).
  for (const odd of ["%", "😀", "<>"]) {
    await search.fill(odd);
    await expect(page.getByText("No results found. Try a different search.")).toBeVisible();
    await expect(titles).toHaveCount(0);
  }
  // The box takes no more than the server accepts (100 characters): a longer paste is cut there,
  // rather than the previous search's links shown beside "Failed to fetch links".
  await search.fill("beta");
  await expect(titles).toHaveText(["Beta notes"]);
  await search.fill(`numbers ${"x".repeat(150)}`);
  await expect(search).toHaveValue(`numbers ${"x".repeat(92)}`);
  await expect(page.getByText("No results found. Try a different search.")).toBeVisible();
  await expect(titles).toHaveCount(0);
  await expect(page.getByText("Failed to fetch links")).toHaveCount(0);
});

test("the Link Tracker works at 360 px wide", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await registerViaApi(page.request);
  await page.request.post("/api/links", { data: { originalUrl: `${destBase}/${"long-path-segment/".repeat(8)}`, title: "A link with a rather long title for a phone" } });
  await page.goto("/link-tracker");
  await expect(page.locator(".link-title")).toHaveCount(1);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test("a short code reached by in-app navigation still goes through the server's redirect", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: `${destBase}/in-app`, title: "In app" } });
  const { shortCode } = (await r.json()) as { shortCode: string };
  await page.goto("/link-tracker");
  await expect(page.getByRole("heading", { name: "Link Tracker", level: 1 })).toBeVisible();
  await page.evaluate((path) => {
    history.pushState(null, "", path);
    dispatchEvent(new PopStateEvent("popstate"));
  }, `/${shortCode}`);
  await expect(page.getByRole("heading", { name: "Landing page" })).toBeVisible();
  expect(page.url()).toBe(`${destBase}/in-app`);
});

test("a look-alike destination (Cyrillic letters under .com) is accepted with a visible warning and its punycode name", async ({ page }) => {
  await registerViaApi(page.request);
  const made = await page.request.post("/api/links", { data: { originalUrl: "https://аррӏе.com/login", title: "Suspicious" } });
  expect(made.status(), await made.text()).toBe(201);
  await page.request.post("/api/links", { data: { originalUrl: `${destBase}/plain`, title: "Plain" } });
  await page.goto("/link-tracker");
  const warning = card(page, "Suspicious").getByRole("note");
  await expect(warning).toBeVisible();
  await expect(warning).toContainText("Look-alike address: its name mixes Cyrillic and Latin letters, so it may imitate another site.");
  await expect(warning.locator("code")).toHaveText("xn--80ak6aa92e.com");
  // An ordinary destination shows no warning.
  await expect(card(page, "Plain").getByRole("note")).toHaveCount(0);
});

test("edit a Link Tracker link by keyboard: a new code and destination; the new short URL goes there, the old one is gone", async ({ page, context }) => {
  await registerViaApi(page.request);
  const made = await page.request.post("/api/links", { data: { originalUrl: `${destBase}/before-edit`, title: "Before edit" } });
  expect(made.status()).toBe(201);
  const { shortUrl, shortCode } = (await made.json()) as { shortUrl: string; shortCode: string };
  await page.goto("/link-tracker");
  const c = card(page, "Before edit");
  await expect(c.getByText(`${destBase}/before-edit`)).toBeVisible();

  // Edit sits in the row's menu: Enter opens it on its first item, ArrowDown moves to Edit.
  await c.getByRole("button", { name: "More actions for Before edit" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menuitem", { name: "Open destination" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem", { name: "Edit" })).toBeFocused();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Edit Link" });
  await expect(dialog).toBeVisible();
  const code = dialog.getByLabel("Short Code");
  await expect(code).toHaveValue(shortCode);
  // Issue 25: the code can be changed here as on the brand tracker (the spec's edit payload has it).
  await expect(code).toBeEditable();
  await code.fill("x");
  await code.press("Enter");
  await expect(dialog.getByText("Short code must be at least 3 characters")).toBeVisible();
  const newCode = `${shortCode}-renamed`;
  await code.fill(newCode);
  await expect(dialog.getByText("The old short URL, and QR codes made with it, will stop working.")).toBeVisible();
  // The create form's rules apply, with its messages.
  await dialog.getByLabel("Destination URL").fill("javascript:alert(1)");
  await dialog.getByLabel("Destination URL").press("Enter");
  await expect(dialog.getByText("Only http:// and https:// links can be shortened")).toBeVisible();
  await dialog.getByLabel("Expires (Optional)").fill("2001-01-01T10:00");
  await dialog.getByLabel("Destination URL").fill(`${destBase}/after-edit`);
  await dialog.getByLabel("Destination URL").press("Enter");
  await expect(dialog.getByText("The expiry date must be in the future")).toBeVisible();
  await dialog.getByLabel("Expires (Optional)").fill("");
  await dialog.getByLabel("Title", { exact: true }).fill("After edit");
  await dialog.getByLabel("Title", { exact: true }).press("Enter");
  await expect(page.getByText("Link updated successfully")).toBeVisible();
  await expect(dialog).toBeHidden();

  const newUrl = shortUrl.replace(new RegExp(`/${shortCode}$`), `/${newCode}`);
  const edited = card(page, "After edit");
  await expect(edited.getByText(`${destBase}/after-edit`)).toBeVisible();
  await expect(edited.locator("code")).toHaveAttribute("title", newUrl);
  await expect(card(page, "Before edit")).toHaveCount(0);

  const visitor = await context.newPage();
  await visitor.goto(newUrl);
  await expect(visitor.getByRole("heading", { name: "Landing page" })).toBeVisible();
  await expect(visitor.locator("#path")).toHaveText("/after-edit");
  expect((await visitor.request.get(shortUrl, { maxRedirects: 0 })).status()).toBe(404);
});

test("links deleted by keyboard alone: focus moves to the next link's menu, then to Create Link, never to the page's body", async ({ page }) => {
  await registerViaApi(page.request);
  for (const title of ["First made", "Second made"]) {
    expect((await page.request.post("/api/links", { data: { originalUrl: `https://example.com/${title.split(" ")[0]}`, title } })).status()).toBe(201);
  }
  await page.goto("/link-tracker");
  // Newest first: "Second made", then "First made".
  // Delete is the menu's last item: ArrowUp on the menu button opens it there.
  await page.getByRole("button", { name: "More actions for Second made" }).focus();
  await page.keyboard.press("ArrowUp");
  await expect(page.getByRole("menuitem", { name: "Delete" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("alertdialog", { name: "Delete link" }).getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "Second made" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "More actions for First made" })).toBeFocused();
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "First made" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Create Link" })).toBeFocused();
});

test("a Link Tracker holding thousands of imported links shows them 100 at a time, with Show more", async ({ page }) => {
  await registerViaApi(page.request);
  const links = Array.from({ length: 250 }, (_, i) => ({ originalUrl: `https://example.com/many/${i}`, title: `Many ${String(i).padStart(3, "0")}` }));
  const made = await page.request.post("/api/links/bulk", { data: { links } });
  expect((await made.json()).created).toBe(250);
  // The page reads the server's list a page at a time: no answer carries more than 100 links.
  const sizes: number[] = [];
  page.on("response", async (r) => {
    if (new URL(r.url()).pathname === "/api/links" && r.request().method() === "GET") sizes.push(((await r.json()) as unknown[]).length);
  });
  await page.goto("/link-tracker");
  const cards = page.getByRole("list", { name: "Links" }).getByRole("listitem");
  await expect(cards).toHaveCount(100);
  await expect(page.getByText("Showing 100 of 250 links")).toBeVisible();
  // Keyboard: the button stays where it was and shows the next hundred.
  await page.getByRole("button", { name: "Show more links" }).focus();
  await page.keyboard.press("Enter");
  await expect(cards).toHaveCount(200);
  await expect(page.getByText("Showing 200 of 250 links")).toBeVisible();
  await expect(page.getByRole("button", { name: "Show more links" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(cards).toHaveCount(250);
  await expect(page.getByRole("button", { name: "Show more links" })).toHaveCount(0);
  // The button went with the last page: focus is on the first link it showed, not the body.
  await expect(page.getByRole("button", { name: "More actions for Many 049" })).toBeFocused();
  // A search looks through all of them, not only the ones shown.
  await page.getByPlaceholder("Search links...").fill("many 007");
  await expect(cards).toHaveCount(1);
  await page.getByPlaceholder("Search links...").fill("");
  await expect(cards).toHaveCount(100);
  expect(sizes.length).toBeGreaterThan(2);
  expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
  // The status filter, by keyboard: none has expired, so "Expired" shows the no-results line.
  await page.getByLabel("Filter links").focus();
  await page.getByLabel("Filter links").selectOption({ label: "Expired" });
  await expect(page.getByText("No results found. Try a different search.")).toBeVisible();
  await page.getByLabel("Filter links").selectOption({ label: "All links" });
  await expect(cards).toHaveCount(100);
});

test("the analytics dialog reads its report once when opened, and a refused report says why, with Try again", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: `${destBase}/report`, title: "Report" } });
  expect(r.status()).toBe(201);
  const reads: string[] = [];
  page.on("request", (q) => {
    if (/\/api\/links\/\d+\/analytics/.test(q.url())) reads.push(q.url());
  });
  await page.goto("/link-tracker");
  await card(page, "Report").getByRole("button", { name: "Analytics for Report" }).click();
  const dialog = page.getByRole("dialog", { name: "Analytics: Report" });
  await expect(dialog.locator(".stat").filter({ hasText: "Total Clicks" })).toContainText("0");
  await page.waitForTimeout(500);
  // Each report counts against HEAVY_RATE_LIMIT: one opening is one read.
  expect(reads).toHaveLength(1);
  await dialog.getByRole("button", { name: "Close" }).click();

  // The server refuses the report (its answer past the heavy-call limit): the dialog gives the
  // server's reason, not "No analytics data available." as if the link had none.
  const refusal = "Too many requests for bulk, import, export and analytics calls of this account: the limit is 120 a minute. Please try again in 60 seconds.";
  await page.route(/\/api\/links\/\d+\/analytics/, (route) =>
    route.fulfill({ status: 429, contentType: "application/json", headers: { "retry-after": "60" }, body: JSON.stringify({ error: { code: "RATE_LIMITED", message: refusal } }) }),
  );
  await page.goto("/link-tracker");
  await card(page, "Report").getByRole("button", { name: "Analytics for Report" }).click();
  await expect(dialog.getByRole("alert")).toHaveText(refusal);
  await expect(dialog.getByText("No analytics data available.")).toHaveCount(0);
  await page.unroute(/\/api\/links\/\d+\/analytics/);
  await dialog.getByRole("button", { name: "Try again" }).click();
  await expect(dialog.locator(".stat").filter({ hasText: "Total Clicks" })).toContainText("0");
  await expect(dialog.getByRole("tab", { name: "Overview" })).toBeFocused();
});

test("a report refused while the dialog shows another (the heavy-call limit) says why over the figures it kept, with Try again", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: `${destBase}/kept`, title: "Kept" } });
  expect(r.status()).toBe(201);
  const { id } = await r.json();
  await page.goto("/link-tracker");
  await card(page, "Kept").getByRole("button", { name: "Analytics for Kept" }).click();
  const dialog = page.getByRole("dialog", { name: "Analytics: Kept" });
  await expect(dialog.locator(".stat").filter({ hasText: "Total Clicks" })).toContainText("0");
  await expect(dialog.getByRole("alert")).toHaveCount(0);
  // The account's heavy calls for this minute used up, as by a script with one of its keys.
  let refused = false;
  for (let i = 0; i < 1000 && !refused; i++) refused = (await page.request.get(`/api/links/${id}/analytics`)).status() === 429;
  expect(refused).toBe(true);

  // Another range is a new report: refused, the 30 days stay on screen, and the dialog says
  // they were not updated and why (the toast alone said only "Failed to fetch analytics").
  await dialog.getByLabel("Range").selectOption({ label: "Last 90 days" });
  const alert = dialog.getByRole("alert");
  await expect(alert).toContainText(/^These figures were not updated: Too many requests for bulk, import, export and analytics calls of this account: the limit is \d+ a minute\. Please try again in \d+ seconds?\.$/);
  await expect(dialog.getByRole("button", { name: "Try again" })).toBeVisible();
  // The kept figures are labelled as what they are (the table's caption said "last 90 days").
  await expect(dialog.locator("caption")).toHaveText(["Clicks per day (UTC), last 30 days"]);
});

test("an export the server refuses (the heavy-call limit) says why, instead of a failed browser download; the dialog's click export too", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: `${destBase}/exported`, title: "Exported" } });
  expect(r.status()).toBe(201);
  const { id, shortUrl } = await r.json();
  // A click, so the dialog's Click Details has rows and its Export CSV.
  expect((await page.request.get(shortUrl, { maxRedirects: 0 })).status()).toBe(302);
  await page.goto("/link-tracker");
  await card(page, "Exported").getByRole("button", { name: "Analytics for Exported" }).click();
  const dialog = page.getByRole("dialog", { name: "Analytics: Exported" });
  await expect(dialog.locator(".stat").filter({ hasText: "Total Clicks" })).toContainText("1");
  await dialog.getByRole("tab", { name: "Click Details" }).click();
  // The account's heavy calls for this minute used up, as by a script with one of its keys.
  let refused = false;
  for (let i = 0; i < 1000 && !refused; i++) refused = (await page.request.get(`/api/links/${id}/analytics`)).status() === 429;
  expect(refused).toBe(true);
  const downloads: string[] = [];
  page.on("download", (d) => downloads.push(d.suggestedFilename()));
  const why = /Too many requests for bulk, import, export and analytics calls of this account: the limit is \d+ a minute\. Please try again in \d+ seconds?\./;

  await dialog.getByRole("link", { name: "Export CSV" }).click();
  const alert = page.getByRole("alert").filter({ hasText: "Too many requests" });
  await expect(alert).toContainText(why);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await page.getByRole("navigation", { name: "Import and export" }).getByRole("link", { name: "Export JSON" }).press("Enter");
  await expect(page.getByRole("alert").filter({ hasText: "Too many requests" })).toContainText(why);
  // Nothing was saved, and the links are usable again at once.
  expect(downloads).toEqual([]);
  await expect(page.getByRole("navigation", { name: "Import and export" }).getByRole("link", { name: "Export JSON" })).not.toHaveAttribute("aria-busy", "true");
});
