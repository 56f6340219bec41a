// Defects found in the full walkthrough (issue 13): each test failed before its fix.
import { expect, test, type APIRequestContext } from "@playwright/test";
import { registerViaApi, uniqueName } from "./helpers";

async function createTopic(request: APIRequestContext, name: string, extra: Record<string, unknown> = {}) {
  const res = await request.post("/api/topics", { data: { name, ...extra } });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: number; linkSlug: string; phoneNumber: string };
}

test("a topic's phone number shows as a tel: link with a copy action, on the dashboard row and the topic page", async ({ page, context, baseURL }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  const user = await registerViaApi(page.request, uniqueName("phone"));
  const topic = await createTopic(page.request, "Call Me");
  expect(topic.phoneNumber).toMatch(/^\+1555\d{7}$/);
  const shown = `+1 ${topic.phoneNumber.slice(2, 5)}-${topic.phoneNumber.slice(5, 8)}-${topic.phoneNumber.slice(8)}`;

  await page.goto("/");
  const row = page.getByRole("listitem", { name: "Call Me" });
  await expect(row.getByRole("link", { name: `Phone number of Call Me: ${shown}` })).toHaveAttribute("href", `tel:${topic.phoneNumber}`);
  await row.getByRole("button", { name: "Copy phone number of Call Me" }).click();
  await expect(page.getByText("Copied to clipboard")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(topic.phoneNumber);

  await page.goto(`/topic/${user}/${topic.linkSlug}`);
  await expect(page.getByRole("link", { name: `Phone number of Call Me: ${shown}` })).toHaveAttribute("href", `tel:${topic.phoneNumber}`);
  await expect(page.getByRole("button", { name: "Copy phone number of Call Me" })).toBeVisible();
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
