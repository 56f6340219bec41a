// Defects found in the full walkthrough (issue 13): each test failed before its fix.
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { PNG } from "pngjs";
import jsQR from "jsqr";
import { expectNoHorizontalOverflow, registerViaApi, uniqueName } from "./helpers";

const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

type Link = { id: number; shortUrl: string; title: string };
async function createLink(request: APIRequestContext, data: Record<string, unknown>) {
  const res = await request.post("/api/links", { data });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as Link;
}

/** Two clicks from an iPhone (a new and a return visit: the widest badges), once recorded. */
async function clickTwice(request: APIRequestContext, link: Link) {
  for (let i = 0; i < 2; i++) expect((await request.get(link.shortUrl, { maxRedirects: 0, headers: { "user-agent": IPHONE } })).status()).toBe(302);
  await expect(async () => {
    const r = (await (await request.get(`/api/links/${link.id}/analytics`)).json()) as { clickCount: number };
    expect(r.clickCount).toBe(2);
  }).toPass();
}

/** Whether `inner` lies inside `outer`'s visible box (1 px of rounding allowed). */
async function inside(page: Page, inner: string, outer: string) {
  const [a, b] = [await page.locator(inner).first().boundingBox(), await page.locator(outer).first().boundingBox()];
  return !!a && !!b && a.x >= b.x - 1 && a.x + a.width <= b.x + b.width + 1;
}

