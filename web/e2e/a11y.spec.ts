// Accessibility checked by machine: axe-core on every screen, in light and dark, with no
// serious or critical violation (WCAG 2.1 A and AA rules). A violation is printed with its
// rule, help text and the offending elements, so the failure says what to fix.
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { registerViaApi, uniqueName } from "./helpers";
import { buildScene, SCREENS, stateFor, type Scene } from "./scene";

let scene: Scene;
test.beforeAll(async ({ baseURL }) => {
  const owner = uniqueName("axeowner");
  scene = await buildScene(baseURL!, owner, uniqueName("axefriend"), `-${owner}`);
});

for (const screen of SCREENS) {
  test(`axe: ${screen.name}, light and dark`, async ({ browser }) => {
    const context = await browser.newContext({ storageState: stateFor(scene, screen.who) });
    const page = await context.newPage();
    const found: string[] = [];
    for (const colorScheme of ["light", "dark"] as const) {
      // Loaded afresh per scheme: index.html picks the theme from prefers-color-scheme at load.
      await page.emulateMedia({ colorScheme });
      await (screen.load ? screen.load(page, scene) : page.goto(screen.path(scene)));
      await expect(screen.ready(page, scene)).toBeVisible();
      await screen.open?.(page, scene);
      // The app marks dark mode with a class; the server's visitor pages use a media query only.
      if (!screen.load) await expect(page.locator("html")).toHaveClass(colorScheme === "dark" ? /\bdark\b/ : /^(?!.*\bdark\b)/);
      const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
      for (const v of violations.filter((v) => v.impact === "serious" || v.impact === "critical")) {
        const where = v.nodes.slice(0, 5).map((n) => `    ${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ").trim()}`);
        found.push(`[${colorScheme}] ${v.id} (${v.impact}): ${v.help} — ${v.nodes.length} element(s)\n${where.join("\n")}`);
      }
    }
    await context.close();
    expect(found, `serious or critical axe violations on ${screen.path(scene)}:\n${found.join("\n")}`).toEqual([]);
  });
}

// The newest dialogs and screens (issues 23–26), each opened the way a user opens it and checked
// in light and dark: Smart settings, Manage tags (with the tag filter's list open), the QR style
// controls (the scenes qr-styled and brand-qr above), Settings → Webhooks, a public stats page
// and the Import screen with a JSON export previewed and imported.
async function seriousViolations(page: Page, scheme: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `[${scheme}] ${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 5).map((n) => n.target.join(" ")).join(", ")}`);
}

/** Loads `path` in each colour scheme, runs `open`, and collects axe's serious or critical findings. */
async function axeLightAndDark(page: Page, path: string, open: () => Promise<void>) {
  const found: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.goto(path);
    await open();
    found.push(...(await seriousViolations(page, colorScheme)));
  }
  expect(found, found.join("\n")).toEqual([]);
}

const rowMenu = async (page: Page, title: string, item: string) => {
  await page.getByRole("button", { name: `More actions for ${title}` }).click();
  await page.getByRole("menu").getByRole("menuitem", { name: item }).click();
};

test.describe("axe on the newest dialogs", () => {
  test.beforeEach(async ({ page }) => {
    await registerViaApi(page.request);
    const made = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/axe-dialogs", title: "Axe dialogs", tags: ["alpha", "beta"] } });
    expect(made.status()).toBe(201);
  });

  test("Smart settings dialog", async ({ page }) => {
    await axeLightAndDark(page, "/link-tracker", async () => {
      await rowMenu(page, "Axe dialogs", "Smart settings");
      await expect(page.getByRole("dialog", { name: "Smart settings: Axe dialogs" })).toBeVisible();
    });
  });

  test("Manage tags dialog, and the tag filter's open list", async ({ page }) => {
    await axeLightAndDark(page, "/link-tracker", async () => {
      await page.getByRole("button", { name: /^Filter by tags:/ }).click();
      await expect(page.getByRole("listbox", { name: "Filter by tags" })).toBeVisible();
      await page.getByRole("option", { name: "alpha" }).click();
      await expect(page.getByRole("option", { name: "alpha" })).toHaveAttribute("aria-selected", "true");
      expect(await seriousViolations(page, "list open")).toEqual([]);
      await page.keyboard.press("Escape");
      await page.getByRole("button", { name: "Manage tags" }).click();
      await expect(page.getByRole("dialog", { name: "Manage tags" }).getByLabel("Name of tag alpha")).toBeVisible();
    });
  });

  test("Settings → Webhooks with a webhook and its secret dialog", async ({ page }) => {
    await axeLightAndDark(page, "/settings/webhooks", async () => {
      const section = page.getByRole("region", { name: "Webhooks", exact: true });
      await expect(section).toBeVisible();
      await section.getByLabel("Endpoint URL").fill(`https://hooks.example.invalid/${uniqueName("in")}`);
      await section.getByRole("button", { name: "Add webhook" }).click();
      await expect(page.getByRole("dialog", { name: "Webhook added" })).toBeVisible();
    });
    await page.getByRole("dialog", { name: "Webhook added" }).getByRole("button", { name: "Done" }).click();
    expect(await seriousViolations(page, "list")).toEqual([]);
  });

  test("a public stats page and its dialog", async ({ page, browser }) => {
    await axeLightAndDark(page, "/link-tracker", async () => {
      await rowMenu(page, "Axe dialogs", "Public stats page");
      const dialog = page.getByRole("dialog", { name: "Public stats page: Axe dialogs" });
      const publish = dialog.getByRole("button", { name: "Publish stats page" });
      const address = dialog.getByLabel("Address of the stats page");
      await expect(publish.or(address)).toBeVisible();
      if (await publish.isVisible()) await publish.click();
      await expect(address).toHaveValue(/\/public\/stats\//);
    });
    const url = await page.getByRole("dialog", { name: "Public stats page: Axe dialogs" }).getByLabel("Address of the stats page").inputValue();
    const viewer = await browser.newContext();
    const stats = await viewer.newPage();
    await axeLightAndDark(stats, url, async () => {
      await expect(stats.getByRole("heading", { name: "Axe dialogs", level: 1 })).toBeVisible();
    });
    await viewer.close();
  });

  test("the Import screen: a JSON export chosen, previewed and imported", async ({ page }) => {
    const exported = await (await page.request.get("/api/links/export.json")).text();
    // Imported into the same account its codes are taken: the report has a skipped row to show.
    await axeLightAndDark(page, "/link-tracker/import", async () => {
      await expect(page.getByText("No file chosen")).toBeVisible();
      expect(await seriousViolations(page, "empty")).toEqual([]);
      await page.getByLabel("CSV or JSON file").setInputFiles({ name: "links.json", mimeType: "application/json", buffer: Buffer.from(exported) });
      await expect(page.getByText("Detected format:")).toContainText("This app's JSON export");
      await page.getByRole("button", { name: "Import", exact: true }).click();
      await expect(page.getByText(/^Done: \d+ imported, \d+ skipped\.$/)).toBeVisible();
    });
  });
});
