// The only reader of the environment. Every setting is parsed and validated once at boot;
// a bad value stops the process with a message naming every bad variable.
import * as v from "valibot";
import { readFileSync } from "node:fs";
import { parseProxyEntry } from "./http/ip";

const proxyList = (s: string) => s.split(",").map((x) => x.trim()).filter(Boolean);

const url = (name: string) =>
  v.pipe(
    v.string(),
    v.check((s) => {
      try {
        const u = new URL(s);
        return u.protocol === "http:" || u.protocol === "https:";
      } catch {
        return false;
      }
    }, `${name} must be an absolute http(s) URL`),
  );
/**
 * A PostgreSQL connection URL: postgres:// or postgresql://, with a host name or a socket
 * folder (?host=/path). Shared by DATABASE_URL and `threadlink migrate-data URL`.
 */
export function isPostgresUrl(s: string) {
  try {
    const u = new URL(s);
    return (u.protocol === "postgres:" || u.protocol === "postgresql:") && (u.hostname !== "" || u.searchParams.get("host")?.startsWith("/") === true);
  } catch {
    return false;
  }
}
export const POSTGRES_URL_MESSAGE = "must be a postgres:// or postgresql:// URL, such as postgres://user:password@host:5432/database";
const host = (name: string) =>
  v.pipe(v.string(), v.regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, `${name} must be a host name, optionally with :port`));
const int = (name: string, min: number, max: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+$/, `${name} must be a whole number`),
    v.transform(Number),
    v.number(),
    v.minValue(min, `${name} must be at least ${min}`),
    v.maxValue(max, `${name} must be at most ${max}`),
  );
const bool = (name: string) =>
  v.pipe(
    v.picklist(["true", "false", "1", "0", "yes", "no"], `${name} must be true or false`),
    v.transform((s) => s === "true" || s === "1" || s === "yes"),
  );

