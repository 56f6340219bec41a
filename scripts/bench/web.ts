// Web app benchmark (issue 13): first-load weight and dashboard speed, in Debian's Chromium
// against the compiled binary. Loopback only; prints figures and a verdict per target; not part
// of `npm test`.
//
//   node_modules/.bin/bun run scripts/build.ts && node_modules/.bin/bun run scripts/bench/web.ts
//   BENCH_BINARY=.tmp/x/threadlink BENCH_PORT=4510 BENCH_RUNS=15 bun run scripts/bench/web.ts
//   BENCH_BASELINE=.tmp/old/threadlink …   # also time an older build, run for run, same load
//
// 1. Starts the binary on 127.0.0.1 with an empty data dir, signs up a user and gives it 20
//    topics (and a few links).
// 2. First load, fresh browser context each time (empty cache): the bytes each JS and CSS
//    response actually put on the wire (encoded body, as Chromium counts it) for `/` signed in
//    and for `/auth`, and which files they were.
// 3. Dashboard interactive, BENCH_RUNS times, cold (fresh context) and warm (reload, hashed
//    files from the cache): from navigation start (performance.timeOrigin) until the topic
//    list shows all 20 rows with their Start Message buttons, and the add-topic form's button
//    and the sort selector are enabled. An observer installed before any page script notes
//    the first moment all of that holds. Median, min and max.
// 4. The visitor pages: bytes of the 404 (unknown code) and 410 (expired) pages, and that they
//    load nothing else.
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const binary = resolve(process.env.BENCH_BINARY ?? "dist/threadlink");
const PORT = Number(process.env.BENCH_PORT ?? 3393);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const HOST = "127.0.0.1"; // loopback only, always
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
const TOPICS = 20;
const FIRST_LOAD_BUDGET = 150 * 1024;
const INTERACTIVE_BUDGET_MS = 300;
const VISITOR_BUDGET = 10 * 1024;

if (!(await Bun.file(binary).exists())) {
  console.error(`No binary at ${binary}: run \`bun run scripts/build.ts\` first (or set BENCH_BINARY).`);
  process.exit(2);
}

type Server = { bin: string; base: string; cookieName: string; cookieValue: string; stop: () => void };

