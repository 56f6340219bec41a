import { expect, test, type Page } from "@playwright/test";
import { expectNoHorizontalOverflow, expectReadableContrast, registerViaApi, trackOutsideRequests } from "./helpers";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const topicsInOrder = (page: Page) => page.getByRole("list", { name: "Your topics" }).getByRole("listitem");
const names = async (page: Page) => (await topicsInOrder(page).evaluateAll((els) => els.map((e) => e.getAttribute("aria-label"))));

/** dnd-kit measures the list after each key, so a person's pace (not a burst) is simulated. */
async function keys(page: Page, ...list: string[]) {
  for (const k of list) {
    await page.keyboard.press(k);
    await page.waitForTimeout(200);
  }
}

async function seed(page: Page, list: string[]) {
  for (const name of list) expect((await page.request.post("/api/topics", { data: { name } })).status()).toBe(201);
}

test("create, rename, copy the link of, and delete a topic", { tag: "@main-flow" }, async ({ page }) => {
  const outside = trackOutsideRequests(page);
  const username = await registerViaApi(page.request);
  await page.goto("/");
  await expect(page.getByText(`Welcome, ${username}`)).toBeVisible();
  await expect(page.getByText("No topics yet. Add your first topic above.")).toBeVisible();

  // Spec §5 validation, from the shared schema.
  await page.getByRole("button", { name: "Add Topic" }).click();
  await expect(page.getByText("Topic name is required")).toBeVisible();
  await page.getByLabel("Topic name").fill("x".repeat(51));
  await page.getByRole("button", { name: "Add Topic" }).click();
  await expect(page.getByText("Topic name must be less than 50 characters")).toBeVisible();

  await page.getByLabel("Topic name").fill("Weekend Plans");
  await page.getByRole("button", { name: "Add Topic" }).click();
  await expect(page.getByText("Topic created successfully")).toBeVisible();
  await expect(page.getByLabel("Topic name")).toHaveValue("");
  const row = page.getByRole("listitem", { name: "Weekend Plans" });
  await expect(row).toBeVisible();
  await expect(row).toHaveClass(/topic-new/);
  await expect(row).not.toHaveClass(/topic-new/, { timeout: 7000 });

  // Copy puts {host}/{username}/{linkSlug} on the clipboard.
  await row.getByRole("button", { name: "Copy link to Weekend Plans" }).click();
  await expect(page.getByText("Topic link copied to clipboard")).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${new URL(page.url()).origin}/${username}/weekend-plans`);

  // Rename: Cancel restores, Save updates; the access selector lives in edit mode.
  await row.getByRole("button", { name: "Edit" }).click();
  await row.getByLabel("Topic name").fill("Something else");
  await row.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("listitem", { name: "Weekend Plans" })).toBeVisible();
  await page.getByRole("listitem", { name: "Weekend Plans" }).getByRole("button", { name: "Edit" }).click();
  const editing = page.locator(".topic-row").filter({ has: page.getByRole("button", { name: "Save" }) });
  // The dashboard does not check the length of a rename; the server does, and says why.
  await editing.getByLabel("Topic name").fill("z".repeat(51));
  await editing.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Topic name must be less than 50 characters")).toBeVisible();
  await editing.getByLabel("Topic name").fill("Holiday Plans");
  await editing.getByLabel("Access").selectOption("public");
  await editing.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Topic updated successfully")).toBeVisible();
  const renamed = page.getByRole("listitem", { name: "Holiday Plans" });
  await expect(renamed.getByText("Public")).toBeVisible();
  // The old link still works.
  const old = await page.request.get(`/api/topic/${username}/weekend-plans`);
  expect((await old.json()).name).toBe("Holiday Plans");

  // The contact card downloads as a vCard.
  const download = page.waitForEvent("download");
  await renamed.getByRole("link", { name: "Download contact card for Holiday Plans" }).click();
  expect((await download).suggestedFilename()).toBe("holiday-plans.vcf");

  // Start Message opens the topic's page.
  await renamed.getByRole("button", { name: "Start Message" }).click();
  await expect(page).toHaveURL(new RegExp(`/${username}/holiday-plans$`));
  await page.goBack();

  // Delete asks first; Cancel keeps it.
  await page.getByRole("listitem", { name: "Holiday Plans" }).getByRole("button", { name: "Delete Holiday Plans" }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog.getByRole("heading", { name: "Are you sure?" })).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("listitem", { name: "Holiday Plans" })).toBeVisible();
  await page.getByRole("listitem", { name: "Holiday Plans" }).getByRole("button", { name: "Delete Holiday Plans" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Topic deleted successfully")).toBeVisible();
  await expect(page.getByRole("listitem", { name: "Holiday Plans" })).toHaveCount(0);
  await page.reload();
  await expect(page.getByText("No topics yet. Add your first topic above.")).toBeVisible();
  expect(outside).toEqual([]);
});

test("sort selectors: Newest, Oldest, Most Clicked, Custom Order; handles only in Custom Order", async ({ page, browser }) => {
  const username = await registerViaApi(page.request);
  await seed(page, ["Alpha", "Bravo", "Charlie"]);
  // Opens of Bravo's topic page by two other people make it the most clicked (2 clicks); the
  // first person's repeat open counts once, as opens count once per viewer per day.
  const ids = (await (await page.request.get("/api/topics")).json()) as { id: number; linkSlug: string }[];
  await page.request.put(`/api/topics/${ids[1]!.id}`, { data: { accessType: "public" } });
  for (const opens of [2, 1]) {
    const other = await browser.newContext();
    await registerViaApi(other.request);
    for (let i = 0; i < opens; i++) expect((await other.request.post(`/api/topic/${username}/bravo/open`)).status()).toBe(200);
    await other.close();
  }

  await page.goto("/");
  const sort = page.getByLabel("Sort");
  await sort.selectOption({ label: "Newest" });
  await expect.poll(() => names(page)).toEqual(["Charlie", "Bravo", "Alpha"]);
  await expect(page.getByRole("button", { name: /^Reorder/ })).toHaveCount(0);
  await sort.selectOption({ label: "Oldest" });
  await expect.poll(() => names(page)).toEqual(["Alpha", "Bravo", "Charlie"]);
  await sort.selectOption({ label: "Most Clicked" });
  await expect.poll(() => names(page)).toEqual(["Bravo", "Charlie", "Alpha"]);
  await expect(page.getByRole("listitem", { name: "Bravo" }).getByText("2 clicks")).toBeVisible();
  await sort.selectOption({ label: "Custom Order" });
  await expect.poll(() => names(page)).toEqual(["Alpha", "Bravo", "Charlie"]);
  await expect(page.getByRole("button", { name: /^Reorder/ })).toHaveCount(3);
  // The choice is remembered.
  await page.reload();
  await expect(page.getByLabel("Sort")).toHaveValue("custom");
});

test("drag reorder by pointer persists after reload", async ({ page }) => {
  await registerViaApi(page.request);
  await seed(page, ["One", "Two", "Three"]);
  await page.goto("/");
  await page.getByLabel("Sort").selectOption({ label: "Custom Order" });
  await expect.poll(() => names(page)).toEqual(["One", "Two", "Three"]);

  const handle = page.getByRole("button", { name: "Reorder One" });
  const target = page.getByRole("listitem", { name: "Three" });
  const from = (await handle.boundingBox())!;
  const to = (await target.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 + 5, { steps: 2 });
  await page.mouse.move(from.x + from.width / 2, to.y + to.height / 2 + 10, { steps: 12 });
  await page.mouse.up();
  await expect.poll(() => names(page)).toEqual(["Two", "Three", "One"]);

  await page.reload();
  await expect.poll(() => names(page)).toEqual(["Two", "Three", "One"]);
});

test("drag reorder by keyboard persists after reload", async ({ page }) => {
  await registerViaApi(page.request);
  await seed(page, ["Red", "Green", "Blue"]);
  await page.goto("/");
  await page.getByLabel("Sort").selectOption({ label: "Custom Order" });
  await expect.poll(() => names(page)).toEqual(["Red", "Green", "Blue"]);

  await page.getByRole("button", { name: "Reorder Blue" }).focus();
  await keys(page, "Space", "ArrowUp", "ArrowUp", "Space");
  await expect.poll(() => names(page)).toEqual(["Blue", "Red", "Green"]);

  // Escape cancels a keyboard drag: nothing moves.
  await page.getByRole("button", { name: "Reorder Red" }).focus();
  await keys(page, "Space", "ArrowDown", "Escape");
  await expect.poll(() => names(page)).toEqual(["Blue", "Red", "Green"]);

  await page.reload();
  await expect.poll(() => names(page)).toEqual(["Blue", "Red", "Green"]);
});

test("a failed reorder restores the previous order and says so", async ({ page }) => {
  await registerViaApi(page.request);
  await seed(page, ["First", "Second"]);
  await page.goto("/");
  await page.getByLabel("Sort").selectOption({ label: "Custom Order" });
  await page.route("**/api/topics/reorder", (route) =>
    route.fulfill({ status: 400, contentType: "application/json", body: JSON.stringify({ error: { code: "BAD_REQUEST", message: "Reorder refused" } }) }),
  );
  await page.getByRole("button", { name: "Reorder Second" }).focus();
  await keys(page, "Space", "ArrowUp", "Space");
  await expect(page.getByText("Reorder refused")).toBeVisible();
  await expect.poll(() => names(page)).toEqual(["First", "Second"]);
});

test("the mobile menu at 375 px holds the spec's items in order; row actions sit in a menu", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await registerViaApi(page.request);
  await seed(page, ["Pocket"]);
  await page.goto("/");
  await expect(page.getByRole("button", { name: "Sign out" })).toBeHidden();
  await page.getByRole("button", { name: "Open menu" }).click();
  const menu = page.getByRole("dialog", { name: "Menu" });
  await expect(menu).toBeVisible();
  const items = await menu.locator("li").allInnerTexts();
  expect(items.map((s) => s.trim())).toEqual([
    "Home",
    "Pricing",
    "About Us",
    "How to Use",
    "Notifications",
    "QR Code Generator",
    "Link Tracker",
    "Pic Drift Link Tracker",
    "Sign out",
  ]);
  await menu.getByRole("link", { name: "How to Use" }).click();
  await expect(page).toHaveURL(/\/how-to-use$/);
  await expect(page.getByRole("heading", { name: /How to Use/ })).toBeVisible();

  await page.goto("/");
  const row = page.getByRole("listitem", { name: "Pocket" });
  await expect(row.getByRole("button", { name: "Start Message" })).toBeHidden();
  await row.getByRole("button", { name: "Actions for Pocket" }).click();
  const actions = page.getByRole("menu");
  await expect(actions.getByRole("menuitem")).toHaveText(["Copy", "Start Message", "Edit", "Download contact card", "Delete"]);
  await actions.getByRole("menuitem", { name: "Delete" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(page.getByText("Topic deleted successfully")).toBeVisible();
  // No sideways scrolling at this width.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
});

test("at 360 px, light and dark: no sideways scrolling, also renaming or in Custom Order; Escape cancels a rename", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await registerViaApi(page.request);
  const long = "Groceries and other household things";
  await seed(page, ["x".repeat(50), long]);
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto("/");
    // The theme follows the system until the user picks one.
    if (scheme === "dark") await expect(page.locator("html")).toHaveClass(/\bdark\b/);
    else await expect(page.locator("html")).not.toHaveClass(/\bdark\b/);
    const row = page.getByRole("listitem", { name: long });
    await expect(row).toBeVisible();
    await expectNoHorizontalOverflow(page);
    await expect(page).toHaveTitle("Your topics · Threadlink");

    await row.getByRole("button", { name: `Actions for ${long}` }).click();
    await page.getByRole("menuitem", { name: "Edit" }).click();
    const input = row.getByLabel("Topic name");
    await expect(input).toBeFocused();
    // The Access select's longest option once pushed the row wider than the list.
    await expectNoHorizontalOverflow(page);
    await input.fill("Changed my mind");
    await page.keyboard.press("Escape");
    await expect(input).toHaveCount(0);
    await expect(row).toContainText(long);
    // Focus goes back to the row's menu button, not to the top of the page.
    await expect(row.getByRole("button", { name: `Actions for ${long}` })).toBeFocused();

    // The delete confirmation reads clearly in both themes (white on dark mode's light red did not).
    await row.getByRole("button", { name: `Actions for ${long}` }).click();
    await page.getByRole("menuitem", { name: "Delete" }).click();
    const confirm = page.getByRole("alertdialog");
    await expectReadableContrast(confirm.getByRole("button", { name: "Delete" }));
    await expectReadableContrast(confirm.getByRole("button", { name: "Cancel" }));
    await expectReadableContrast(confirm.getByText(/This action cannot be undone/));
    await page.keyboard.press("Escape");
    await expect(confirm).toHaveCount(0);

    await page.getByLabel("Sort").selectOption({ label: "Custom Order" });
    await expect(row.getByRole("button", { name: `Reorder ${long}` })).toBeVisible();
    await expectNoHorizontalOverflow(page);
    await page.getByLabel("Sort").selectOption({ label: "Newest" });
    await page.getByLabel("View").selectOption({ label: "Shared (0)" });
    await expect(page.getByRole("button", { name: "Share Topics" })).toBeVisible();
    await expectNoHorizontalOverflow(page);
  }
  const topics = (await (await page.request.get("/api/topics")).json()) as { name: string }[];
  expect(topics.map((t) => t.name).sort()).toEqual([long, "x".repeat(50)]);
});

test("desktop: Escape cancels a rename and focus returns to its Edit button", async ({ page }) => {
  await registerViaApi(page.request);
  await seed(page, ["Desk"]);
  await page.goto("/");
  const row = page.getByRole("listitem", { name: "Desk" });
  await row.getByRole("button", { name: "Edit" }).click();
  await row.getByLabel("Topic name").fill("Nope");
  await page.keyboard.press("Escape");
  await expect(row.getByLabel("Topic name")).toHaveCount(0);
  await expect(row.getByRole("button", { name: "Edit" })).toBeFocused();
  await expect(row).toContainText("Desk");
});