// Names, defaults and meaning are documented in README.md's configuration table.
const Env = v.object({
  PORT: v.optional(int("PORT", 1, 65535), "3000"),
  HOST: v.optional(v.pipe(v.string(), v.nonEmpty("HOST must not be empty")), "0.0.0.0"),
  DATA_DIR: v.optional(v.pipe(v.string(), v.nonEmpty("DATA_DIR must not be empty")), "./data"),
  // The value holds a password: messages never repeat it.
  DATABASE_URL: v.optional(v.pipe(v.string(), v.check(isPostgresUrl, `DATABASE_URL ${POSTGRES_URL_MESSAGE}`))),
  PUBLIC_URL: v.optional(url("PUBLIC_URL"), "http://localhost:3000"),
  SHORT_DOMAIN: v.optional(host("SHORT_DOMAIN")),
  BRAND_DOMAIN: v.optional(host("BRAND_DOMAIN")),
  APP_NAME: v.optional(v.pipe(v.string(), v.nonEmpty(), v.maxLength(60, "APP_NAME must be at most 60 characters")), "Threadlink"),
  BRAND_NAME: v.optional(v.pipe(v.string(), v.nonEmpty(), v.maxLength(60, "BRAND_NAME must be at most 60 characters")), "Pic Drift"),
  ROOT_REDIRECT_URL: v.optional(url("ROOT_REDIRECT_URL")),
  OWNER_USERNAME: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{3,32}$/, "OWNER_USERNAME must be a valid username"))),
  REGISTRATION: v.optional(v.picklist(["open", "closed"], "REGISTRATION must be open or closed"), "open"),
  FREE_TOPIC_LIMIT: v.optional(int("FREE_TOPIC_LIMIT", 0, 100000), "5"),
  ALLOW_SELF_UPGRADE: v.optional(bool("ALLOW_SELF_UPGRADE"), "true"),
  PHONE_PREFIX: v.optional(v.pipe(v.string(), v.regex(/^\+\d{1,8}$/, "PHONE_PREFIX must look like +1555")), "+1555"),
  IP_STORAGE: v.optional(v.picklist(["truncated", "full", "none"], "IP_STORAGE must be truncated, full or none"), "truncated"),
  TRUSTED_PROXIES: v.optional(
    v.pipe(
      v.string(),
      v.check(
        (s) => proxyList(s).every((e) => parseProxyEntry(e) !== null),
        (issue) => `TRUSTED_PROXIES must list IP addresses or CIDR ranges (not ${proxyList(String(issue.input)).find((e) => !parseProxyEntry(e))})`,
      ),
    ),
    "127.0.0.1,::1",
  ),
  GEOIP_DB: v.optional(v.string()),
  // Days of click detail rows kept (0 or unset: forever); totals and tallies are kept forever.
  CLICK_RETENTION_DAYS: v.optional(int("CLICK_RETENTION_DAYS", 0, 100_000), "0"),
  // Clicks a minute from one address on one link that keep a detail row (0: no limit); every
  // click past it is still counted and tallied.
  CLICK_DETAIL_PER_MINUTE: v.optional(int("CLICK_DETAIL_PER_MINUTE", 0, 1_000_000), "60"),
  // No placeholder: a public page must never show a visitor instructions meant for the operator.
  OPERATOR_NAME: v.optional(v.string()),
  OPERATOR_ADDRESS: v.optional(v.string()),
  LOG_LEVEL: v.optional(v.picklist(["debug", "info", "warn", "error"], "LOG_LEVEL must be debug, info, warn or error"), "info"),
  // Requests a minute (0 turns the limit off): per API key, and per client address for /api
  // calls that carry neither a key nor a live session (README "Sign-in and abuse limits").
  API_RATE_LIMIT: v.optional(int("API_RATE_LIMIT", 0, 1_000_000), "300"),
  API_ANON_RATE_LIMIT: v.optional(int("API_ANON_RATE_LIMIT", 0, 1_000_000), "120"),
  // Per-user quotas (issue 21; README "Quotas"): what one account may hold on a shared
  // instance. 0 turns a cap off. Each is checked inside the transaction that would pass it.
  MAX_LINKS_PER_USER: v.optional(int("MAX_LINKS_PER_USER", 0, 100_000_000), "100000"),
  MAX_API_KEYS_PER_USER: v.optional(int("MAX_API_KEYS_PER_USER", 0, 1_000_000), "50"),
  // Saved UTM templates one account may hold (0: no cap).
  MAX_UTM_TEMPLATES_PER_USER: v.optional(int("MAX_UTM_TEMPLATES_PER_USER", 0, 1_000_000), "50"),
  // The HMAC key of password-protected links' unlock cookies (at least 32 characters). Unset: one
  // is generated once and kept in the database, shared by every instance; changing it ends
  // every unlock.
  LINK_COOKIE_SECRET: v.optional(v.pipe(v.string(), v.minLength(32, "LINK_COOKIE_SECRET must be at least 32 characters"))),
  MAX_TOPICS_PER_USER: v.optional(int("MAX_TOPICS_PER_USER", 0, 1_000_000), "500"),
  MAX_TAGS_PER_USER: v.optional(int("MAX_TAGS_PER_USER", 0, 1_000_000), "500"),
  MAX_TITLES_PER_TOPIC: v.optional(int("MAX_TITLES_PER_TOPIC", 0, 10_000_000), "1000"),
  MAX_TOPIC_TEXT_BYTES: v.optional(int("MAX_TOPIC_TEXT_BYTES", 0, 1_000_000_000_000), "10000000"),
  MAX_QR_STYLES_PER_USER: v.optional(int("MAX_QR_STYLES_PER_USER", 0, 1_000_000), "50"),
  // Calls a minute per signed-in user to bulk, import, exports and analytics (0: off).
  HEAVY_RATE_LIMIT: v.optional(int("HEAVY_RATE_LIMIT", 0, 1_000_000), "120"),
  // The reader thread's nice value (Linux): under CPU pressure, reports and exports wait and
  // the redirects run first (0: the process's own priority).
  READER_NICE: v.optional(int("READER_NICE", 0, 19), "10"),
  // SQLite: the WAL is truncated once it passes this many MB, even while writes continue.
  WAL_LIMIT_MB: v.optional(int("WAL_LIMIT_MB", 1, 1_000_000), "64"),
  // PostgreSQL: a graceful stop keeps the redirect map in DATA_DIR for the next start (src/links/mapSnapshot.ts).
  MAP_SNAPSHOT: v.optional(bool("MAP_SNAPSHOT"), "true"),
  // A warning is logged while the data folder's disk has less than this many MB free.
  DISK_WARN_MB: v.optional(int("DISK_WARN_MB", 0, 100_000_000), "1024"),
  // The event log (issue 26): how long events, and finished webhook deliveries, are kept.
  EVENT_RETENTION_DAYS: v.optional(int("EVENT_RETENTION_DAYS", 1, 3650), "30"),
  // Webhooks may reach loopback, private and link-local addresses (tests, internal receivers).
  WEBHOOK_ALLOW_PRIVATE: v.optional(bool("WEBHOOK_ALLOW_PRIVATE"), "false"),
  WEBHOOK_TIMEOUT_SECONDS: v.optional(int("WEBHOOK_TIMEOUT_SECONDS", 1, 60), "10"),
  // The wait before a failed delivery's first retry; each later one doubles, up to 360 times it.
  WEBHOOK_RETRY_BASE_MS: v.optional(int("WEBHOOK_RETRY_BASE_MS", 10, 600_000), "10000"),
  // Live updates (GET /api/events/stream): open streams per user, and seconds between the
  // keep-alive lines a stream sends while nothing happens (proxies end silent connections).
  LIVE_STREAMS_PER_USER: v.optional(int("LIVE_STREAMS_PER_USER", 1, 1000), "8"),
  LIVE_HEARTBEAT_SECONDS: v.optional(int("LIVE_HEARTBEAT_SECONDS", 1, 300), "15"),
  // Public stats pages (/public/stats/TOKEN): views a minute from one address (0: no limit),
  // and seconds a page is cached (in this process and by browsers and proxies).
  PUBLIC_STATS_RATE_LIMIT: v.optional(int("PUBLIC_STATS_RATE_LIMIT", 0, 1_000_000), "60"),
  PUBLIC_STATS_CACHE_SECONDS: v.optional(int("PUBLIC_STATS_CACHE_SECONDS", 0, 3600), "60"),
  // Seconds `serve` waits at start for a PostgreSQL that does not answer yet (0: exit at once).
  DATABASE_START_WAIT: v.optional(int("DATABASE_START_WAIT", 0, 86_400), "120"),
});