async function createTopic(request: APIRequestContext, name: string, extra: Record<string, unknown> = {}) {
  const res = await request.post("/api/topics", { data: { name, ...extra } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: number; linkSlug: string; phoneNumber: string };
}

test("a message link copied before its title was renamed still opens the message", async ({ page }) => {
  const user = await registerViaApi(page.request, uniqueName("slugs"));
  const topic = await createTopic(page.request, "Renames");
  const api = `/api/${user}/${topic.linkSlug}/titles`;
  const made = (await (await page.request.post(api, { data: { name: "Old Name", notes: "kept", version: 1 } })).json()) as { id: number };
  const put = await page.request.put(`${api}/${made.id}?updateAllVersions=true`, { data: { name: "New Name" } });
  expect(put.status(), await put.text()).toBe(200);

  await page.goto(`/${user}/${topic.linkSlug}/old-name/1`);
  await expect(page.getByRole("heading", { name: "Message Not Found" })).toHaveCount(0);
  await expect(page.getByText("Message 1").first()).toBeVisible();
  // The address bar now carries the current link, so copying it again gives the new one.
  await expect(page).toHaveURL(`/${user}/${topic.linkSlug}/new-name/1`);
  await page.goto(`/${user}/${topic.linkSlug}/old-name`);
  await expect(page).toHaveURL(`/${user}/${topic.linkSlug}/new-name`);
});

test("a topic's phone number shows as a tel: link with a copy action, on the dashboard row and the topic page", async ({ page, context, baseURL }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  const user = await registerViaApi(page.request, uniqueName("phone"));
  const topic = await createTopic(page.request, "Call Me");
  expect(topic.phoneNumber).toMatch(/^\+1555\d{7}$/);
  const shown = `+1 ${topic.phoneNumber.slice(2, 5)}-${topic.phoneNumber.slice(5, 8)}-${topic.phoneNumber.slice(8)}`;

  await page.goto("/");
  const row = page.getByRole("listitem", { name: "Call Me" });
  await expect(row.getByRole("link", { name: `Phone number of Call Me: ${shown}` })).toHaveAttribute("href", `tel:${topic.phoneNumber}`);
  await row.getByRole("button", { name: "Copy number for Call Me" }).click();
  await expect(page.getByText("Copied to clipboard")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(topic.phoneNumber);

  await page.goto(`/topic/${user}/${topic.linkSlug}`);
  await expect(page.getByRole("link", { name: `Phone number of Call Me: ${shown}` })).toHaveAttribute("href", `tel:${topic.phoneNumber}`);
  await expect(page.getByRole("button", { name: "Copy number for Call Me" })).toBeVisible();
});

test("long notes are clamped in lists, with Show more / Show less", async ({ page }) => {
  const user = await registerViaApi(page.request, uniqueName("clamp"));
  const topic = await createTopic(page.request, "Long Notes");
  const api = `/api/${user}/${topic.linkSlug}/titles`;
  const notes = "word ".repeat(2000).trim();
  expect((await page.request.post(api, { data: { name: "Essay", notes, version: 1 } })).status()).toBe(201);
  expect((await page.request.post(api, { data: { name: "Short", notes: "just a line", version: 1 } })).status()).toBe(201);

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/topic/${user}/${topic.linkSlug}`);
  await expect(page.getByRole("heading", { name: "Essay" })).toBeVisible();
  const height = () => page.evaluate(() => document.documentElement.scrollHeight);
  expect(await height()).toBeLessThan(1600);
  // Only the long one is cut.
  const more = page.getByRole("button", { name: "Show more" });
  await expect(more).toHaveCount(1);
  await expect(more).toHaveAttribute("aria-expanded", "false");
  await more.click();
  const less = page.getByRole("button", { name: "Show less" });
  await expect(less).toHaveAttribute("aria-expanded", "true");
  expect(await height()).toBeGreaterThan(2000);
  await less.click();
  await expect(page.getByRole("button", { name: "Show more" })).toBeFocused();
  expect(await height()).toBeLessThan(1600);

  // The message list clamps the same notes.
  await page.goto(`/${user}/${topic.linkSlug}/essay`);
  await expect(page.getByRole("button", { name: "Show more" })).toHaveCount(1);
  expect(await height()).toBeLessThan(1600);
});

test("a reader of a public topic without titles is not told to use a form they do not have", async ({ page, browser, baseURL }) => {
  const ownerCtx = await browser.newContext({ baseURL });
  const owner = await registerViaApi(ownerCtx.request, uniqueName("pubown"));
  const topic = await createTopic(ownerCtx.request, "Notice Board", { accessType: "public" });
  await registerViaApi(page.request, uniqueName("reader"));
  await page.goto(`/topic/${owner}/${topic.linkSlug}`);
  await expect(page.getByRole("heading", { level: 1, name: "Notice Board" })).toBeVisible();
  await expect(page.getByText("No titles found.", { exact: true })).toBeVisible();
  await expect(page.getByText("Add your first title above.")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Add Title" })).toHaveCount(0);
  await ownerCtx.close();
});

test("/share/ and /invite/ without their part are 'Page Not Found'; a topic path missing its slug is 'Error Loading Topic'", async ({ page }) => {
  for (const path of ["/share/", "/invite/"]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { name: "Page Not Found" })).toBeVisible();
    await expect(page.getByText("The page you're looking for doesn't exist.")).toBeVisible();
    await expect(page.getByText("Link not found")).toHaveCount(0);
  }
  await registerViaApi(page.request, uniqueName("topicpath"));
  await page.goto("/topic/alice");
  await expect(page.getByRole("heading", { name: "Error Loading Topic" })).toBeVisible();
  await expect(page.getByText("Could not load the topic. Please try again.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Back to Home" })).toHaveAttribute("href", "/");
  // An existing path whose topic is not there is still 'Topic Not Found' (spec §2).
  await page.goto("/topic/alice/nothing-here");
  await expect(page.getByRole("heading", { name: "Topic Not Found" })).toBeVisible();
});

test("the about page names no setting when the operator is not configured", async ({ page }) => {
  await page.goto("/about");
  await expect(page.getByRole("heading", { name: "Legal owner" })).toBeVisible();
  await expect(page.getByText("This Threadlink server is run independently by the person or organisation that set it up.")).toBeVisible();
  await expect(page.getByRole("main")).not.toContainText(/OPERATOR_|not configured/i);
});

test("Click Details fits the analytics dialog at 1280 (Visit # in view) and reads as labelled cards at 360", async ({ page }) => {
  await registerViaApi(page.request, uniqueName("clicks"));
  const link = await createLink(page.request, { originalUrl: "https://example.com/wide", title: "Wide table" });
  await clickTwice(page.request, link);

  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "Analytics for Wide table" }).click();
  const dialog = page.getByRole("dialog", { name: "Analytics: Wide table" });
  await dialog.getByRole("tab", { name: "Click Details" }).click();
  await expect(dialog.getByRole("columnheader", { name: "Visit #" })).toBeVisible();
  const fit = await dialog.locator(".table-wrap:has(.clicks-table)").evaluate((w) => ({ scroll: w.scrollWidth, client: w.clientWidth }));
  expect(fit.scroll).toBeLessThanOrEqual(fit.client);
  expect(await inside(page, ".clicks-table th:last-child", ".table-wrap:has(.clicks-table)")).toBe(true);
  await expect(dialog.getByRole("row").nth(1).getByRole("cell").last()).toHaveText("2");

  await page.setViewportSize({ width: 360, height: 740 });
  await expectNoHorizontalOverflow(page);
  const first = dialog.locator(".clicks-table tbody tr").first();
  await expect(first.locator('td[data-label="Visit #"]')).toBeInViewport();
  // Each value carries its column's name on a phone.
  expect(await first.locator('td[data-label="Visit #"]').evaluate((td) => getComputedStyle(td, "::before").content)).toBe('"Visit #"');
});

test("the Create Short Link dialog keeps its buttons on screen when errors make it taller than the window", async ({ page }) => {
  await registerViaApi(page.request, uniqueName("tall"));
  for (const [width, height] of [[360, 640], [1280, 600]]) {
    await page.setViewportSize({ width, height });
    await page.goto("/link-tracker");
    await page.getByRole("button", { name: "Create Link" }).click();
    const dialog = page.getByRole("dialog", { name: "Create Short Link" });
    await dialog.getByRole("button", { name: "Create", exact: true }).click();
    await expect(dialog.getByText("Title is required")).toBeVisible();
    const box = (await dialog.boundingBox())!;
    expect(box.y + box.height, `${width}x${height}`).toBeLessThanOrEqual(height);
    for (const name of ["Create", "Cancel"]) await expect(dialog.getByRole("button", { name, exact: true })).toBeInViewport({ ratio: 1 });
    // The body scrolls under them: the last field is reachable.
    await dialog.getByLabel("Expires (Optional)").scrollIntoViewIfNeeded();
    await expect(dialog.getByLabel("Expires (Optional)")).toBeInViewport();
    await dialog.getByRole("button", { name: "Cancel" }).click();
  }
});

/** The QR code the preview canvas shows, decoded as a scanner would. */
async function decodePreview(page: Page) {
  const data = await page.getByRole("img", { name: /^QR code for / }).evaluate((c) => (c as HTMLCanvasElement).toDataURL("image/png"));
  const png = PNG.sync.read(Buffer.from(data.split(",")[1]!, "base64"));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data ?? null;
}

test("the QR generator checks a custom URL like the Link Tracker, and encodes a non-ASCII URL in its ASCII form", async ({ page }) => {
  await registerViaApi(page.request, uniqueName("qrcheck"));
  await page.goto("/qr");
  const input = page.getByLabel("URL", { exact: true });
  for (const [text, message] of [
    ["<script>alert(1)</script>", "Please enter a valid URL"],
    ["javascript:alert(1)", "Only http:// and https:// addresses can be made into QR codes"],
    ["just some words", "URL must not contain spaces or control characters"],
  ]) {
    await input.fill(text);
    await page.getByRole("button", { name: "Generate" }).click();
    await expect(page.locator(".field-error").filter({ hasText: message })).toBeVisible();
    await expect(input).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByText("QR code generated successfully")).toHaveCount(0);
    await expect(page.getByRole("img", { name: /^QR code for / })).toHaveCount(0);
  }

  // Every reader agrees on ASCII: a punycode host and percent-encoded UTF-8.
  await input.fill("https://bücher.example/café?q=é");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("QR code generated successfully")).toBeVisible();
  const ascii = "https://xn--bcher-kva.example/caf%C3%A9?q=%C3%A9";
  await expect(page.getByText(`Checked: scans to ${ascii}`)).toBeVisible();
  expect(await decodePreview(page)).toBe(ascii);
});

test("an expired link is marked Expired on its card and left out of the QR generator's picker", async ({ page }) => {
  await registerViaApi(page.request, uniqueName("expiry"));
  await createLink(page.request, { originalUrl: "https://example.com/old", title: "Old offer", expiresAt: new Date(Date.now() + 1500).toISOString() });
  await createLink(page.request, { originalUrl: "https://example.com/new", title: "New offer" });
  await page.waitForTimeout(1600);

  await page.goto("/link-tracker");
  const card = (title: string) => page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title }) });
  await expect(card("Old offer").getByText("Expired", { exact: true })).toBeVisible();
  await expect(card("New offer").getByText("Expired", { exact: true })).toHaveCount(0);

  await page.goto("/qr");
  await page.getByLabel("My Short Links").check();
  const picker = page.getByLabel("Short link");
  await expect(picker.locator("option")).toHaveText(["Select a short link", /^New offer \(/]);
});

test("the clicks chart labels today's point on its x-axis", async ({ page }) => {
  // uPlot draws its axis labels on a canvas: record what is drawn, and where.
  await page.addInitScript(() => {
    const drawn: [string, number][] = ((window as unknown as { __drawn: [string, number][] }).__drawn = []);
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, max?: number) {
      drawn.push([String(text), x]);
      return max === undefined ? fill.call(this, text, x, y) : fill.call(this, text, x, y, max);
    };
  });
  await registerViaApi(page.request, uniqueName("chart"));
  await createLink(page.request, { originalUrl: "https://example.com/chart", title: "Charted" });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "Analytics for Charted" }).click();
  await expect(page.getByRole("dialog", { name: "Analytics: Charted" }).locator(".clicks-chart canvas")).toBeVisible();
  const today = new Date().toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
  await expect(async () => {
    const drawn = await page.evaluate(() => (window as unknown as { __drawn: [string, number][] }).__drawn);
    const dates = drawn.filter(([t]) => /^[A-Z][a-z]{2} \d{1,2}$/.test(t));
    expect(dates.map(([t]) => t)).toContain(today);
    // Today is the rightmost label: the last point of the series.
    expect(dates.reduce((a, b) => (b[1] > a[1] ? b : a))[0]).toBe(today);
  }).toPass();
});

test("fields line up: the emoji select with the topic name, the Notifications heading with its button, the display name with the page", async ({ page }) => {
  const user = await registerViaApi(page.request, uniqueName("align"));
  const topic = await createTopic(page.request, "Aligned");
  const api = `/api/${user}/${topic.linkSlug}/titles`;
  expect((await page.request.post(api, { data: { name: "Row", version: 1 } })).status()).toBe(201);
  await page.setViewportSize({ width: 1280, height: 800 });
  const box = async (sel: string) => (await page.locator(sel).first().boundingBox())!;

  await page.goto("/");
  const [select, input, add] = [await box(".emoji-picker select"), await box(".add-topic input"), await box(".add-topic-submit")];
  for (const b of [select, add]) {
    expect(Math.abs(b.y - input.y)).toBeLessThanOrEqual(1);
    expect(Math.abs(b.height - input.height)).toBeLessThanOrEqual(1);
  }

  await page.goto("/notifications");
  const [h1, button] = [await box(".notifications-head h1"), await box(".notifications-head button")];
  expect(Math.abs(h1.y + h1.height / 2 - (button.y + button.height / 2))).toBeLessThanOrEqual(1);

  await page.goto(`/${user}/${topic.linkSlug}/row/1`);
  const back = await box(".titles-head a");
  const textLeft = await page.locator(".display-name-input").evaluate((el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft);
  });
  expect(Math.abs(textLeft - back.x)).toBeLessThanOrEqual(1);
  expect(Math.abs((await box(".detail-name-label")).x - back.x)).toBeLessThanOrEqual(1);
});

test("the QR page shows a labelled file button and a placeholder before the first code", async ({ page }) => {
  await registerViaApi(page.request, uniqueName("qrlook"));
  await page.goto("/qr");
  const file = page.getByLabel("Logo (optional)");
  await expect(file).toHaveAttribute("type", "file");
  // The native control is not what shows: a button-like label opens it.
  expect(await file.evaluate((el) => el.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
  await expect(page.locator("label.file-button")).toHaveText("Choose image");
  await expect(page.locator("label.file-button")).toBeVisible();
  // Keyboard: Tab reaches the input, and its button shows the focus ring.
  await file.focus();
  expect(await page.locator("label.file-button").evaluate((el) => getComputedStyle(el).outlineStyle)).toBe("solid");
  await expect(page.getByText("Your QR code will appear here.")).toBeVisible();
  await expect(page.getByRole("img", { name: /^QR code for / })).toHaveCount(0);
});

test("right-to-left names align to the right", async ({ page }) => {
  const user = await registerViaApi(page.request, uniqueName("rtl"));
  const topic = await createTopic(page.request, "שלום עולם");
  expect((await page.request.post(`/api/${user}/${topic.linkSlug}/titles`, { data: { name: "مرحبا بالعالم 2024", notes: "ملاحظات", version: 1 } })).status()).toBe(201);
  await page.goto("/");
  await expect(page.locator(".topic-name").filter({ hasText: "שלום עולם" })).toHaveJSProperty("dir", "auto");
  const direction = (loc: ReturnType<Page["locator"]>) => loc.evaluate((el) => getComputedStyle(el).direction);
  expect(await direction(page.locator(".topic-name").filter({ hasText: "שלום עולם" }))).toBe("rtl");
  await page.goto(`/topic/${user}/${topic.linkSlug}`);
  expect(await direction(page.getByRole("heading", { level: 1 }))).toBe("rtl");
  expect(await direction(page.getByRole("heading", { name: "مرحبا بالعالم 2024" }))).toBe("rtl");
  expect(await direction(page.getByText("ملاحظات"))).toBe("rtl");
});

test("a very long destination stays one line in its link row; the whole address is its link and tooltip", async ({ page }) => {
  await registerViaApi(page.request, uniqueName("longurl"));
  const url = `https://example.com/${"segment-".repeat(230)}end`;
  await createLink(page.request, { originalUrl: url, title: "Long destination" });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/link-tracker");
  const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Long destination" }) });
  expect((await card.boundingBox())!.height).toBeLessThan(220);
  const dest = card.getByRole("link", { name: url });
  await expect(dest).toHaveAttribute("href", url);
  await expect(dest).toHaveAttribute("title", url);
  expect((await dest.boundingBox())!.height).toBeLessThan(30);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
});
