// What the redirect map's trigger (migrations/pg/0009: a NOTIFY per link written) costs a bulk
// write: 10,000 links in one INSERT … SELECT on a durable throwaway PostgreSQL 15, with the
// trigger and without it, alternating, an instance listening meanwhile (so every notification
// is queued and delivered). Bounded, loopback only, prints figures; not part of `npm test`.
//
//   node_modules/.bin/bun run scripts/bench/link-notify.ts
import { SQL } from "bun";
import { startCluster } from "../lib/pgcluster";
import { migratePg } from "../../src/db/pg";
import { LINKS_CHANNEL } from "../../src/links/follow";

const ROWS = 10_000;
const cluster = await startCluster({ durable: true });
try {
  const url = await cluster.createDatabase("notify");
  const app = new SQL({ url, max: 1 });
  await migratePg(app);
  await app.close();
  const admin = new SQL({ url: cluster.adminUrl("notify"), max: 1 });
  const listener = new SQL({ url, max: 1 });
  let received = 0;
  await listener.listen(LINKS_CHANNEL, () => received++);
  const now = new Date().toISOString();
  const [user] = await admin`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('bench', 'x', 'bench@example.test', ${now}, ${now}) RETURNING id`;
  const times: Record<"with" | "without", number[]> = { with: [], without: [] };
  let batch = 0;
  const insert = async (which: "with" | "without") => {
    const t0 = performance.now();
    await admin`INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at)
      SELECT ${user.id}, 'main', ${`n${batch++}_`} || g, 'https://example.com/' || g, 't', ${now}, ${now} FROM generate_series(1, ${ROWS}) g`;
    times[which].push(performance.now() - t0);
  };
  for (let round = 0; round < 5; round++) {
    await insert("with");
    await admin`ALTER TABLE short_links DISABLE TRIGGER short_links_notify`;
    await insert("without");
    await admin`ALTER TABLE short_links ENABLE TRIGGER short_links_notify`;
  }
  await Bun.sleep(500);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const which of ["with", "without"] as const) {
    console.log(`${which.padEnd(7)} the trigger: ${times[which].map((t) => t.toFixed(0)).join(", ")} ms per ${ROWS.toLocaleString("en-US")} links (median ${median(times[which]).toFixed(0)})`);
  }
  const extra = (median(times.with) - median(times.without)) / ROWS;
  console.log(`the trigger adds ${(extra * 1000).toFixed(1)} µs per link written; notifications received by the listener: ${received.toLocaleString("en-US")} of ${(5 * ROWS).toLocaleString("en-US")}`);
  console.log(`load average ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(", ")}`);
  await listener.close();
  await admin.close();
} finally {
  await cluster.stop();
}
