// Click writer benchmark: what one click costs the click worker to store, by transaction size,
// and the writer-only capacity that gives on one core (issue 12: it must be ≥ 1.5× the request
// thread's HEAD-only rate). Bounded, no network; not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/click-writer.ts
//   BENCH_LINKS=100000 BENCH_CLICKS=300000 bun run scripts/bench/click-writer.ts
//
// A fresh database (the real migrations) with 100,000 links; 300,000 clicks spread uniformly
// over them (the redirect benchmark's pattern: the worst case, as every click lands on a
// different link's index pages) are written through the real ClickWriter on a connection set up
// as the click worker sets up its own, with a PASSIVE checkpoint every second as the worker runs.
// Each new link's first click also writes its milestone notification, as in the redirect bench.
// The clicks start as the recorder's batches (ClickLines), so decoding is paid as in the worker:
// captured click lines in, committed rows, indexes and counts out. CPU time is this process's
// (one thread does the work), so the figure holds while other work shares the machine.
// Beside it: the HEAD-only rate that scripts/bench/redirect.ts measured last on this machine
// (.tmp/bench-head-only.json), per core from the request thread's CPU, or BENCH_HEAD_US.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDbFile } from "../../src/db/open";
import { migrate } from "../../src/db/migrate";
import { existsSync, readFileSync } from "node:fs";
import { ClickWriter } from "../../src/analytics/writer";
import { ClickLines, decodeClicks } from "../../src/analytics/recorder";

const LINKS = Number(process.env.BENCH_LINKS ?? 100_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 300_000);
const SIZES = (process.env.BENCH_SIZES ?? "512,2048,8192").split(",").map(Number);
const UA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

function seed(path: string) {
  const db = openDbFile(path);
  migrate(db);
  const now = new Date().toISOString();
  db.query("INSERT INTO users (id, username, password_hash, email, created_at, updated_at) VALUES (1, 'bench', 'x', 'bench@example.test', ?, ?)").run(now, now);
  const insert = db.prepare("INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (1, 'main', ?, ?, ?, ?, ?) RETURNING id");
  let first = 0;
  db.transaction(() => {
    for (let i = 0; i < LINKS; i++) {
      const { id } = insert.get(`b${i.toString(36)}`, `https://example.com/landing/${i}?utm_source=bench`, `Bench ${i}`, now, now) as { id: number };
      first ||= id;
    }
  })();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return first;
}

async function run(size: number) {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-writer-bench-"));
  try {
    const path = join(dir, "threadlink.db");
    const firstLink = seed(path);
    const db = openDbFile(path);
    // As src/analytics/clickWorker.ts opens its connection.
    db.exec("PRAGMA wal_autocheckpoint = 0");
    db.exec("PRAGMA foreign_keys = OFF");
    db.exec("PRAGMA temp_store = MEMORY");
    const writer = new ClickWriter(db, { ipStorage: "truncated", geoipDb: null });
    await writer.geo.load();
    const lines: string[] = [];
    for (let done = 0; done < CLICKS; done += size) {
      const batch = new ClickLines();
      for (let i = 0; i < size; i++) {
        batch.add({
          linkId: firstLink + Math.floor(Math.random() * LINKS),
          at: Date.now(),
          userAgent: UA,
          referrer: null,
          ip: "203.0.113.9",
          visitorId: Bun.randomUUIDv7(),
          newVisitor: true,
          source: "direct",
          country: null,
          city: null,
        });
      }
      lines.push(batch.take());
    }
    const cpu = process.cpuUsage();
    const started = performance.now();
    let checkpointed = started;
    for (const batch of lines) {
      writer.write(decodeClicks(batch));
      if (performance.now() - checkpointed >= 1_000) {
        db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
        checkpointed = performance.now();
      }
    }
    const wallUs = ((performance.now() - started) * 1_000) / CLICKS;
    const used = process.cpuUsage(cpu);
    db.close();
    const cpuUs = (used.user + used.system) / CLICKS;
    console.log(
      `transactions of ${String(size).padStart(5)} clicks: ${wallUs.toFixed(1)} µs/click wall, ` +
        `${cpuUs.toFixed(1)} µs/click CPU (${(used.system / CLICKS).toFixed(1)} in the kernel) → ${Math.round(1e6 / cpuUs).toLocaleString("en-US")} clicks/s on one core`,
    );
    return cpuUs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${CLICKS.toLocaleString("en-US")} clicks over ${LINKS.toLocaleString("en-US")} links, through ClickWriter`);
const costs = new Map<number, number>();
for (const size of SIZES) costs.set(size, await run(size));
const headFile = ".tmp/bench-head-only.json";
const headUs = process.env.BENCH_HEAD_US ? Number(process.env.BENCH_HEAD_US) : existsSync(headFile) ? (JSON.parse(readFileSync(headFile, "utf8")) as { requestThreadUs: number }).requestThreadUs : null;
// Under load the worker writes transactions of the largest size (it merges what waits).
const writerUs = costs.get(Math.max(...SIZES))!;
if (headUs) {
  const ratio = headUs / writerUs;
  console.log(`HEAD-only redirect on the request thread: ${headUs.toFixed(1)} µs/req → ${Math.round(1e6 / headUs).toLocaleString("en-US")} req/s per core (${process.env.BENCH_HEAD_US ? "BENCH_HEAD_US" : headFile})`);
  console.log(`writer-only capacity ${Math.round(1e6 / writerUs).toLocaleString("en-US")} clicks/s per core = ${ratio.toFixed(2)}× the HEAD-only rate: ${ratio >= 1.5 ? "met" : "MISSED"} (target ≥ 1.5×)`);
} else {
  console.log("HEAD-only rate unknown: run scripts/bench/redirect.ts first (it saves it) or set BENCH_HEAD_US");
}
