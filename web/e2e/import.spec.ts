// Import and export on the Link Tracker (issue 14): a CSV with a bad row imported through the
// Import page (preview, detected format, progress, per-row report), then exported as CSV.
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import { expectNoHorizontalOverflow, registerViaApi, uniqueName } from "./helpers";

test("import a CSV with a bad row through the Import page, read the report, then export the links as CSV", async ({ page }) => {
  test.setTimeout(120_000);
  await registerViaApi(page.request);
  const tag = uniqueName("imp").toLowerCase().replace(/[^a-z0-9-]/g, "");
  // 700 rows: the page sends them in two parts, so the progress moves before the end.
  const rows = ["url,code,title"];
  rows.push(`https://example.com/first,${tag}-first,"First, with a comma"`);
  rows.push(`not a url,${tag}-bad,This row is refused`);
  rows.push(`https://example.com/formula,${tag}-formula,=1+2`);
  for (let i = 0; i < 697; i++) rows.push(`https://example.com/many/${i},,Row ${i}`);
  const csv = `${rows.join("\r\n")}\r\n`;

  await page.goto("/link-tracker");
  await page.getByRole("navigation", { name: "Import and export" }).getByRole("link", { name: "Import links" }).click();
  await expect(page.getByRole("heading", { name: "Import links", level: 1 })).toBeVisible();

  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "links.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await expect(page.getByText("Detected format:")).toContainText("Plain CSV (url, code, title)");
  const preview = page.getByRole("table").filter({ has: page.getByText("The first 5 rows of links.csv") });
  await expect(preview.getByRole("columnheader", { name: "url" })).toBeVisible();
  await expect(preview.getByRole("cell", { name: "First, with a comma" })).toBeVisible();

  await page.getByRole("button", { name: "Import", exact: true }).click();
  const bar = page.getByRole("progressbar", { name: "Import progress" });
  await expect(bar).toBeVisible();
  await expect(page.getByText("Done: 699 imported, 1 skipped.")).toBeVisible({ timeout: 30_000 });
  await expect(bar).toHaveAttribute("value", "700");

  // Issue 25: the file cannot be imported twice by accident (Import is gone; choosing again is deliberate),
  // and the report opens on the skipped rows.
  await expect(page.getByRole("button", { name: "Import", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Import another file" })).toBeVisible();
  await expect(page.getByLabel("Show rows")).toHaveValue("skipped");
  // The export counts every link whatever shape the list route has.
  const countLinks = async () => (await (await page.request.get("/api/links/export.json")).json()).links.length;
  const linksNow = await countLinks();
  expect(linksNow).toBe(699);
  const report = page.getByRole("table").filter({ has: page.getByRole("columnheader", { name: "Result" }) });
  const bad = report.getByRole("row").filter({ hasText: "Skipped" });
  await expect(bad).toHaveCount(1);
  await expect(bad.getByRole("cell").first()).toHaveText("3");
  await expect(bad).toContainText("URL must not contain spaces or control characters");
  await page.getByLabel("Show rows").selectOption("imported");
  await expect(report.getByRole("row").filter({ hasText: `/${tag}-first` })).toContainText("Imported");

  // The downloadable report holds every row.
  const [reportFile] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download report" }).click()]);
  const reportText = await (await reportFile.createReadStream()).toArray().then((c) => Buffer.concat(c).toString("utf8"));
  expect(reportText.trim().split("\r\n")).toHaveLength(701);
  // Nothing more was imported after Done.
  expect(await countLinks()).toBe(linksNow);

  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations, `${scheme}: ${axe.violations.map((v) => v.id).join(", ")}`).toEqual([]);
  }
  await page.setViewportSize({ width: 360, height: 740 });
  await expectNoHorizontalOverflow(page);

  // Back on the Link Tracker: the imported links are there, and the export is a CSV download.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole("link", { name: "← Link Tracker" }).click();
  await page.getByLabel("Search links").fill("First, with a comma");
  await expect(page.getByRole("heading", { name: "First, with a comma" })).toBeVisible();
  const [exported] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
  expect(exported.suggestedFilename()).toMatch(/^links-[\w-]+-\d{4}-\d{2}-\d{2}\.csv$/);
  // A screen reader hears the start and the end of the export, not each chunk's byte count.
  await expect(page.getByRole("status").filter({ hasText: "Export CSV: saved" })).toHaveCount(1);
  await expect(page.getByRole("status").filter({ hasText: "received" })).toHaveCount(0);
  const text = await (await exported.createReadStream()).toArray().then((c) => Buffer.concat(c).toString("utf8"));
  const lines = text.replace(/^\ufeff/, "").trim().split("\r\n");
  expect(lines[0]).toBe("code,url,title,description,expiresAt,clicks,shortUrl,active,createdAt,updatedAt,tags,importedClicks,smart");
  expect(lines).toHaveLength(700);
  expect(lines.find((l) => l.startsWith(`${tag}-first,`))).toContain('"First, with a comma"');
  // A formula-looking title is neutralised in the file a spreadsheet opens.
  expect(lines.find((l) => l.startsWith(`${tag}-formula,`))).toContain(",'=1+2,");
});

test("the Import page tells an unknown file at once and imports nothing; cancel stops between parts", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/link-tracker/import");
  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from("name,email\nAda,ada@example.com\n") });
  await expect(page.getByText("The first row must name the columns")).toBeVisible();
  await expect(page.getByRole("button", { name: "Import", exact: true })).toHaveCount(0);

  const rows = ["url,title"];
  for (let i = 0; i < 5000; i++) rows.push(`https://example.com/cancel/${i},Cancel ${i}`);
  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "big.csv", mimeType: "text/csv", buffer: Buffer.from(rows.join("\n")) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await page.getByRole("button", { name: "Cancel import" }).click();
  const status = page.getByText(/^Cancelled: /);
  await expect(status).toBeVisible({ timeout: 30_000 });
  const done = Number((await status.textContent())!.match(/^Cancelled: ([\d,]+) imported/)![1]!.replace(/,/g, ""));
  expect(done).toBeLessThan(5000);
  // The report and the server agree on what was imported.
  const list = await page.request.get("/api/links?limit=1");
  expect(Number(list.headers()["x-total-count"])).toBe(done);
});