export type Config = ReturnType<typeof loadConfig>;

export class ConfigError extends Error {
  constructor(public problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** env → NAME_FILE (a secret mounted as a file) → default. */
function readRaw(env: Record<string, string | undefined>, problems: string[]) {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(Env.entries)) {
    const direct = env[name];
    const file = env[`${name}_FILE`];
    if (direct !== undefined && direct !== "") raw[name] = direct;
    else if (file) {
      try {
        raw[name] = readFileSync(file, "utf8").trim();
      } catch {
        problems.push(`${name}_FILE: cannot read ${file}`);
      }
    }
  }
  return raw;
}

export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const problems: string[] = [];
  const raw = readRaw(env, problems);
  const result = v.safeParse(Env, raw);
  if (!result.success) {
    for (const issue of result.issues) {
      const key = issue.path?.map((p) => String(p.key)).join(".") ?? "?";
      problems.push(`${key}: ${issue.message}`);
    }
  }
  if (problems.length || !result.success) throw new ConfigError(problems);
  const e = result.output;
  const publicUrl = new URL(e.PUBLIC_URL);
  const appHost = publicUrl.host.toLowerCase();
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    /** PostgreSQL instead of SQLite in DATA_DIR (for now only `migrate` and `migrate-data` use it). */
    databaseUrl: e.DATABASE_URL ?? null,
    publicUrl: publicUrl.origin,
    appHost,
    secureCookies: publicUrl.protocol === "https:",
    shortDomain: (e.SHORT_DOMAIN ?? appHost).toLowerCase(),
    brandDomain: (e.BRAND_DOMAIN ?? appHost).toLowerCase(),
    /** Short URLs are `${shortBaseUrl}/${code}`: PUBLIC_URL's scheme on the short domain. */
    shortBaseUrl: `${publicUrl.protocol}//${(e.SHORT_DOMAIN ?? appHost).toLowerCase()}`,
    brandBaseUrl: `${publicUrl.protocol}//${(e.BRAND_DOMAIN ?? appHost).toLowerCase()}`,
    appName: e.APP_NAME,
    brandName: e.BRAND_NAME,
    rootRedirectUrl: e.ROOT_REDIRECT_URL ?? publicUrl.origin + "/",
    ownerUsername: e.OWNER_USERNAME?.toLowerCase() ?? null,
    registration: e.REGISTRATION,
    freeTopicLimit: e.FREE_TOPIC_LIMIT,
    allowSelfUpgrade: e.ALLOW_SELF_UPGRADE,
    phonePrefix: e.PHONE_PREFIX,
    ipStorage: e.IP_STORAGE,
    trustedProxies: proxyList(e.TRUSTED_PROXIES),
    geoipDb: e.GEOIP_DB ?? null,
    /** Click detail rows older than this many days are deleted (null: kept forever); the roll-ups keep every click. */
    clickRetentionDays: e.CLICK_RETENTION_DAYS > 0 ? e.CLICK_RETENTION_DAYS : null,
    /** Detail rows a minute per address and link (null: no limit): src/analytics/tallies.ts DetailThrottle. */
    clickDetailPerMinute: e.CLICK_DETAIL_PER_MINUTE > 0 ? e.CLICK_DETAIL_PER_MINUTE : null,
    operatorName: e.OPERATOR_NAME?.trim() || null,
    operatorAddress: e.OPERATOR_ADDRESS?.trim() || null,
    logLevel: e.LOG_LEVEL,
    apiRateLimit: e.API_RATE_LIMIT,
    apiAnonRateLimit: e.API_ANON_RATE_LIMIT,
    quotas: {
      linksPerUser: e.MAX_LINKS_PER_USER,
      apiKeysPerUser: e.MAX_API_KEYS_PER_USER,
      utmTemplatesPerUser: e.MAX_UTM_TEMPLATES_PER_USER,
      topicsPerUser: e.MAX_TOPICS_PER_USER,
      tagsPerUser: e.MAX_TAGS_PER_USER,
      titlesPerTopic: e.MAX_TITLES_PER_TOPIC,
      topicTextBytes: e.MAX_TOPIC_TEXT_BYTES,
      qrStylesPerUser: e.MAX_QR_STYLES_PER_USER,
    },
    heavyRateLimit: e.HEAVY_RATE_LIMIT,
    /** null: the database's own (src/smart/store.ts instanceSecret). */
    linkCookieSecret: e.LINK_COOKIE_SECRET ?? null,
    walLimitBytes: e.WAL_LIMIT_MB * 1024 * 1024,
    readerNice: e.READER_NICE,
    diskWarnBytes: e.DISK_WARN_MB * 1024 * 1024,
    mapSnapshot: e.MAP_SNAPSHOT,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
    webhookRetryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
    databaseStartWaitMs: e.DATABASE_START_WAIT * 1000,
    liveStreamsPerUser: e.LIVE_STREAMS_PER_USER,
    liveHeartbeatMs: e.LIVE_HEARTBEAT_SECONDS * 1000,
    publicStatsRateLimit: e.PUBLIC_STATS_RATE_LIMIT,
    publicStatsCacheMs: e.PUBLIC_STATS_CACHE_SECONDS * 1000,
  };
}
