// Real-sized data for the scale benchmarks (issue 21), written straight into a migrated
// database in the server's own schema: one account with N links (the triggers keep the search
// index and the list totals, as they do for the API's writes) and one of its links with M clicks,
// stored as the click writer leaves them — the detail rows, the per-link fold (SQLite) and the
// roll-ups, tallied by the writer's own Tallies class so a report reads exactly what it would
// after M real clicks. Both backends get the same rows.
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { Tallies } from "../../src/analytics/tallies";

export type Seeded = {
  userId: number;
  /** The session cookie of the account (a session row written beside it). */
  cookie: string;
  bigId: number;
  /** Codes of the account's other links, for the redirect probe. */
  codes: string[];
  minClickId: number;
  maxClickId: number;
  /** Disk bytes per stored click: rows, indexes, the fold; roll-ups amortised. */
  bytesPerClick: number;
  linksSeconds: number;
  clicksSeconds: number;
};

const TOKEN = "scale-bench-session-0123456789abcdef";
const sessionId = () => createHash("sha256").update(TOKEN).digest("hex");

const UAS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0",
];
const PARSED = [
  ["Chrome", "desktop", "Windows"],
  ["Mobile Safari", "mobile", "iOS"],
  ["Chrome", "mobile", "Android"],
  ["Firefox", "desktop", "macOS"],
] as const;
const COUNTRIES = ["US", "DE", "GB", "FR", "IN", "BR", "JP", "AU", null];
const CITIES = ["Berlin", "London", "Paris", "Mumbai", "Austin", null];
const REFERRER = "https://news.example/item?id=12345";
const SPAN = 180 * 86_400_000;

/** Link i's title words have known frequencies: `topic123` 1 in 1,000, `group7` 1 in 10; `example` is in every URL. */
export const WORDS = { rare: "topic123", medium: "group7", broad: "example" };
export const codeOf = (i: number) => `c${i.toString(16)}`;
const LINK_EPOCH = Date.parse("2026-01-01T00:00:00Z");

/** The clicks of the big link: click i (1-based) of `clicks`, spread over 180 days. */
function clickShape(clicks: number, t0: number) {
  const visitors = Math.max(1, Math.floor(clicks / 20));
  return {
    visitors,
    of(i: number) {
      return {
        ms: t0 + Math.floor((i * SPAN) / clicks),
        ua: i % 4,
        country: COUNTRIES[i % COUNTRIES.length] ?? null,
        city: CITIES[i % CITIES.length] ?? null,
        referrer: i % 3 === 0 ? REFERRER : null,
        visitor: i % visitors,
        visit: Math.floor((i - 1) / visitors) + 1,
      };
    },
  };
}

/** The roll-up rows the click writer would hold for the big link's clicks, as [link, dim, value, count]. */
function rollups(bigId: number, clicks: number, t0: number) {
  const shape = clickShape(clicks, t0);
  const t = new Tallies();
  for (let i = 1; i <= clicks; i++) {
    const c = shape.of(i);
    const p = PARSED[c.ua]!;
    t.click({
      linkId: bigId,
      timestamp: new Date(c.ms).toISOString(),
      country: c.country,
      city: c.city,
      browser: p[0],
      deviceType: p[1],
      os: p[2],
      referrer: c.referrer,
      isBot: false,
      visitNumber: c.visit,
      detail: true,
    });
  }
  t.add(bigId, "summary", "unique", Math.min(shape.visitors, clicks));
  return JSON.parse(t.json()) as [number, string, string, number][];
}

const sqlArray = (a: readonly (string | null)[]) => `ARRAY[${a.map((x) => (x === null ? "NULL" : `'${x}'`)).join(",")}]::text[]`;

