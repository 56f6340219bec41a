import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { registerViaApi } from "./helpers";

// Tags on the Link Tracker (issue 23): typed in the create and edit dialogs, shown on the rows,
// filtered by, and managed (rename, colour, delete) in their own dialog, all by keyboard.
const row = (page: Page, title: string) => page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

async function create(page: Page, title: string, tags: string) {
  await page.getByRole("button", { name: "Create Link" }).click();
  const dialog = page.getByRole("dialog", { name: "Create Short Link" });
  await dialog.getByLabel("URL").fill(`https://example.com/${encodeURIComponent(title)}`);
  await dialog.getByLabel("Title", { exact: true }).fill(title);
  await dialog.getByLabel("Tags (Optional)").fill(tags);
  await dialog.getByLabel("Tags (Optional)").press("Enter");
  await expect(dialog).toBeHidden();
}

test("tag links, filter by a tag, rename, recolour and delete it", async ({ page }) => {
  await registerViaApi(page.request);
  await page.goto("/link-tracker");
  await create(page, "Spring sale", "spring, sale");
  await create(page, "Newsletter", "news");
  await expect(row(page, "Spring sale").getByRole("list", { name: "Tags" })).toHaveText(/sale\s*spring/);

  // The filter lists the user's tags; choosing one narrows the list.
  await page.getByRole("button", { name: "Filter by tags: All tags" }).click();
  await page.getByRole("option", { name: "spring" }).click();
  await expect(row(page, "Spring sale")).toBeVisible();
  await expect(row(page, "Newsletter")).toBeHidden();
  await page.getByRole("option", { name: "spring" }).click();
  await page.keyboard.press("Escape");
  await expect(row(page, "Newsletter")).toBeVisible();

  // Edit: the tags field holds the link's tags; a new list replaces them.
  await row(page, "Newsletter").getByRole("button", { name: "More actions for Newsletter" }).click();
  await page.getByRole("menuitem", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Link" });
  await expect(edit.getByLabel("Tags (Optional)")).toHaveValue("news");
  await edit.getByLabel("Tags (Optional)").fill("news, weekly");
  await edit.getByRole("button", { name: "Save Changes" }).click();
  await expect(edit).toBeHidden();
  await expect(row(page, "Newsletter").getByRole("list", { name: "Tags" })).toHaveText(/news\s*weekly/);

  // Manage tags: rename by keyboard, recolour, delete.
  await page.getByRole("button", { name: "Manage tags" }).click();
  const manage = page.getByRole("dialog", { name: "Manage tags" });
  const name = manage.getByLabel("Name of tag spring");
  await name.fill("springtime");
  await name.press("Enter");
  await expect(manage.getByLabel("Name of tag springtime")).toBeVisible();
  await manage.getByLabel("Colour of tag springtime").selectOption("green");
  await expect(manage.getByLabel("Colour of tag springtime")).toHaveValue("green");
  // A tag's combined clicks: one visit to the Spring sale link.
  const spring = (await page.request.get("/api/links?tags=springtime").then((r) => r.json()))[0];
  await page.request.get(new URL(spring.shortUrl).pathname, { maxRedirects: 0 });
  await manage.getByRole("button", { name: "Clicks of tag springtime" }).click();
  await expect(manage.getByText(/1\s+click in all, 1 in the last 30 days, on\s+1\s+link\./)).toBeVisible();
  await expect(manage.getByRole("list", { name: "Most clicked links tagged springtime" })).toContainText("Spring sale");
  await manage.getByRole("button", { name: "Delete tag weekly" }).click();
  await expect(manage.getByLabel("Name of tag weekly")).toBeHidden();
  await manage.getByRole("button", { name: "Done" }).click();
  await expect(row(page, "Spring sale").getByRole("list", { name: "Tags" })).toHaveText(/sale\s*springtime/);
  await expect(row(page, "Newsletter").getByRole("list", { name: "Tags" })).toHaveText(/^\s*news\s*$/);
  await expect(row(page, "Spring sale").locator(".tag-dot.tag-green")).toHaveCount(1);
});

test("at 360 px the tag controls fit without sideways scrolling", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await registerViaApi(page.request);
  await page.goto("/link-tracker");
  await create(page, "Phone", "a-rather-long-tag-name-for-a-phone, short");
  await page.getByRole("button", { name: "Manage tags" }).click();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
  expect(overflow).toBe(false);
});