test("an import run by keyboard ends with focus on its report, not on the page's body", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/link-tracker/import");
  const csv = `url,code,title\nhttps://example.com/kbd-import,${uniqueName("kbd")},By keyboard\nnot a url,,Bad\n`;
  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "keyboard.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.getByRole("button", { name: "Import", exact: true }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Done: 1 imported, 1 skipped.")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Report" })).toBeFocused();
  // From there the report's own controls are next.
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Show rows")).toBeFocused();
});

test("a Shlink export: each of its domains is sent to the tracker chosen for it; slugs, tags and visits are kept", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/link-tracker/import");
  const file = [
    "createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits",
    "2024-03-02T10:15:31+00:00,brand.example,e2e-brand/spring,https://brand.example/e2e-brand/spring,https://example.com/spring,Brand spring,promo|spring,318",
    "2024-03-02T10:15:31+00:00,,e2e-default,https://s.example/e2e-default,https://example.com/default,Default one,,4",
  ].join("\r\n");
  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "shlink.csv", mimeType: "text/csv", buffer: Buffer.from(file) });
  const domains = page.getByRole("group", { name: "Where each Shlink domain's links go" });
  await domains.getByLabel("brand.example").selectOption("brand");
  await expect(domains.getByLabel("Shlink's default domain")).toHaveValue("main");
  // The brand host is its own here (playwright.config.ts): a code is one link per tracker.
  await expect(domains).toContainText("A code is one link per tracker");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByText(/2 imported/)).toBeVisible({ timeout: 30_000 });
  const brand = await (await page.request.get(`/api/pic-drift-links/lookup?code=${encodeURIComponent("e2e-brand/spring")}`)).json();
  expect(brand).toMatchObject({ tags: ["promo", "spring"], importedClicks: 318 });
  expect((await page.request.get("/api/links/lookup?code=e2e-default")).status()).toBe(200);
  // The slug answers at its own path, as Shlink served it.
  const followed = await page.request.get("/e2e-brand/spring", { maxRedirects: 0 });
  expect(followed.status()).toBe(302);
  expect(followed.headers().location).toBe("https://example.com/spring");
  // The Link Tracker shows the visits apart from its own clicks.
  await page.goto("/link-tracker");
  await expect(page.getByText("+ 4 before import")).toBeVisible();
});