/** SQLite: the database file of a migrated, stopped server. */
export function seedSqlite(file: string, links: number, clicks: number): Seeded {
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -400000; PRAGMA busy_timeout = 10000");
  const now = new Date().toISOString();
  const userId = (db.query("INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('tenant', 'x', 'tenant@example.test', ?, ?) RETURNING id").get(now, now) as { id: number }).id;
  db.query("INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)").run(sessionId(), userId, now, new Date(Date.now() + 7 * 86_400_000).toISOString());
  let started = performance.now();
  const link = db.prepare(
    "INSERT INTO short_links (user_id, tracker, short_code, original_url, title, description, created_at, updated_at) VALUES (?, 'main', ?, ?, ?, ?, ?, ?) RETURNING id",
  );
  for (let at = 0; at < links - 1; at += 20_000) {
    db.transaction(() => {
      for (let i = at; i < Math.min(links - 1, at + 20_000); i++) {
        const when = new Date(LINK_EPOCH + i * 1000).toISOString();
        link.run(userId, codeOf(i), `https://shop${i % 50}.example.com/p/${i}`, `Item ${i} topic${i % 1000} group${i % 10}`, i % 10 === 0 ? `Seasonal campaign ${i % 100}` : null, when, when);
      }
    })();
  }
  const bigId = (link.get(userId, "bigone", "https://example.com/big", "Big", null, now, now) as { id: number }).id;
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const linksSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  const sizeBefore = statSync(file).size;
  const t0 = Date.now() - SPAN - 60_000;
  const shape = clickShape(clicks, t0);
  const insert = db.prepare(
    "INSERT INTO link_analytics (id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata) VALUES (?, ?, ?, ?, ?, '203.0.113.0', ?, ?, ?, ?, ?, ?, 0, ?)",
  );
  for (let from = 1; from <= clicks; from += 200_000) {
    db.transaction(() => {
      for (let i = from; i < Math.min(from + 200_000, clicks + 1); i++) {
        const c = shape.of(i);
        const p = PARSED[c.ua]!;
        insert.run(i, bigId, new Date(c.ms).toISOString(), c.referrer, UAS[c.ua]!, c.country, c.city, p[1], p[0], p[2], `v${c.visitor}`, `{"isReturningVisitor":${c.visit > 1},"visitNumber":${c.visit},"source":"direct","isBot":false}`);
      }
    })();
  }
  // As the click writer's fold leaves them (migrations/0008).
  db.exec("INSERT INTO link_clicks (link_id, click_id) SELECT link_id, id FROM link_analytics ORDER BY link_id, id");
  db.query("UPDATE click_fold SET folded = ?").run(clicks);
  db.query("UPDATE link_click_counts SET clicks = ? WHERE link_id = ?").run(clicks, bigId);
  const up = db.prepare("INSERT INTO link_rollups (link_id, dim, value, count) VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    for (const r of rollups(bigId, clicks, t0)) up.run(...r);
    for (let v = 0; v < shape.visitors; v++) up.run(bigId, "visitor", `v${v}`, Math.ceil((clicks - v) / shape.visitors));
  })();
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const bytesPerClick = (statSync(file).size - sizeBefore) / Math.max(1, clicks);
  const codes = sample(links - 1);
  db.close();
  return { userId, cookie: `tl_session=${TOKEN}`, bigId, codes, minClickId: 1, maxClickId: clicks, bytesPerClick, linksSeconds, clicksSeconds: (performance.now() - started) / 1000 };
}

