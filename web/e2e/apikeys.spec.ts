// API keys (issue 14): made on the settings page, used by a script (fetch from the test, no cookie).
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { registerViaApi } from "./helpers";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("create an API key on the settings page, create a link with it from a script, see it used, revoke it", async ({ page, baseURL }) => {
  await registerViaApi(page.request);
  await page.goto("/");
  // Reached from the user's name in the header's welcome line (the spec fixes the menus' items).
  await page.getByRole("link", { name: /settings and API keys/ }).click();
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  await expect(page.getByText("You have no API keys yet.")).toBeVisible();

  // The shared schema's message, before anything is sent.
  await page.getByRole("button", { name: "Create API key" }).click();
  await expect(page.getByText("Name is required")).toBeVisible();
  await page.getByLabel("Key name").fill("Deploy script");
  await page.getByLabel("Access").selectOption("read-write");
  await page.getByLabel("Reaches").selectOption("links");
  await page.getByLabel("Key name").press("Enter");

  const dialog = page.getByRole("dialog", { name: "API key created" });
  await expect(dialog.getByText("Copy it now: it will not be shown again.")).toBeVisible();
  const field = dialog.getByLabel("Key for Deploy script");
  const key = await field.inputValue();
  expect(key).toMatch(/^tl_[A-Za-z0-9_-]{43}$/);
  await dialog.getByRole("button", { name: "Copy key" }).click();
  await expect(page.getByText("API key copied to clipboard")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toBeHidden();

  const item = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Deploy script" }) });
  await expect(item.getByText(`${key.slice(0, 11)}…`)).toBeVisible();
  await expect(item.getByText("Read and write, links only")).toBeVisible();
  await expect(item.getByText(/Never used/)).toBeVisible();
  // The full key is never shown again.
  await expect(page.getByText(key)).toHaveCount(0);

  // A script: the key is its only credential (no cookie), from another origin's point of view.
  const made = await fetch(`${baseURL}/api/links`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ originalUrl: "https://example.com/from-a-script", title: "Made by a script" }),
  });
  expect(made.status).toBe(201);
  // Outside its scope: 403, nothing made.
  const topic = await fetch(`${baseURL}/api/topics`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ name: "No" }) });
  expect(topic.status).toBe(403);

  await page.goto("/link-tracker");
  await expect(page.getByRole("heading", { name: "Made by a script" })).toBeVisible();
  await page.goto("/settings");
  await expect(item.getByText(/Last used/)).toBeVisible();

  await item.getByRole("button", { name: "Revoke Deploy script" }).click();
  await page.getByRole("alertdialog", { name: "Revoke API key" }).getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByText("API key revoked")).toBeVisible();
  await expect(page.getByText("You have no API keys yet.")).toBeVisible();
  const after = await fetch(`${baseURL}/api/links`, { headers: { authorization: `Bearer ${key}` } });
  expect(after.status).toBe(401);
});

test("the settings page: no serious axe violation in light or dark, and nothing wider than a 360 px phone", async ({ page }) => {
  await registerViaApi(page.request);
  expect((await page.request.post("/api/api-keys", { data: { name: "A key with a fairly long name for a phone", scope: "read", only: "topics" } })).status()).toBe(201);
  await page.setViewportSize({ width: 360, height: 740 });
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.goto("/settings");
    await expect(page.getByText("Read only, topics only")).toBeVisible();
    await page.getByLabel("Key name").fill("Second");
    await page.getByRole("button", { name: "Create API key" }).click();
    await expect(page.getByRole("dialog", { name: "API key created" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: `${test.info().outputDir}/settings-360-${colorScheme}.png`, fullPage: true });
    const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await page.getByRole("button", { name: "Done" }).click();
    const { violations: listed } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    expect(listed.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await page.screenshot({ path: `${test.info().outputDir}/settings-list-360-${colorScheme}.png`, fullPage: true });
  }
});

test("keys revoked by keyboard alone: focus moves to the next key's Revoke, then to the key name, never to the page's body", async ({ page }) => {
  await registerViaApi(page.request);
  for (const name of ["Older", "Newer"]) expect((await page.request.post("/api/api-keys", { data: { name, scope: "read" } })).status()).toBe(201);
  await page.goto("/settings");
  await page.getByRole("button", { name: "Revoke Newer" }).focus();
  await page.keyboard.press("Enter");
  const confirm = page.getByRole("alertdialog", { name: "Revoke API key" });
  await expect(confirm.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByText("API key revoked")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Newer" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Revoke Older" })).toBeFocused();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByText("You have no API keys yet.")).toBeVisible();
  await expect(page.getByLabel("Key name")).toBeFocused();
});

test("a key made by keyboard: the dialog starts on the key, selected, and Escape or Done brings focus back to the key name", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/settings");
  for (const close of ["Escape", "Done"] as const) {
    await page.getByLabel("Key name").focus();
    await page.keyboard.type(`By keyboard ${close}`);
    await page.keyboard.press("Enter");
    const field = page.getByRole("dialog", { name: "API key created" }).getByLabel(`Key for By keyboard ${close}`);
    await expect(field).toBeFocused();
    // Selected whole, so Ctrl+C copies it at once.
    expect(await field.evaluate((el: HTMLInputElement) => [el.selectionStart, el.selectionEnd])).toEqual([0, (await field.inputValue()).length]);
    if (close === "Escape") await page.keyboard.press("Escape");
    else await page.getByRole("dialog", { name: "API key created" }).getByRole("button", { name: "Done", exact: true }).press("Enter");
    await expect(page.getByRole("dialog")).toHaveCount(0);
    await expect(page.getByLabel("Key name")).toBeFocused();
  }
});
