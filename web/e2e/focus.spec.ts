// Issue 25: titles in any script, and focus that never falls to the page's body.
import { expect, test } from "@playwright/test";
import { registerViaApi } from "./helpers";

const onBody = (page: import("@playwright/test").Page) => page.evaluate(() => document.activeElement === document.body);

test("a thread named in Hebrew, Russian, Japanese or by an emoji alone is added and opens at its own link", async ({ page }) => {
  const me = await registerViaApi(page.request);
  const topic = (await (await page.request.post("/api/topics", { data: { name: "Trips" } })).json()) as { linkSlug: string };
  await page.goto(`/${me}/${topic.linkSlug}`);
  for (const [name, slug] of [["שלום עולם", "שלום-עולם"], ["Привет, мир", "привет-мир"], ["こんにちは 世界", "こんにちは-世界"], ["🎉", "title-1f389"]] as const) {
    await page.getByLabel("Title name").fill(name);
    await page.getByLabel("Title name").press("Enter");
    await expect(page.getByText("Title created successfully").first()).toBeVisible();
    const link = page.getByRole("heading", { name, exact: true }).getByRole("link");
    await expect(link).toHaveAttribute("href", `/${me}/${topic.linkSlug}/${slug}`);
  }
  await page.getByRole("heading", { name: "Привет, мир" }).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/${me}/${topic.linkSlug}/${encodeURIComponent("привет-мир")}$`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Привет, мир");
});

test("skip link, focus on a new screen, after adding and deleting topics, and after Mark as read", async ({ page, browser }) => {
  const me = await registerViaApi(page.request);
  await page.goto("/");
  await expect(page.getByLabel("Topic name")).toBeVisible();
  // The first Tab reaches the skip link; it lands on the screen's main region.
  await page.locator("body").focus();
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.locator("main#main")).toBeFocused();

  // Adding a topic: focus comes back to the name field.
  await page.getByLabel("Topic name").fill("First");
  await page.getByLabel("Topic name").press("Enter");
  await expect(page.getByText("Topic created successfully")).toBeVisible();
  await expect(page.getByLabel("Topic name")).toBeFocused();
  await page.getByLabel("Topic name").fill("Second");
  await page.getByLabel("Topic name").press("Enter");
  await expect(page.getByRole("listitem", { name: "Second" })).toBeVisible();

  // Deleting: focus goes to the next row's Delete, then (the last one) to the name field.
  await page.getByRole("button", { name: "Delete Second" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByRole("button", { name: "Delete First" })).toBeFocused();
  await page.keyboard.press("Enter");
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByRole("listitem", { name: "First" })).toHaveCount(0);
  await expect(page.getByLabel("Topic name")).toBeFocused();

  // A new screen reached by a link starts at its heading.
  await page.goto("/link-tracker/import");
  await page.getByRole("link", { name: "← Link Tracker" }).click();
  await expect(page.getByRole("heading", { name: "Link Tracker", level: 1 })).toBeFocused();

  // Mark as read: focus moves to the next unread notification's button, then to the notification's link.
  for (let i = 0; i < 2; i++) {
    const ctx = await browser.newContext();
    const other = await ctx.newPage();
    await registerViaApi(other.request);
    const { code } = (await (await page.request.post("/api/invites")).json()) as { code: string };
    expect((await other.request.post(`/api/invites/${code}/accept`)).status()).toBe(200);
    await ctx.close();
  }
  await page.goto("/notifications");
  const marks = page.getByRole("button", { name: /^Mark as read:/ });
  await expect(marks).toHaveCount(2);
  await marks.first().click();
  await expect(marks).toHaveCount(1);
  await expect(marks.first()).toBeFocused();
  await marks.first().click();
  await expect(marks).toHaveCount(0);
  expect(await onBody(page)).toBe(false);
  expect(me).toBeTruthy();
});

test("dialogs open on their first field; the analytics dialog closed by Escape on a tab gives focus back", async ({ page }) => {
  await registerViaApi(page.request);
  expect((await page.request.post("/api/links", { data: { originalUrl: "https://example.com/f", title: "Focus link" } })).status()).toBe(201);
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "More actions for Focus link" }).click();
  await page.getByRole("menuitem", { name: "Edit" }).click();
  await expect(page.getByRole("dialog", { name: "Edit Link" }).getByLabel("Short Code")).toBeFocused();
  await page.keyboard.press("Escape");
  const analytics = page.getByRole("button", { name: "Analytics for Focus link" });
  await analytics.click();
  const dialog = page.getByRole("dialog", { name: "Analytics: Focus link" });
  await dialog.getByRole("tab", { name: "Click Details" }).click();
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(analytics).toBeFocused();
});
