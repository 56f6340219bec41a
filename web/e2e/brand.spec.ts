import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { PNG } from "pngjs";
import jsQR from "jsqr";
import { PASSWORD, registerViaApi, trackOutsideRequests } from "./helpers";

// The e2e server runs with BRAND_DOMAIN=localhost:PORT: a second name for the same process.
const port = Number(process.env.E2E_PORT ?? 3917);
const brandBase = `http://localhost:${port}`;
const OWNER = "e2eowner";

let dest: Server;
let destBase = "";
test.beforeAll(async () => {
  dest = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>Destination</title><h1>Destination ${encodeURI(req.url ?? "")}</h1>`);
  });
  await new Promise<void>((r) => dest.listen(0, "127.0.0.1", r));
  destBase = `http://127.0.0.1:${(dest.address() as AddressInfo).port}`;
});
test.afterAll(() => dest.close());

/** The instance owner may already exist when other specs ran first in this server. */
async function signInOwner(request: APIRequestContext) {
  const reg = await request.post("/api/register", { data: { username: OWNER, password: PASSWORD, email: `${OWNER}@example.test` } });
  if (reg.status() === 201) return;
  const login = await request.post("/api/login", { data: { username: OWNER, password: PASSWORD } });
  expect(login.ok(), await login.text()).toBe(true);
}

const card = (page: Page, title: string) => page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