/** Starts a binary on 127.0.0.1:port with an empty data dir and the bench user's data. */
async function start(bin: string, port: number): Promise<Server> {
  const base = `http://${HOST}:${port}`;
  const dir = mkdtempSync(join(tmpdir(), "threadlink-webbench-"));
  const proc = Bun.spawn([bin, "serve"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST, DATA_DIR: dir, PUBLIC_URL: base, LOG_LEVEL: "warn", FREE_TOPIC_LIMIT: "1000" },
    stdout: "ignore",
    stderr: "inherit",
  });
  const stop = () => {
    proc.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/api/health`).catch(() => null))?.ok) break;
      if (i > 100) throw new Error(`${bin} did not answer /api/health`);
      await Bun.sleep(100);
    }
    const json = { "content-type": "application/json", origin: base };
    const reg = await fetch(`${base}/api/register`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ username: "benchuser", password: "bench-password-1", email: "bench@example.test" }),
    });
    if (reg.status !== 201) throw new Error(`sign-up: ${reg.status} ${await reg.text()}`);
    const session = (reg.headers.get("set-cookie") ?? "").split(";")[0]!;
    const [cookieName, cookieValue] = session.split("=") as [string, string];
    const authed = { ...json, cookie: session };
    for (let i = 1; i <= TOPICS; i++) {
      const r = await fetch(`${base}/api/topics`, { method: "POST", headers: authed, body: JSON.stringify({ name: `Bench topic ${i}` }) });
      if (r.status !== 201) throw new Error(`topic ${i}: ${r.status} ${await r.text()}`);
    }
    const expired = await fetch(`${base}/api/links`, {
      method: "POST",
      headers: authed,
      body: JSON.stringify({ originalUrl: "https://example.com/", title: "Old", shortCode: "benchexpired", expiresAt: new Date(Date.now() + 1000).toISOString() }),
    });
    if (expired.status !== 201) throw new Error(`link: ${expired.status} ${await expired.text()}`);
    return { bin, base, cookieName, cookieValue, stop };
  } catch (e) {
    stop();
    throw e;
  }
}

// --- 1. Servers with data ------------------------------------------------------------------
const servers: Server[] = [];
const stop = () => servers.forEach((s) => s.stop());
try {
  servers.push(await start(binary, PORT));
  // BENCH_BASELINE: another build (say, before a change) measured in the same runs, turn about,
  // so both see the same machine load; on a shared VM that is the fair comparison.
  if (BASELINE) servers.push(await start(BASELINE, PORT + 1));
  const [main] = servers as [Server];
  const { base } = main;

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"],
  });
  const newContext = async (signedIn: boolean, server: Server = main) => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    if (signedIn) await ctx.addCookies([{ name: server.cookieName, value: server.cookieValue, url: server.base }]);
    await ctx.addInitScript(INTERACTIVE_PROBE, TOPICS);
    return ctx;
  };

  // --- 2. First-load weight ----------------------------------------------------------------
  // start/end: epoch ms, from Playwright's request timing.
  type Row = { url: string; type: string; wire: number; raw: number; encoding: string; start: number; end: number };
  async function firstLoad(path: string, signedIn: boolean, ready: (p: Page) => Promise<unknown>) {
    const ctx = await newContext(signedIn);
    const page = await ctx.newPage();
    const rows: Row[] = [];
    let acceptEncoding = "";
    page.on("requestfinished", async (req) => {
      const res = await req.response();
      if (!res) return;
      const sizes = await req.sizes();
      if (req.resourceType() === "document") acceptEncoding = (await req.allHeaders())["accept-encoding"] ?? "";
      const t = req.timing();
      rows.push({
        url: new URL(req.url()).pathname,
        type: req.resourceType(),
        wire: sizes.responseBodySize,
        raw: (await res.body().catch(() => Buffer.alloc(0))).length,
        encoding: (await res.allHeaders())["content-encoding"] ?? "none",
        start: t.startTime,
        end: t.startTime + t.responseEnd,
      });
    });
    await page.goto(`${base}${path}`);
    await ready(page).catch(async (e) => {
      await page.screenshot({ path: ".tmp/webbench-failure.png" });
      console.error(`${path}: not ready; page text: ${(await page.locator("body").innerText()).slice(0, 500)}`);
      throw e;
    });
    // Not "networkidle": the notification bell keeps a stream open. Anything the first screen
    // fetches on its own arrives well within a second of it being ready.
    await page.waitForTimeout(1000);
    await ctx.close();
    const assets = rows.filter((r) => r.type === "script" || r.type === "stylesheet");
    // The same files as gzip (what a browser that does not take brotli gets), as served.
    let gzip = 0;
    for (const a of assets) {
      const res = await fetch(`${base}${a.url}`, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
      gzip += (await res.arrayBuffer()).byteLength;
    }
    // Round trips before the screen's code is all in: the document is the first; a file is one
    // more than the document or script that ended before it started (what could have named it:
    // a waterfall of chunks counts each step; the stylesheets import nothing).
    const chain = rows.filter((r) => r.type === "document" || r.type === "script" || r.type === "stylesheet").sort((a, b) => a.start - b.start);
    const round = new Map<Row, number>();
    for (const r of chain) round.set(r, 1 + Math.max(0, ...chain.filter((o) => o !== r && o.type !== "stylesheet" && o.end <= r.start).map((o) => round.get(o) ?? 0)));
    const rounds = Math.max(0, ...round.values());
    const raw = assets.reduce((n, r) => n + r.raw, 0);
    return { rows, assets, bytes: assets.reduce((n, r) => n + r.wire, 0), raw, gzip, acceptEncoding, rounds };
  }
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const dash = await firstLoad("/", true, (p) => p.waitForFunction(() => (window as any).__interactive !== undefined, null, { timeout: 15_000 }));
  const auth = await firstLoad("/auth", false, (p) => p.getByRole("heading", { name: "Welcome back" }).waitFor());

  console.log(`Chromium sends Accept-Encoding: ${dash.acceptEncoding}`);
  for (const [name, r] of [["/ signed in", dash], ["/auth", auth]] as const) {
    console.log(
      `\nFirst load of ${name}: JS + CSS ${kb(r.bytes)} on the wire (${kb(r.gzip)} as gzip, ${kb(r.raw)} raw), ${r.assets.length} files, ${r.rounds} round trips (document included)`,
    );
    for (const a of r.rows) console.log(`  ${a.type.padEnd(10)} ${kb(a.wire).padStart(9)} ${kb(a.raw).padStart(9)} raw  ${a.encoding.padEnd(5)} ${a.url}`);
  }

  // --- 3. Dashboard interactive ------------------------------------------------------------
  async function interactiveMs(page: Page) {
    await page.waitForFunction(() => (window as any).__interactive !== undefined, null, { timeout: 15_000 });
    return (await page.evaluate(() => (window as any).__interactive)) as number;
  }
  const cold = servers.map(() => [] as number[]);
  const warm = servers.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++)
    for (const [k, server] of servers.entries()) {
      const ctx = await newContext(true, server);
      const page = await ctx.newPage();
      await page.goto(`${server.base}/`);
      cold[k]!.push(await interactiveMs(page));
      await ctx.close();
    }
  const warmPages: { ctx: BrowserContext; page: Page }[] = [];
  for (const server of servers) {
    const ctx = await newContext(true, server);
    const page = await ctx.newPage();
    await page.goto(`${server.base}/`);
    await interactiveMs(page);
    warmPages.push({ ctx, page });
  }
  for (let i = 0; i < RUNS; i++)
    for (const [k, { page }] of warmPages.entries()) {
      await page.reload();
      warm[k]!.push(await interactiveMs(page));
    }
  for (const { ctx } of warmPages) await ctx.close();
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s.at(-1)! };
  };
  // Where the time of one cold load goes (Resource Timing, ms from navigation start).
  {
    const ctx = await newContext(true);
    const page = await ctx.newPage();
    await page.goto(`${base}/`);
    await interactiveMs(page);
    const marks = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const res = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
      const at = (re: RegExp) => res.find((r) => re.test(new URL(r.name).pathname));
      const span = (r?: PerformanceResourceTiming) => (r ? `${r.startTime.toFixed(0)}–${r.responseEnd.toFixed(0)}` : "–");
      return {
        html: `0–${nav.responseEnd.toFixed(0)}`,
        script: span(at(/^\/chunk-.*\.js$/)),
        user: span(at(/^\/api\/user$/)),
        topics: span(at(/^\/api\/topics$/)),
        domContentLoaded: nav.domContentLoadedEventEnd.toFixed(0),
        interactive: ((window as any).__interactive as number).toFixed(0),
      };
    });
    await ctx.close();
    console.log(`\nOne cold load, ms from navigation start: HTML ${marks.html}, script ${marks.script}, DOMContentLoaded ${marks.domContentLoaded}, /api/user ${marks.user}, /api/topics ${marks.topics}, interactive ${marks.interactive}`);
  }
  const c = stats(cold[0]!);
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  console.log(`\nDashboard interactive over ${RUNS} runs (${TOPICS} topics; load average ${load} on ${navigator.hardwareConcurrency} cores):`);
  const line = (xs: number[]) => {
    const s = stats(xs);
    return `median ${s.median.toFixed(0)} ms, min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)}`;
  };
  for (const [k, server] of servers.entries()) {
    const who = servers.length > 1 ? `${k === 0 ? "this build" : "baseline"} (${server.bin}) ` : "";
    console.log(`  ${who}cold (empty cache): ${line(cold[k]!)}`);
    console.log(`  ${who}warm (reload):      ${line(warm[k]!)}`);
  }
  if (servers.length > 1) {
    const ratio = c.median / stats(cold[1]!).median;
    console.log(`  cold median, this build / baseline: ${ratio.toFixed(2)}`);
  }

  // --- 4. Visitor pages ----------------------------------------------------------------------
  await Bun.sleep(1100); // the link's expiry passes
  const visitor = async (path: string, status: number) => {
    const ctx = await newContext(false);
    const page = await ctx.newPage();
    const loaded: string[] = [];
    let wire = 0;
    page.on("requestfinished", async (req) => {
      loaded.push(new URL(req.url()).pathname);
      wire += (await req.sizes()).responseBodySize;
    });
    const res = await page.goto(`${base}${path}`);
    if (res?.status() !== status) throw new Error(`${path}: ${res?.status()}, expected ${status}`);
    const html = (await res.body()).length;
    await page.waitForLoadState("load");
    await ctx.close();
    return { html, wire, loaded };
  };
  const notFound = await visitor("/no-such-code", 404);
  const gone = await visitor("/benchexpired", 410);
  console.log(`\nVisitor pages: 404 ${notFound.html} B (${notFound.wire} B on the wire), 410 ${gone.html} B (${gone.wire} B); files loaded: ${[...notFound.loaded, ...gone.loaded].join(", ")}`);
  await browser.close();

  // --- Verdicts ------------------------------------------------------------------------------
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const visitorTotal = notFound.html + 2 * gone.html; // the inactive 410 page is the expired one's size give or take a few bytes
  const lines = [
    [`first load / signed in ≤ ${kb(FIRST_LOAD_BUDGET)} gzipped`, `${kb(dash.gzip)} (${kb(dash.bytes)} on the wire)`, Math.max(dash.gzip, dash.bytes) <= FIRST_LOAD_BUDGET],
    [`first load /auth ≤ ${kb(FIRST_LOAD_BUDGET)} gzipped`, `${kb(auth.gzip)} (${kb(auth.bytes)} on the wire)`, Math.max(auth.gzip, auth.bytes) <= FIRST_LOAD_BUDGET],
    [`dashboard interactive (cold median) ≤ ${INTERACTIVE_BUDGET_MS} ms`, `${c.median.toFixed(0)} ms`, c.median <= INTERACTIVE_BUDGET_MS],
    [`visitor pages (404 + 2 × 410) ≤ ${kb(VISITOR_BUDGET)}, nothing else loaded`, `${visitorTotal} B`, visitorTotal <= VISITOR_BUDGET && notFound.loaded.length === 1 && gone.loaded.length === 1],
  ] as const;
  console.log("\nVerdict:");
  for (const [what, value, ok] of lines) console.log(`  ${verdict(ok)}  ${what}: ${value}`);
  stop();
  process.exit(lines.every((l) => l[2]) ? 0 : 1);
} catch (e) {
  stop();
  throw e;
}

/**
 * Runs in the page before its own scripts: records in window.__interactive the time since
 * navigation start at which the dashboard first has all its topics listed and its controls
 * enabled.
 */
function INTERACTIVE_PROBE(topics: number) {
  const check = () => {
    if ((window as any).__interactive !== undefined) return true;
    const list = document.querySelector('ul[aria-label="Your topics"]');
    if (!list || list.querySelectorAll(":scope > li").length < topics) return false;
    const starts = list.querySelectorAll("li button");
    const add = [...document.querySelectorAll("button")].find((b) => b.textContent?.trim() === "Add Topic");
    const sort = [...document.querySelectorAll("select")].find((el) => el.labels?.[0]?.textContent?.trim() === "Sort");
    if (!starts.length || !add || add.disabled || !sort || sort.disabled) return false;
    (window as any).__interactive = performance.now();
    return true;
  };
  const observer = new MutationObserver(() => {
    if (check()) observer.disconnect();
  });
  document.addEventListener("readystatechange", () => check());
  observer.observe(document, { childList: true, subtree: true, attributes: true });
}
