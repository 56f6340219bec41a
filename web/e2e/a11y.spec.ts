// Accessibility checked by machine: axe-core on every screen, in light and dark, with no
// serious or critical violation (WCAG 2.1 A and AA rules). A violation is printed with its
// rule, help text and the offending elements, so the failure says what to fix.
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { uniqueName } from "./helpers";
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
