// Click writer benchmark: what one click costs the click worker to store, by transaction size.
// Bounded, no network; not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/click-writer.ts
//   BENCH_LINKS=100000 BENCH_CLICKS=300000 bun run scripts/bench/click-writer.ts
//
// A fresh database (the real migrations) with 100,000 links; 300,000 clicks spread uniformly
// over them (the redirect benchmark's pattern: the worst case, as every click lands on a
// different link's index pages) are written through the real ClickWriter on a connection set up
// as the click worker sets up its own, with a PASSIVE checkpoint every second as the worker runs.
// Each new link's first click also writes its milestone notification, as in the redirect bench.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDbFile } from "../../src/db/open";
import { migrate } from "../../src/db/migrate";
import { ClickWriter } from "../../src/analytics/writer";
import type { RawClick } from "../../src/analytics/recorder";

const LINKS = Number(process.env.BENCH_LINKS ?? 100_000);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 300_000);
const SIZES = [512, 2_048, 8_192];
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
    const writer = new ClickWriter(db, { ipStorage: "truncated", geoipDb: null });
    await writer.geo.load();
    const cpu = process.cpuUsage();
    const started = performance.now();
    let checkpointed = started;
    for (let done = 0; done < CLICKS; done += size) {
      const batch: RawClick[] = [];
      for (let i = 0; i < size; i++) {
        batch.push({
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
      writer.write(batch);
      if (performance.now() - checkpointed >= 1_000) {
        db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
        checkpointed = performance.now();
      }
    }
    const wallUs = ((performance.now() - started) * 1_000) / CLICKS;
    const used = process.cpuUsage(cpu);
    db.close();
    console.log(
      `transactions of ${String(size).padStart(5)} clicks: ${wallUs.toFixed(1)} µs/click wall, ` +
        `${((used.user + used.system) / CLICKS).toFixed(1)} µs/click CPU (${(used.system / CLICKS).toFixed(1)} in the kernel)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${CLICKS.toLocaleString("en-US")} clicks over ${LINKS.toLocaleString("en-US")} links, through ClickWriter`);
for (const size of SIZES) await run(size);
