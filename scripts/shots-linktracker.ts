// Before/after screenshots of the Link Tracker (issue 25, "Done when"): starts a binary on a
// fresh data dir, seeds one account with 15 links (clicks, tags and smart settings where the
// build has them), and saves full-page screenshots at 1280×800 and 360×800, light and dark,
// as OUT_DIR/PREFIX-{1280,360}-{light,dark}.png. Prints how many link rows are wholly visible
// in the first 1280×800 screen. Not part of `npm test`: run it by hand on two builds, e.g.
//   bun run scripts/shots-linktracker.ts /tmp/before/dist/threadlink before 47333
//   bun run scripts/shots-linktracker.ts dist/threadlink after 47334
import { chromium, request as apiRequest } from "@playwright/test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [binary, prefix, portArg] = process.argv.slice(2);
if (!binary || !prefix || !portArg) throw new Error("usage: shots-linktracker.ts BINARY PREFIX PORT [OUT_DIR]");
const outDir = process.argv[5] ?? "/work/shots";
const base = `http://127.0.0.1:${portArg}`;
const dataDir = mkdtempSync(join(tmpdir(), "threadlink-shots-"));
mkdirSync(outDir, { recursive: true });

const server = Bun.spawn([binary, "serve"], {
  env: { ...process.env, PORT: portArg, HOST: "127.0.0.1", DATA_DIR: dataDir, PUBLIC_URL: base, API_ANON_RATE_LIMIT: "1000000", LOG_LEVEL: "warn" },
  stdout: "ignore",
  stderr: "inherit",
});

async function waitForHealth() {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await Bun.sleep(200);
  }
  throw new Error("the server did not answer /api/health");
}

// Fifteen links, as a real account's list: campaigns, docs, a long destination, a few tagged.
const LINKS: { title: string; url: string; tags: string[]; clicks: number; smart?: object }[] = [
  { title: "Spring sale landing page", url: "https://shop.example.com/campaigns/spring-sale-2026?utm_source=newsletter", tags: ["campaign", "spring"], clicks: 42, smart: { maxClicks: 500 } },
  { title: "Product docs: getting started", url: "https://docs.example.com/getting-started", tags: ["docs"], clicks: 17 },
  { title: "Conference talk slides", url: "https://slides.example.org/2026/conf/threadlink-talk", tags: ["talks"], clicks: 9 },
  { title: "Careers", url: "https://example.com/careers", tags: [], clicks: 3 },
  { title: "Podcast episode 12", url: "https://podcast.example.net/episodes/12-the-one-about-links", tags: ["podcast"], clicks: 25 },
  { title: "Beta sign-up form", url: "https://forms.example.com/beta-signup", tags: ["campaign"], clicks: 11, smart: { password: "early birds" } },
  { title: "Newsletter archive", url: "https://news.example.com/archive", tags: ["newsletter"], clicks: 6 },
  { title: "Pricing", url: "https://example.com/pricing", tags: [], clicks: 14 },
  { title: "Support: reset your password", url: "https://support.example.com/articles/reset-password", tags: ["docs", "support"], clicks: 4 },
  { title: "Summer preview (A/B)", url: "https://shop.example.com/summer-preview", tags: ["campaign"], clicks: 8 },
  { title: "Community forum", url: "https://forum.example.org/", tags: ["community"], clicks: 19 },
  { title: "Release notes 4.2", url: "https://example.com/releases/4.2", tags: ["docs"], clicks: 2 },
  { title: "Webinar registration", url: "https://events.example.com/webinars/links-at-scale", tags: ["events"], clicks: 7 },
  { title: "Mobile app download", url: "https://example.com/app", tags: ["mobile"], clicks: 31 },
  { title: "Partner program", url: "https://partners.example.com/apply", tags: [], clicks: 1 },
];

let rowsVisible: number | null = null;
try {
  await waitForHealth();
  const api = await apiRequest.newContext({ baseURL: base });
  const username = "shots";
  const reg = await api.post("/api/register", { data: { username, password: "correct horse battery", email: "shots@example.test" } });
  if (reg.status() !== 201) throw new Error(`sign-up: ${reg.status()} ${await reg.text()}`);
  const made: { id: number; shortUrl: string; clicks: number; smart?: object }[] = [];
  for (const l of LINKS) {
    let r = await api.post("/api/links", { data: { originalUrl: l.url, title: l.title, tags: l.tags } });
    // A build without tags refuses the field: the link without it.
    if (r.status() === 400) r = await api.post("/api/links", { data: { originalUrl: l.url, title: l.title } });
    if (r.status() !== 201) throw new Error(`create: ${r.status()} ${await r.text()}`);
    const body = await r.json();
    made.push({ id: body.id, shortUrl: body.shortUrl, clicks: l.clicks, smart: l.smart });
  }
  // Clicks before the smart settings (a password would stop them); each from its own address.
  const visitor = await apiRequest.newContext();
  let n = 0;
  for (const m of made) {
    const path = new URL(m.shortUrl).pathname;
    for (let i = 0; i < m.clicks; i++) {
      n++;
      await visitor.get(`${base}${path}`, { maxRedirects: 0, headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36", "x-forwarded-for": `198.51.100.${(n % 250) + 1}` } });
    }
  }
  for (const m of made) if (m.smart) await api.put(`/api/links/${m.id}/smart`, { data: m.smart }).catch(() => null);
  // The click writer flushes on its own schedule: wait until the counts are in.
  const want = LINKS.reduce((s, l) => s + l.clicks, 0);
  for (let i = 0; i < 50; i++) {
    const list = (await (await api.get("/api/links?limit=100")).json()) as { clickCount: number }[];
    if (list.reduce((s, l) => s + l.clickCount, 0) >= want) break;
    await Bun.sleep(200);
  }
  const state = await api.storageState();

  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  for (const width of [1280, 360]) {
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ storageState: state, viewport: { width, height: 800 }, colorScheme });
      const page = await context.newPage();
      await page.goto(`${base}/link-tracker`);
      await page.getByRole("heading", { name: "Partner program" }).first().waitFor();
      await page.waitForTimeout(500);
      const file = join(outDir, `${prefix}-${width}-${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: true, animations: "disabled" });
      if (width === 1280 && colorScheme === "light") {
        // Rows wholly inside the first screen (0–800 px), by each row's own box.
        rowsVisible = await page.evaluate(() => {
          const rows = [...document.querySelectorAll("main ul.link-list > li")];
          return rows.filter((r) => {
            const b = r.getBoundingClientRect();
            return b.top >= 0 && b.bottom <= window.innerHeight;
          }).length;
        });
      }
      console.log(`saved ${file}`);
      await context.close();
    }
  }
  await browser.close();
  console.log(`${prefix}: ${rowsVisible} link rows wholly visible at 1280×800`);
} finally {
  server.kill();
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