test("a JSON export imported into another account through the Import page: its links appear there, with tags", async ({ page, browser }) => {
  test.setTimeout(120_000);
  // Alice's links, exported as JSON through the Link Tracker's own button.
  await registerViaApi(page.request);
  const code = uniqueName("js").toLowerCase().replace(/[^a-z0-9-]/g, "");
  const made = [
    { originalUrl: "https://example.com/json-one", title: "JSON one", shortCode: `${code}-one`, tags: ["moved", "spring"], description: "Kept across" },
    { originalUrl: "https://example.com/json-two", title: "'=already quoted", shortCode: `${code}-two` },
  ];
  for (const data of made) expect((await page.request.post("/api/links", { data })).status()).toBe(201);
  await page.goto("/link-tracker");
  const downloading = page.waitForEvent("download");
  await page.getByRole("navigation", { name: "Import and export" }).getByRole("link", { name: "Export JSON" }).click();
  const exported = await (await downloading).path().then((p) => readFileSync(p!, "utf8"));
  expect(JSON.parse(exported).links).toHaveLength(2);
  // Gone from Alice, so the codes are free for Bob.
  for (const l of (await (await page.request.get("/api/links")).json()) as { id: number }[]) await page.request.delete(`/api/links/${l.id}`);

  const bob = await browser.newContext();
  const bobPage = await bob.newPage();
  await registerViaApi(bobPage.request);
  await bobPage.goto("/link-tracker/import");
  // The styled picker: a button-looking label and the file's name, never the browser's own box.
  await expect(bobPage.getByText("Choose a file")).toBeVisible();
  await expect(bobPage.getByText("No file chosen")).toBeVisible();
  await bobPage.getByLabel("CSV or JSON file").setInputFiles({ name: "alice-links.json", mimeType: "application/json", buffer: Buffer.from(exported) });
  await expect(bobPage.getByText("alice-links.json", { exact: true })).toBeVisible();
  await expect(bobPage.getByText("Detected format:")).toContainText("This app's JSON export");
  const preview = bobPage.getByRole("table").filter({ has: bobPage.getByText("The first 2 rows of alice-links.json") });
  await expect(preview.getByRole("cell", { name: `${code}-one` })).toBeVisible();
  await expect(preview.getByRole("cell", { name: "moved, spring" })).toBeVisible();
  await bobPage.getByRole("button", { name: "Import", exact: true }).click();
  await expect(bobPage.getByText("Done: 2 imported, 0 skipped.")).toBeVisible({ timeout: 30_000 });

  await bobPage.goto("/link-tracker");
  const rowOf = (title: string) => bobPage.getByRole("listitem").filter({ has: bobPage.getByRole("heading", { name: title, exact: true }) });
  await expect(rowOf("JSON one")).toBeVisible();
  await expect(rowOf("JSON one").getByRole("list", { name: "Tags" })).toHaveText(/moved\s*spring/);
  await expect(rowOf("'=already quoted")).toBeVisible();
  const one = await (await bobPage.request.get(`/api/links/lookup?code=${code}-one`)).json();
  expect(one).toMatchObject({ originalUrl: "https://example.com/json-one", description: "Kept across", tags: ["moved", "spring"] });
  await bob.close();
});

test("a file that is JSON but not this app's export is refused on the page, before anything is sent", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/link-tracker/import");
  let sent = false;
  page.on("request", (r) => r.url().includes("/api/links/import") && (sent = true));
  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "other.json", mimeType: "application/json", buffer: Buffer.from('{"items": [1, 2]}') });
  await expect(page.getByText(/A JSON import is this app's JSON export/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Import", exact: true })).toHaveCount(0);
  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "broken.json", mimeType: "application/json", buffer: Buffer.from('{"links": [') });
  await expect(page.getByText(/The file is not valid JSON/)).toBeVisible();
  expect(sent).toBe(false);
});

test("an import the server pauses for the account's heavy-call limit waits as it asks and goes on; Cancel ends the wait", async ({ page }) => {
  // One wait for the limit's minute to end (HEAVY_RATE_LIMIT: the server's default, 120 a minute).
  test.setTimeout(180_000);
  await registerViaApi(page.request);
  const link = await (await page.request.post("/api/links", { data: { originalUrl: "https://example.com/heavy", title: "Heavy" } })).json();
  // Analytics reads count against the same per-user budget as each part of an import: use it up.
  const spendHeavyBudget = async () => {
    for (let i = 0; i < 1000; i++) if ((await page.request.get(`/api/links/${link.id}/analytics`)).status() === 429) return;
    throw new Error("the heavy-call limit never answered 429");
  };
  const csv = (prefix: string, n: number) => ["url,title", ...Array.from({ length: n }, (_, i) => `https://example.com/${prefix}/${i},${prefix} ${i}`)].join("\n");
  await spendHeavyBudget();

  await page.goto("/link-tracker/import");
  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "paused.csv", mimeType: "text/csv", buffer: Buffer.from(csv("paused", 3)) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  // Refused for the rate, the part is not a failure: the page says it waits, and for how long.
  await expect(page.getByRole("status").filter({ hasText: /Paused: the server takes \d+ imports, exports and analytics views a minute from one account; the import goes on at \d\d:\d\d:\d\d\./ })).toBeVisible();
  await expect(page.getByText(/^Stopped: /)).toHaveCount(0);
  await page.getByRole("button", { name: "Cancel import" }).click();
  await expect(page.getByText("Cancelled: 0 imported, 0 skipped; rows after 1 were not imported.")).toBeVisible({ timeout: 5_000 });

  // 501 rows are two parts: the first waits out the minute, then both go through.
  await page.getByRole("button", { name: "Import another file" }).click();
  await page.getByLabel("CSV or JSON file").setInputFiles({ name: "resumed.csv", mimeType: "text/csv", buffer: Buffer.from(csv("resumed", 501)) });
  await page.getByRole("button", { name: "Import", exact: true }).click();
  await expect(page.getByRole("status").filter({ hasText: /Paused: / })).toBeVisible();
  await expect(page.getByText("Done: 501 imported, 0 skipped.")).toBeVisible({ timeout: 90_000 });
  const list = await page.request.get("/api/links?limit=1");
  expect(Number(list.headers()["x-total-count"])).toBe(502);
});