test("the Manage tags dialog and tag chips: no serious axe violation, light and dark", async ({ page }) => {
  await registerViaApi(page.request);
  await page.request.post("/api/links", { data: { originalUrl: "https://example.com/axe", title: "Axe", tags: ["alpha", "beta"] } });
  await page.request.post("/api/tags", { data: { name: "gamma", color: "purple" } });
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.goto("/link-tracker");
    await expect(row(page, "Axe").getByRole("list", { name: "Tags" })).toBeVisible();
    await page.getByRole("button", { name: "Manage tags" }).click();
    const manage = page.getByRole("dialog", { name: "Manage tags" });
    await manage.getByRole("button", { name: "Clicks of tag alpha" }).click();
    await expect(manage.getByText(/clicks? in all/)).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
    for (const v of violations.filter((v) => v.impact === "serious" || v.impact === "critical")) found.push(`[${colorScheme}] ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  }
  expect(found).toEqual([]);
});

test("filter by several tags at once, by keyboard: only links carrying every chosen tag", async ({ page }) => {
  await registerViaApi(page.request);
  for (const [title, tags] of [["Red apple", ["fruit", "red"]], ["Green apple", ["fruit", "green"]], ["Red car", ["red", "vehicle"]], ["Untagged", []]] as const) {
    expect((await page.request.post("/api/links", { data: { originalUrl: `https://example.com/${encodeURIComponent(title)}`, title, tags } })).status()).toBe(201);
  }
  await page.goto("/link-tracker");
  await expect(row(page, "Untagged")).toBeVisible();

  // Keyboard only: focus the filter, ArrowDown opens its list on the first option.
  const button = page.getByRole("button", { name: "Filter by tags: All tags" });
  await button.focus();
  await page.keyboard.press("ArrowDown");
  const list = page.getByRole("listbox", { name: "Filter by tags" });
  await expect(list).toBeVisible();
  await expect(list).toHaveAttribute("aria-multiselectable", "true");
  await expect(list.getByRole("option")).toHaveText(["fruit", "green", "red", "vehicle"]);
  await expect(list.getByRole("option", { name: "fruit" })).toBeFocused();
  // Space ticks fruit; two down to red, Enter ticks it too; the list stays open between choices.
  await page.keyboard.press(" ");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await expect(list.getByRole("option", { name: "red" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(list.getByRole("option", { name: "fruit" })).toHaveAttribute("aria-selected", "true");
  await expect(list.getByRole("option", { name: "red" })).toHaveAttribute("aria-selected", "true");
  await expect(list.getByRole("option", { name: "green" })).toHaveAttribute("aria-selected", "false");
  // Escape closes the list and gives the focus back to its button, which names both tags.
  await page.keyboard.press("Escape");
  await expect(list).toBeHidden();
  const chosen = page.getByRole("button", { name: "Filter by tags: Tags: fruit, red" });
  await expect(chosen).toBeFocused();
  // Both tags: only the link carrying both.
  await expect(row(page, "Red apple")).toBeVisible();
  for (const gone of ["Green apple", "Red car", "Untagged"]) await expect(row(page, gone)).toBeHidden();
  await expect(page.getByRole("list", { name: "Links" }).locator(":scope > li")).toHaveCount(1);

  // Untick fruit: every red link.
  await chosen.press("Enter");
  await expect(list.getByRole("option", { name: "fruit" })).toBeFocused();
  await page.keyboard.press(" ");
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "Filter by tags: Tags: red" })).toBeFocused();
  await expect(row(page, "Red apple")).toBeVisible();
  await expect(row(page, "Red car")).toBeVisible();
  await expect(row(page, "Green apple")).toBeHidden();

  // A search narrows it further, and clears back.
  await page.getByLabel("Search links").fill("ca");
  await expect(row(page, "Red apple")).toBeHidden();
  await expect(row(page, "Red car")).toBeVisible();
});

test("the several-tags filter at 360 px: its button and open list fit the screen", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await registerViaApi(page.request);
  const long = ["a-long-tag-name-for-phones", "another-long-tag-name-here", "short"];
  expect((await page.request.post("/api/links", { data: { originalUrl: "https://example.com/phone", title: "Phone", tags: long } })).status()).toBe(201);
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "Filter by tags: All tags" }).click();
  for (const t of long) await page.getByRole("option", { name: t }).click();
  const list = page.getByRole("listbox", { name: "Filter by tags" });
  const box = (await list.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(360);
  await page.keyboard.press("Escape");
  await expect(row(page, "Phone")).toBeVisible();
  const button = (await page.getByRole("button", { name: /^Filter by tags: Tags: / }).boundingBox())!;
  expect(button.x + button.width).toBeLessThanOrEqual(360);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
  expect(overflow).toBe(false);
});
