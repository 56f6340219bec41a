// Smart links (issue 24) in Chromium against the compiled binary: the password page a visitor
// meets (keyboard only, light and dark, 360 px, no script, axe), the Smart settings dialog and
// its rule simulator, and the Link Tracker's badges.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { expectNoHorizontalOverflow, registerViaApi, uniqueName } from "./helpers";

async function seriousAxe(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`);
}

async function protectedLink(page: Page, password: string) {
  await registerViaApi(page.request);
  const code = uniqueName("pw").replace(/[^A-Za-z0-9_-]/g, "").slice(0, 40);
  const r = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/secret-page", title: "Secret", shortCode: code } });
  expect(r.status()).toBe(201);
  const { id } = (await r.json()) as { id: number };
  expect((await page.request.put(`/api/links/${id}/smart`, { data: { password } })).status()).toBe(200);
  return { id, code };
}

for (const scheme of ["light", "dark"] as const)
  test(`password page, ${scheme} at 360 px, keyboard only: wrong password said, right one unlocks`, async ({ page }) => {
    const { code } = await protectedLink(page, "open sesame");
    // A fresh browser context for the visitor: the owner's session is not what unlocks it.
    await page.context().clearCookies();
    await page.setViewportSize({ width: 360, height: 740 });
    await page.emulateMedia({ colorScheme: scheme });
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text()));
    // The redirect target is outside: answered here so the test never leaves the machine.
    await page.route("https://example.com/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>Destination</title><h1>Destination</h1>" }));

    const res = await page.goto(`/${code}`);
    expect(res?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: "This link is password protected", level: 1 })).toBeVisible();
    expect(await page.locator("script").count()).toBe(0);
    await expectNoHorizontalOverflow(page);
    await expect(page.locator("body")).toHaveCSS("background-color", scheme === "dark" ? "rgb(15, 17, 21)" : "rgb(247, 247, 251)");
    expect(await seriousAxe(page)).toEqual([]);

    // Keyboard only: the field has focus (autofocus), type, Enter.
    const field = page.getByLabel("Password");
    await expect(field).toBeFocused();
    await page.keyboard.type("wrong guess");
    await page.keyboard.press("Enter");
    await expect(page.getByRole("alert")).toHaveText("That password is not right. Please try again.");
    await expect(page.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
    expect(await seriousAxe(page)).toEqual([]);
    await page.getByLabel("Password").focus();
    await page.keyboard.type("open sesame");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "Continue" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL("https://example.com/secret-page");
    // Unlocked: the next visit goes straight through (the browser's cookies, the redirect not followed).
    const again = await page.request.get(`/${code}`, { maxRedirects: 0 });
    expect(again.status()).toBe(302);
    expect(again.headers().location).toBe("https://example.com/secret-page");
    expect(errors).toEqual([]);
  });

test("Smart settings dialog: add a rule and a limit, the badges show, the simulator explains", async ({ page }) => {
  await registerViaApi(page.request);
  const r = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/app", title: "Get the app" } });
  expect(r.status()).toBe(201);
  await page.goto("/link-tracker");
  const row = page.locator("li.link-row", { hasText: "Get the app" });
  await row.getByRole("button", { name: "More actions for Get the app" }).click();
  await page.getByRole("menuitem", { name: "Smart settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Smart settings: Get the app" });
  await expect(dialog).toBeVisible();

  await dialog.getByRole("button", { name: "Add rule" }).click();
  await dialog.getByLabel("Rule 1 name").fill("iPhone");
  await dialog.getByLabel("Rule 1 destination").fill("https://apps.apple.com/app/id1");
  await dialog.getByLabel("Operating systems").fill("ios");
  await dialog.getByLabel("Maximum clicks (Optional)").fill("100");
  expect(await seriousAxe(page)).toEqual([]);
  await dialog.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Smart settings saved")).toBeVisible();
  await expect(row.getByText("Rules", { exact: true })).toBeVisible();
  await expect(row.getByText("Click limit", { exact: true })).toBeVisible();

  // The simulator answers from the saved settings.
  await row.getByRole("button", { name: "More actions for Get the app" }).click();
  await page.getByRole("menuitem", { name: "Smart settings" }).click();
  await expect(dialog.getByLabel("Rule 1 name")).toHaveValue("iPhone");
  await dialog.getByLabel("Operating system", { exact: true }).selectOption("ios");
  await dialog.getByRole("button", { name: "Simulate" }).click();
  await expect(dialog.getByText("https://apps.apple.com/app/id1")).toBeVisible();
  await expect(dialog.getByText("iPhone matched (rules are tried in order; the first match wins).")).toBeVisible();
  await dialog.getByLabel("Operating system", { exact: true }).selectOption("android");
  await dialog.getByRole("button", { name: "Simulate" }).click();
  await expect(dialog.getByText("No rule matched: the link's own destination.")).toBeVisible();
  await expect(dialog.getByText("✗ iPhone: OS is android, not ios")).toBeVisible();
  // This browser (desktop Chromium on Linux): not an iPhone.
  await dialog.getByRole("button", { name: "This browser, now" }).click();
  await expect(dialog.getByText("✗ iPhone: OS is linux, not ios")).toBeVisible();
  expect(await seriousAxe(page)).toEqual([]);
});

test("Smart settings dialog at 360 px, dark: fits, and a bad value is said", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.emulateMedia({ colorScheme: "dark" });
  await registerViaApi(page.request);
  expect((await page.request.post("/api/links", { data: { originalUrl: "https://example.com/x", title: "Narrow" } })).status()).toBe(201);
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "More actions for Narrow" }).click();
  await page.getByRole("menuitem", { name: "Smart settings" }).click();
  const dialog = page.getByRole("dialog", { name: "Smart settings: Narrow" });
  await dialog.getByLabel("Fallback URL after the limit (Optional)").fill("https://example.com/over");
  await dialog.getByRole("button", { name: "Save settings" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("A fallback URL needs a click limit");
  await expectNoHorizontalOverflow(page);
  expect(await seriousAxe(page)).toEqual([]);
});