test("create, edit code and destination, follow, reset, and download the QR code", { tag: "@main-flow" }, async ({ page, context }) => {
  const outside = trackOutsideRequests(page);
  await registerViaApi(page.request);
  await page.goto("/pic-drift-link-tracker");
  await expect(page.getByRole("heading", { name: "Pic Drift Link Tracker", level: 1 })).toBeVisible();
  await expect(page.getByText("You haven't created any links yet.")).toBeVisible();
  // Only the instance owner sees the root link.
  await expect(page.getByText("Root Domain Redirect")).toHaveCount(0);

  await page.getByRole("button", { name: "Create Link" }).click();
  const create = page.getByRole("dialog", { name: "Create Short Link" });
  await create.getByLabel("URL").fill(`${destBase}/first`);
  await create.getByLabel("Title", { exact: true }).fill("Spring campaign");
  await create.getByRole("button", { name: "Create", exact: true }).click();
  await expect(page.getByText("Short link created successfully")).toBeVisible();
  const c = card(page, "Spring campaign");
  const firstUrl = (await c.locator(".link-row-short code").getAttribute("title"))!;
  expect(firstUrl.startsWith(`${brandBase}/`)).toBe(true);

  // Edit: code and destination, with the spec's validation message first.
  await c.getByRole("button", { name: "More actions for Spring campaign" }).click();
  await page.getByRole("menu").getByRole("menuitem", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Link" });
  await expect(edit.getByLabel("Destination URL")).toHaveValue(`${destBase}/first`);
  await edit.getByLabel("Short Code").fill("ab");
  await edit.getByRole("button", { name: "Save Changes" }).click();
  await expect(edit.getByText("Short code must be at least 3 characters")).toBeVisible();
  const code = `spring-${Date.now().toString(36)}`;
  await edit.getByLabel("Short Code").fill(code);
  await edit.getByLabel("Destination URL").fill(`${destBase}/second`);
  await edit.getByRole("button", { name: "Save Changes" }).click();
  await expect(page.getByText("Link updated successfully")).toBeVisible();
  await expect(c.locator(".link-row-short code")).toHaveAttribute("title", `${brandBase}/${code}`);
  await expect(c.getByText(`${destBase}/second`)).toBeVisible();

  // The new short URL on the brand host lands on the new destination at once.
  const visitor = await context.newPage();
  await visitor.goto(`${brandBase}/${code}`);
  await expect(visitor.getByRole("heading", { name: "Destination /second" })).toBeVisible();
  // Back to the tracker tab (a background tab gets no animation frames, which slows every click).
  await page.bringToFront();
  await expect(async () => {
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect(c.getByText("1 click", { exact: true })).toBeVisible({ timeout: 1000 });
  }).toPass();

  // Analytics: the brand variant's tabs and Click History columns.
  await c.getByRole("button", { name: "Analytics for Spring campaign" }).click();
  const analytics = page.getByRole("dialog", { name: "Analytics: Spring campaign" });
  await expect(analytics.getByText("Device Types")).toBeVisible();
  await expect(analytics.getByText("Browsers")).toBeVisible();
  await analytics.getByRole("tab", { name: "Click Details" }).click();
  await expect(analytics.getByText("Click History")).toBeVisible();
  await expect(analytics.getByRole("table").getByRole("columnheader")).toHaveText(["Time", "Referrer", "Browser", "Device", "Location", "Visit Type", "#"]);
  await expect(analytics.getByRole("table").getByRole("row").nth(1)).toContainText("Direct");
  await page.keyboard.press("Escape");

  // Reset, after the spec's confirmation.
  await c.getByRole("button", { name: "More actions for Spring campaign" }).click();
  await expect(page.getByRole("menu").getByRole("menuitem")).toHaveText(["Open destination", "Edit", "QR code", "Public stats page", "Reset click count", "Delete"]);
  await page.getByRole("menu").getByRole("menuitem", { name: "Reset click count" }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm.getByText("Are you sure you want to reset the click count to zero? This cannot be undone.")).toBeVisible();
  await confirm.getByRole("button", { name: "Reset" }).click();
  await expect(page.getByText("Click count has been reset to zero")).toBeVisible();
  await expect(c.getByText("0 clicks", { exact: true })).toBeVisible();

  // QR code: 300 px preview, default file name, a 1500 px PNG of the brand short URL + scan marker.
  await c.getByRole("button", { name: "More actions for Spring campaign" }).click();
  await page.getByRole("menu").getByRole("menuitem", { name: "QR code" }).click();
  const qr = page.getByRole("dialog", { name: "QR Code Generator" });
  const preview = qr.getByRole("img", { name: `QR code for ${brandBase}/${code}` });
  await expect(preview).toBeVisible();
  expect((await preview.boundingBox())!.width).toBeCloseTo(300, 0);
  await expect(qr.getByLabel("File Name")).toHaveValue(`qr-code-${code}`);
  await expect(qr.getByText(`The file will be saved as qr-code-${code}.png`)).toBeVisible();
  await qr.getByLabel("File Name").fill("campaign/../poster");
  await expect(qr.getByText("The file will be saved as campaign-..-poster.png")).toBeVisible();
  await qr.getByLabel("File Name").fill("spring poster");
  const [download] = await Promise.all([page.waitForEvent("download"), qr.getByRole("button", { name: "Download QR Code" }).click()]);
  expect(download.suggestedFilename()).toBe("spring poster.png");
  await expect(page.getByText("QR code downloaded successfully")).toBeVisible();
  const png = PNG.sync.read(readFileSync((await download.path())!));
  expect([png.width, png.height]).toEqual([1500, 1500]);
  const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  expect(decoded?.data).toBe(`${brandBase}/${code}?qr=1`);

  expect(outside.filter((u) => !u.startsWith(destBase) && !u.startsWith(brandBase))).toEqual([]);
});

test("the owner sees the root card; a second user does not", { tag: "@main-flow" }, async ({ browser }) => {
  const ownerContext = await browser.newContext();
  const page = await ownerContext.newPage();
  await signInOwner(page.request);
  // A visit to the bare brand domain goes through the root link.
  const hop = await page.request.get(`${brandBase}/`, { maxRedirects: 0 });
  expect(hop.status()).toBe(302);
  await page.goto("/pic-drift-link-tracker");
  const root = page.getByRole("region", { name: "Root Domain Redirect" });
  await expect(root).toBeVisible();
  await expect(root.getByText("System Link")).toBeVisible();
  await expect(root.locator("code")).toHaveText(`localhost:${port}`);
  await expect(root.getByText(/\d+ redirects?/)).toBeVisible();
  await expect(root.getByRole("link", { name: "Visit root destination" })).toBeVisible();
  await expect(root.getByRole("button", { name: "Analytics for the root link" })).toBeVisible();
  await expect(root.getByRole("button", { name: "Reset click count for the root link" })).toBeVisible();
  // No edit or delete for the system link, and it is not in the normal list.
  await expect(root.getByRole("button", { name: /Edit|Delete/ })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Root Domain Redirect" })).toHaveCount(1);
  await root.getByRole("button", { name: "Reset click count for the root link" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Reset" }).click();
  await expect(page.getByText("Click count has been reset to zero")).toBeVisible();
  await expect(root.getByText("0 redirects")).toBeVisible();
  await ownerContext.close();

  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  await registerViaApi(other.request);
  await other.goto("/pic-drift-link-tracker");
  await expect(other.getByRole("heading", { name: "Pic Drift Link Tracker", level: 1 })).toBeVisible();
  await expect(other.getByText("Root Domain Redirect")).toHaveCount(0);
  await expect(other.getByText("System Link")).toHaveCount(0);
  await otherContext.close();
});