/** PostgreSQL: the app's database (migrated) and a superuser URL to it for VACUUM. */
export async function seedPostgres(url: string, adminUrl: string, links: number, clicks: number): Promise<Seeded> {
  const sql = new SQL(url);
  const admin = new SQL(adminUrl);
  const now = new Date().toISOString();
  const [{ id: userId }] = await sql`INSERT INTO users (username, password_hash, email, created_at, updated_at) VALUES ('tenant', 'x', 'tenant@example.test', ${now}, ${now}) RETURNING id`;
  await sql`INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (${sessionId()}, ${userId}, ${now}, ${new Date(Date.now() + 7 * 86_400_000).toISOString()})`;
  let started = performance.now();
  for (let at = 0; at < links - 1; at += 100_000) {
    await sql.unsafe(
      `INSERT INTO short_links (user_id, tracker, short_code, original_url, title, description, created_at, updated_at)
       SELECT $1, 'main', 'c' || to_hex(i), 'https://shop' || (i % 50) || '.example.com/p/' || i, 'Item ' || i || ' topic' || (i % 1000) || ' group' || (i % 10),
              CASE WHEN i % 10 = 0 THEN 'Seasonal campaign ' || (i % 100) END,
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
       FROM generate_series($2::int, $3::int) AS i`,
      [userId, at, Math.min(links - 1, at + 100_000) - 1],
    );
  }
  const [{ id: bigId }] = await sql`INSERT INTO short_links (user_id, tracker, short_code, original_url, title, created_at, updated_at) VALUES (${userId}, 'main', 'bigone', 'https://example.com/big', 'Big', ${now}, ${now}) RETURNING id`;
  await admin.unsafe("VACUUM ANALYZE short_links");
  const linksSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  const size = async () => Number((await sql`SELECT pg_total_relation_size('link_analytics') + pg_total_relation_size('link_rollups') AS n`)[0].n);
  const sizeBefore = await size();
  const t0 = Date.now() - SPAN - 60_000;
  const shape = clickShape(clicks, t0);
  // The same rows as clickShape, made by the server (the JS arrays become SQL arrays, 1-based).
  for (let from = 1; from <= clicks; from += 1_000_000) {
    const to = Math.min(from + 999_999, clicks);
    await sql.unsafe(`
      INSERT INTO link_analytics (id, link_id, timestamp, referrer, user_agent, ip, country, city, device_type, browser, os, visitor_id, is_bot, metadata)
      SELECT g, ${bigId}, to_char(to_timestamp((${t0}::bigint + (g * ${SPAN}::bigint) / ${clicks}) / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        CASE WHEN g % 3 = 0 THEN '${REFERRER}' END,
        (${sqlArray(UAS)})[(g % 4 + 1)::int], '203.0.113.0', (${sqlArray(COUNTRIES)})[(g % ${COUNTRIES.length} + 1)::int], (${sqlArray(CITIES)})[(g % ${CITIES.length} + 1)::int],
        (${sqlArray(PARSED.map((p) => p[1]))})[(g % 4 + 1)::int], (${sqlArray(PARSED.map((p) => p[0]))})[(g % 4 + 1)::int], (${sqlArray(PARSED.map((p) => p[2]))})[(g % 4 + 1)::int],
        'v' || (g % ${shape.visitors}), 0,
        '{"isReturningVisitor":' || (((g - 1) / ${shape.visitors}) > 0)::text || ',"visitNumber":' || ((g - 1) / ${shape.visitors} + 1) || ',"source":"direct","isBot":false}'
      FROM generate_series(${from}::bigint, ${to}::bigint) AS g`);
  }
  await sql`UPDATE link_click_counts SET clicks = ${clicks} WHERE link_id = ${bigId}`;
  await sql.unsafe("INSERT INTO link_rollups (link_id, dim, value, count) SELECT (j->>0)::int, j->>1, j->>2, (j->>3)::bigint FROM json_array_elements($1::text::json) AS j", [
    JSON.stringify(rollups(bigId, clicks, t0)),
  ]);
  await sql.unsafe(
    `INSERT INTO link_rollups (link_id, dim, value, count) SELECT ${bigId}, 'visitor', 'v' || v, (${clicks} - v + ${shape.visitors} - 1) / ${shape.visitors} FROM generate_series(0, ${shape.visitors - 1}) AS v`,
  );
  await admin.unsafe("VACUUM ANALYZE link_analytics");
  await admin.unsafe("VACUUM ANALYZE link_rollups");
  const bytesPerClick = ((await size()) - sizeBefore) / Math.max(1, clicks);
  await admin.close();
  await sql.close();
  return { userId, cookie: `tl_session=${TOKEN}`, bigId, codes: sample(links - 1), minClickId: 1, maxClickId: clicks, bytesPerClick, linksSeconds, clicksSeconds: (performance.now() - started) / 1000 };
}

/** 1,000 codes spread over the account's other links (a fixed stride: the same in every run). */
function sample(links: number) {
  const n = Math.min(1000, links);
  return Array.from({ length: n }, (_, k) => codeOf(Math.floor((k * links) / n)));
}
