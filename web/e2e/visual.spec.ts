// Screenshot comparisons of the main screens at 1280 and 360 px (light; dark for two), so a
// layout regression fails the suite. Baselines live in web/e2e/__screenshots__/ and are
// committed; after an intended change of the UI, regenerate them (README, Development):
//   npm run build && npx playwright test web/e2e/visual.spec.ts --update-snapshots
// Deterministic by construction: fixed names and short codes, dates, phone numbers and the
// server's port rewritten to fixed text, the chart (today's dates on its axis) masked, animations off.
import { expect, test, type Page } from "@playwright/test";
import { buildScene, SCREENS, stateFor, type Scene } from "./scene";

const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 360, height: 740 } } as const;
/** Screens compared, in this order: the dashboard comes before the pages that change what it shows. */
const COMPARED = ["auth", "dashboard", "topic", "messages", "link-tracker", "analytics", "qr", "qr-styled", "pricing", "share", "not-found", "notifications"];
const DARK_TOO = new Set(["dashboard", "link-tracker"]);

let scene: Scene;
test.beforeAll(async ({ baseURL }) => {
  // Fixed names: they show on screen (the welcome line, share and invite pages).
  scene = await buildScene(baseURL!, "avery", "blake");
});

/**
 * Rewrites what differs between runs to fixed text of the same shape, so the layout around it
 * is still compared: server dates ("Nov 22, 2026 21:30"), topic phone numbers (random) and the
 * server's own address (the port is E2E_PORT's, so short URLs read "127.0.0.1:<port>/code"; a
 * baseline must not hold one machine's port). Field values are rewritten as well as text.
 */
async function freeze(page: Page) {
  await page.evaluate(() => {
    const fix = (t: string) =>
      t
        .replace(/\b[A-Z][a-z]{2} \d{1,2}, \d{4}( \d{2}:\d{2})?/g, (_m, time) => `Jan 1, 2026${time ? " 09:30" : ""}`)
        .replace(/\+1 \d{3}-\d{3}-\d{4}/g, "+1 555-010-0000")
        .replace(/\+1\d{10}\b/g, "+15550100000")
        .replace(/\b(127\.0\.0\.1|localhost):\d{1,5}\b/g, "$1:3917");
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const t = n.textContent ?? "";
      const fixed = fix(t);
      if (fixed !== t) n.textContent = fixed;
    }
    for (const field of document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("input, textarea")) {
      const fixed = fix(field.value);
      if (fixed !== field.value) field.value = fixed;
    }
  });
}

const screens = COMPARED.map((name) => SCREENS.find((s) => s.name === name)!);
for (const screen of screens) {
  const variants = [
    ...(["desktop", "phone"] as const).map((vp) => ({ vp, scheme: "light" as const })),
    ...(DARK_TOO.has(screen.name) ? (["desktop", "phone"] as const).map((vp) => ({ vp, scheme: "dark" as const })) : []),
  ];
  for (const { vp, scheme } of variants) {
    const id = `${screen.name}-${vp}-${scheme}`;
    test(`screenshot: ${id}`, async ({ browser }) => {
      const context = await browser.newContext({ storageState: stateFor(scene, screen.who), viewport: VIEWPORTS[vp], colorScheme: scheme });
      const page = await context.newPage();
      // The dashboard highlights topics younger than 5 s (spec §9): wait that out.
      const young = scene.madeAt + 6000 - Date.now();
      if (young > 0) await page.waitForTimeout(young);
      await page.goto(screen.path(scene));
      await expect(screen.ready(page, scene)).toBeVisible();
      await screen.open?.(page, scene);
      await page.evaluate(() => document.fonts.ready);
      await freeze(page);
      await expect(page).toHaveScreenshot(`${id}.png`, {
        // A dialog is compared as the screen shows it: the page behind it is scroll-locked.
        fullPage: !screen.open,
        // uPlot draws today's dates on its axis: its canvas is masked (a QR preview is the same every run).
        mask: [page.locator("canvas:not(.qr-preview)")],
      });
      await context.close();
    });
  }
}
