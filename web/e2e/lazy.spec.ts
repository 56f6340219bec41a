// The first screen's weight (issue 13): the dashboard loads no ariakit and no sign-in code, the
// menus and dialogs fetch theirs when first used and then behave as before, by keyboard too.
import { expect, test, type Page } from "@playwright/test";
import { registerViaApi } from "./helpers";

/** Script URLs the page has requested so far. */
function scripts(page: Page) {
  const urls: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script") urls.push(new URL(r.url()).pathname);
  });
  return urls;
}

test("the dashboard is one script; the Tools menu fetches its code on first use and works by keyboard", async ({ page }) => {
  await registerViaApi(page.request);
  const loaded = scripts(page);
  await page.goto("/");
  await expect(page.getByRole("button", { name: "Add Topic" })).toBeEnabled();
  // Idle: nothing but the entry (no menu, dialog or sign-in chunk).
  await page.waitForTimeout(300);
  expect(loaded).toHaveLength(1);

  const tools = page.getByRole("button", { name: "Tools" });
  await expect(tools).toHaveAttribute("aria-haspopup", "menu");
  await expect(tools).toHaveAttribute("aria-expanded", "false");
  // Keyboard focus reaches it: the menu's code is fetched before any key is pressed.
  await tools.focus();
  await expect.poll(() => loaded.length).toBeGreaterThan(1);
  // As ariakit's own menu button: ArrowDown opens on the first item, ArrowUp on the last,
  // Escape closes and gives focus back to the button.
  await page.keyboard.press("ArrowDown");
  const menu = page.getByRole("menu", { name: "Tools" });
  await expect(menu.getByRole("menuitem")).toHaveText(["QR Code Generator", "Link Tracker", "Pic Drift Link Tracker"]);
  await expect(menu.getByRole("menuitem", { name: "QR Code Generator" })).toBeFocused();
  await expect(tools).toHaveAttribute("aria-expanded", "true");
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(tools).toBeFocused();
  await expect(tools).toHaveAttribute("aria-expanded", "false");
  await page.keyboard.press("ArrowUp");
  await expect(menu.getByRole("menuitem", { name: "Pic Drift Link Tracker" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(tools).toBeFocused();
  // Enter opens it again (first item focused); choosing a link navigates in the app.
  await page.keyboard.press("Enter");
  await expect(menu.getByRole("menuitem", { name: "QR Code Generator" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/link-tracker$/);
});

test("a mouse click opens the menu, a second click on its button closes it", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/");
  const tools = page.getByRole("button", { name: "Tools" });
  await tools.click();
  const menu = page.getByRole("menu", { name: "Tools" });
  await expect(menu).toBeVisible();
  await expect(menu).toBeFocused();
  await tools.click();
  await expect(menu).toBeHidden();
  await expect(tools).toHaveAttribute("aria-expanded", "false");
});

test("signed out, /auth needs no ariakit either, and its chunks arrive with the entry", async ({ page }) => {
  const loaded = scripts(page);
  const res = await page.goto("/auth");
  await expect(page.getByRole("heading", { name: "Welcome back" })).toBeVisible();
  const preloads = [...(res?.headers().link ?? "").matchAll(/<(\/chunk-[a-z0-9]+\.js)>; rel=modulepreload/g)].map((m) => m[1]);
  expect(preloads.length).toBeGreaterThan(0);
  // Every script the page ran was either the entry or named by the header.
  await page.waitForTimeout(300);
  expect(loaded.filter((u) => !preloads.includes(u))).toHaveLength(1);
});
