// The link service, built once per app: the store, the in-memory code → link map the redirects
// read, the click recorder, and the one place a link is checked, created, edited or deleted
// (for the routes, bulk create and import alike: the rules themselves are in rules.ts). Every
// write goes through here so the map stays exact (a changed destination is used by the very
// next redirect) and every instance has it before the answer.
import type { AppContext } from "../context";
import { shortUrlOf } from "./export";
import { RedirectMap, hrefOf, type CachedLink } from "./redirectMap";
import { type LinkPack, OWN_SHARE, keyOf, packRows } from "./mapPack";
import { ClickRecorder } from "../analytics/recorder";
import { OVER_QUOTA, codeConflict, linksStore, tagNames, type Existing, type LinkRow, type NewLink, type PlainRedirectRow, type RedirectRow } from "./store";
import { BULK_MSG, MSG, type ItemError, type LinkView, type Tracker } from "./schema";
import { hostWarning } from "./hostWarning";
import { followLinks } from "./follow";
import { readMapSnapshot, writeMapSnapshot } from "./mapSnapshot";
import { join } from "node:path";
import { statSync } from "node:fs";
import { VERSION } from "../version";
import { missLookup } from "./missLookup";
import { walBytes, walCheckpointAt } from "../db/open";
import { eventsStore } from "../events/store";
import { compileJson, type CompiledSmart } from "../smart/decide";
import type { SmartImportParsed, SmartInputParsed, SmartStored } from "../smart/schema";
import { NO_SETTINGS, readStored, toStored } from "../smart/settings";
import { smartRuntime } from "../smart/runtime";
import { log } from "../http/log";
import { badgesOf } from "../smart/schema";

/** The Link Tracker's badges from a row's settings; null for a plain link (or settings that change nothing). */
function smartBadges(json: string | null | undefined, clicks: number) {
  if (!json) return null;
  try {
    const b = badgesOf(JSON.parse(json) as SmartStored, clicks);
    return b && (b.protected || b.limited || b.ruled || b.split) ? b : null;
  } catch {
    return null;
  }
}
import { AppError, badRequest, conflict, forbidden, notFound } from "../shared/errors";
import { isReserved } from "../shared/reserved";
import { codesPerTracker } from "../shared/trackers";
import { QUOTA_MSG } from "../plans/quotas";
import { destinationRefused, expiryProblem, freshCode, generateCode, newLinkProblem, refusal, type Problem } from "./rules";
import { tagKey, tagsStore } from "../tags/store";

/**
 * Items checked and written per transaction. Each costs ~20–100 µs (the create's checks, the
 * insert and its trigger, the redirect-map entry), so 100 hold the event loop for a few
 * milliseconds at most: a redirect arriving meanwhile waits that long (500 measured stalls up to
 * ~90 ms on this machine; docs/performance.md, "Import").
 */
export const WRITE_BATCH = 100;

/**
 * A turn of the event loop between two transactions: on SQLite a transaction holds the one
 * connection (other requests' statements wait for its end), so redirects and reads get in here.
 */
export const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A create's values after its schema: `shortCode` empty or absent means "generate one". */
export type CreateInput = {
  originalUrl: string;
  title: string;
  description: string;
  expiresAt: string | null;
  shortCode?: string | null;
  externalId?: string | null;
  tags?: readonly string[] | undefined;
  smart?: SmartInputParsed | SmartImportParsed | null | undefined;
};

/**
 * An edit's values, whole (PUT sends them all; PATCH fills the ones it leaves out from the
 * link). `shortCode` null keeps the link's code; `expiresAt` is the Link Tracker's alone.
 */
export type EditInput = {
  originalUrl: string;
  title: string;
  description: string;
  shortCode: string | null;
  expiresAt?: string | null;
  tags?: readonly string[] | undefined;
  /** Undefined keeps the link's smart settings; null removes them all (SmartInput otherwise). */
  smart?: SmartInputParsed | null | undefined;
};

const refuse = (p: Problem | null) => {
  if (p) throw badRequest(p.message, { [p.field]: p.message });
};

/**
 * The settings a link body's `smart` asks for, as the column stores them (JSON, or null): hashed
 * and their destinations checked (fields named `smart.…`), as PUT …/smart does. `before`: the
 * link's settings now (an absent password keeps its hash). A plain link pays nothing.
 */
async function smartJson(smart: SmartInputParsed | SmartImportParsed | null | undefined, before: SmartStored | null, ownHosts: readonly string[]) {
  if (smart === undefined || (smart === null && !before)) return before ? JSON.stringify(before) : null;
  const stored = await toStored(smart ?? NO_SETTINGS, before, ownHosts, "smart.");
  return stored ? JSON.stringify(stored) : null;
}

export type { CachedLink };

/** The redirect map's snapshot in DATA_DIR (PostgreSQL; MAP_SNAPSHOT). */
export const SNAPSHOT_FILE = "redirect-map.snapshot";

/**
 * What a snapshot must match to be used: the database (store.mapIdentity) and this build (its
 * version, and the executable's size and time: another build may put links in the map otherwise).
 */
async function snapshotIdentity(store: { mapIdentity(): Promise<string | null> }) {
  const db = await store.mapIdentity();
  if (!db) return null;
  let build = VERSION;
  try {
    const exe = statSync(process.execPath);
    build += `/${exe.size}/${exe.mtimeMs}`;
  } catch {
    /* the version alone */
  }
  return `${db}/${build}`;
}

/** Fewer links than this load on the request thread alone: the reader thread's start would cost more than it saves. */
export const REDIRECT_SPLIT_MIN = 20_000;

/** The longest pause between two bulk transactions while the WAL waits to be truncated. */
const WAL_GAP_MS = 200;

function toCached(r: PlainRedirectRow & { smart?: string | null }): CachedLink | null {
  let href: string;
  try {
    href = hrefOf(r.original_url);
  } catch {
    return null;
  }
  const cached: CachedLink = { id: r.id, href, active: r.active === 1, expiresMs: r.expires_at ? Date.parse(r.expires_at) : null };
  if (r.smart) {
    let smart: CompiledSmart | null;
    try {
      smart = compileJson(r.smart);
    } catch (e) {
      // Never served without its settings: a protected link must not open by accident.
      log.error("a link's smart settings could not be read; the link is not served", { id: r.id, error: String(e) });
      return null;
    }
    if (smart) cached.smart = smart;
  }
  return cached;
}

/**
 * The code → link map, filled from the database before the app serves (awaited once here);
 * after that every read and update of it is synchronous: the redirect never awaits (issue 12).
 */
export async function createLinks(ctx: AppContext, opts: { maxClickBacklog?: number | undefined } = {}) {
  // The brand tracker with a host of its own (BRAND_DOMAIN neither the app's host nor
  // SHORT_DOMAIN): a code is unique per tracker, and a redirect asks the tracker of the host it
  // arrived on first. Otherwise both trackers print on one host and a code names one link.
  const { brandDomain } = ctx.config;
  const sharedCodes = !codesPerTracker(ctx.config);
  const store = linksStore(ctx.db, { maxPerUser: ctx.config.quotas.linksPerUser, sharedCodes });
  /** The tracker a request's host names first. */
  const trackerAt = (host: string | null | undefined): Tracker => (!sharedCodes && host === brandDomain ? "brand" : "main");
  const tags = tagsStore(ctx.db, { maxPerUser: ctx.config.quotas.tagsPerUser });
  /** Tag names → the user's tag ids, made where missing (undefined: the link's tags are left as they are). */
  const tagIdsFor = async (userId: number, names: readonly string[] | undefined) => (names ? (await tags.ensure(userId, names)).map((t) => t.id) : undefined);
  // Every instance runs this at start, with no lock: one UPDATE that writes only when the URL
  // differs, so N instances with the same ROOT_REDIRECT_URL set it once and the rest find it
  // done (instances configured apart would each set theirs: configure them alike, README).
  await store.syncRootUrl(ctx.config.rootRedirectUrl);

  // Clicks are written (and the WAL checkpointed) by a worker with its own connection.
  const recorder = new ClickRecorder(ctx.db, {
    ipStorage: ctx.config.ipStorage,
    geoipDb: ctx.config.geoipDb,
    maxBacklog: opts.maxClickBacklog,
    databaseUrl: ctx.config.databaseUrl,
    retentionDays: ctx.config.clickRetentionDays,
    detailPerMinute: ctx.config.clickDetailPerMinute ?? Number.POSITIVE_INFINITY,
    walLimitBytes: ctx.config.walLimitBytes,
  });
  // Every captured click is written and the worker closed before (in serve) the database closes.
  ctx.shutdownHooks.push(() => recorder.stop());

  const smart = await smartRuntime(ctx, store);
  /** A limited link's count starts from what the row says (its clicks when read). */
  const seed = (row: RedirectRow, c: CachedLink | null) => {
    if (c?.smart?.maxClicks != null) smart.seed(row.id, Number(row.click_count ?? 0), row.clicks_reset == null ? null : Number(row.clicks_reset));
    else smart.forget(row.id);
  };

  // One map for both trackers (its bytes per link unchanged): a brand link's key is its code
  // behind a character no code has, so `promo` can be in each tracker.
  let byCode = new RedirectMap();
  /** The link under `code` in the host's tracker, else in the other (so no printed link changes). */
  const find = (code: string, host?: string | null) => {
    const first = trackerAt(host);
    return byCode.get(keyOf(first, code)) ?? byCode.get(keyOf(first === "main" ? "brand" : "main", code));
  };
  // Several instances: a miss asks the database (a code another instance created a moment ago),
  // at a bounded rate. One instance on SQLite: its map has every link, a miss is a 404.
  const misses = ctx.config.databaseUrl ? missLookup(async (code) => {
    const rows = await store.forRedirectByCode(code);
    return rows.length ? rows : null;
  }) : null;
  const put = (row: RedirectRow) => {
    const c = toCached(row);
    misses?.forget(row.short_code);
    seed(row, c);
    if (c) byCode.set(keyOf(row.tracker, row.short_code), c);
    else byCode.delete(keyOf(row.tracker, row.short_code));
  };
  /** A plain link of a whole load that no pack could hold (mapPack.ts). */
  const addRow = (map: RedirectMap, r: PlainRedirectRow) => {
    const c = toCached(r);
    smart.forget(r.id);
    if (c) map.add(keyOf(r.tracker, r.short_code), c);
  };
  /**
   * Smart links, each with its settings, into a map of plain links. Set, not added: on PostgreSQL
   * a link that became smart after its page was read is in the map already (the follower replays
   * the change too).
   */
  const addSmart = async (next: RedirectMap) => {
    for (const r of await store.smartForRedirect()) {
      const c = toCached(r);
      seed(r, c);
      if (c) next.set(keyOf(r.tracker, r.short_code), c);
      else next.delete(keyOf(r.tracker, r.short_code));
    }
  };
  /** The snapshot's links and the smart links as the map; the watermark the follower starts from (null: read every link). */
  const loadSnapshot = async (path: string, identity: string) => {
    const started = performance.now();
    const read = readMapSnapshot(path, identity);
    if (!read.snapshot) {
      if (read.why !== "no snapshot") log.info("redirect map snapshot not used", { path, why: read.why });
      return null;
    }
    const { pack, odd, watermark } = read.snapshot;
    const next = new RedirectMap();
    next.reserveFor(pack.count + odd.length, pack.bytes.byteLength);
    next.addPacked(pack);
    for (const [key, link] of odd) next.add(key, link);
    await addSmart(next);
    next.trim();
    byCode = next;
    // The file's buffer and the pack (~250 MB at a million links) go now, as after loadAll.
    Bun.gc(true);
    log.info("redirect map loaded", { links: next.size, ms: Math.round(performance.now() - started), from: "snapshot", atMs: Math.round(performance.now()) });
    return watermark;
  };
  /**
   * Reads every link into a new map, then serves from it: redirects use the old one meanwhile.
   * The reader thread reads and packs the upper ids at the same time (src/links/mapPack.ts).
   */
  const loadAll = async () => {
    const started = performance.now();
    const next = new RedirectMap();
    const { count, maxId } = await store.redirectSpan();
    // Room for them all at once: 128 bytes of code and destination each, so the arena is
    // written once, not copied as it grows (the unused tail is never touched: trim).
    next.reserveFor(count, count * 128);
    const reader = ctx.db.reader;
    const split = reader && count > REDIRECT_SPLIT_MIN ? Math.floor(maxId * OWN_SHARE) : maxId;
    // A thread that fails leaves its part to this one.
    const theirs = split < maxId ? reader!.packLinks(split, maxId).catch(() => null) : Promise.resolve([]);
    const addPack = (p: LinkPack) => {
      next.addPacked(p);
      for (const r of p.rows) addRow(next, r);
    };
    // This thread packs its pages too: a pack's add makes no object per link (adding its 500,000
    // links took 0.28–0.47 s against 0.46–0.59 s row by row, PostgreSQL, docs/performance.md).
    for await (const page of store.allForRedirect({ upTo: split })) addPack(packRows(page));
    const ownMs = performance.now() - started;
    const packs = await theirs;
    if (packs) for (const p of packs) addPack(p);
    else for await (const page of store.allForRedirect({ after: split })) addPack(packRows(page));
    await addSmart(next);
    next.trim();
    byCode = next;
    // The rows' and the packs' garbage (~100 MB at a million links) is collected now: this
    // thread's heap is large and rarely collected whole, so it would stay resident until then.
    Bun.gc(true);
    // Start-up's largest part (issue 21: ≤ 2 s at a million links), for the operator to see.
    log.info("redirect map loaded", { links: next.size, ms: Math.round(performance.now() - started), ownMs: Math.round(ownMs), split: split < maxId, atMs: Math.round(performance.now()) });
  };
  // N instances on one PostgreSQL: every other instance's link writes reach this map through
  // LISTEN/NOTIFY (follow.ts), which listens, then loads the map in order with those changes.
  // SQLite serves one instance, whose own writes (remember/forget below) keep the map exact.
  // On PostgreSQL a start begins from the map a graceful stop left in DATA_DIR, when it is of
  // this database and build (mapSnapshot.ts), and the follower reads what changed since.
  const snapshotAt = ctx.config.databaseUrl && ctx.config.mapSnapshot ? join(ctx.config.dataDir, SNAPSHOT_FILE) : null;
  const identity = snapshotAt ? await snapshotIdentity(store) : null;
  if (snapshotAt && !identity) log.info("redirect map snapshot off: this database does not let the app read its identity (pg_control_system)");
  const fromSnapshot = snapshotAt && identity ? await loadSnapshot(snapshotAt, identity) : null;
  const follower = ctx.config.databaseUrl
    ? await followLinks(
        ctx.config.databaseUrl,
        store,
        {
          put,
          // The notification names the code and the link, not its tracker: whichever key it is under.
          drop: (code, id) => {
            for (const key of [keyOf("main", code), keyOf("brand", code)]) if (byCode.get(key)?.id === id) byCode.delete(key);
          },
          reloadAll: loadAll,
        },
        fromSnapshot ?? undefined,
      )
    : null;
  if (follower) {
    ctx.shutdownHooks.push(async () => {
      await follower.stop();
      // Stopped, the map holds every change below the watermark; a later one is read again at
      // the next start (applying a change twice leaves the link as it is now).
      const watermark = follower.watermark;
      if (!snapshotAt || !identity || !watermark) return;
      const t0 = performance.now();
      try {
        writeMapSnapshot(snapshotAt, identity, { watermark, ...byCode.plainPack() });
        log.info("redirect map kept for the next start", { links: byCode.size, ms: Math.round(performance.now() - t0) });
      } catch (e) {
        log.warn("the redirect map could not be kept for the next start", { path: snapshotAt, error: String(e) });
      }
    });
  } else await loadAll();

  const ownHosts = [...new Set([ctx.config.appHost, ctx.config.shortDomain, ctx.config.brandDomain])];
  const dbFile = ctx.db.sqlite?.filename ?? null;
  const walOver = () => dbFile !== null && walBytes(dbFile) > walCheckpointAt(ctx.config.walLimitBytes);

  const published = () => follower?.barrier() ?? Promise.resolve();
  const remember = (row: RedirectRow, previousCode?: string) => {
    if (previousCode && previousCode !== row.short_code) byCode.delete(keyOf(row.tracker, previousCode));
    put(row);
  };

  return {
    store,
    /** The user's tags (src/tags): a link names them; the tag routes manage them. */
    tags,
    /** The event log, for a change that is not one link's write (an import's end). */
    events: eventsStore(ctx.db),
    recorder,
    /** Smart links' counts, password page tallies, cookie key (src/smart/runtime.ts). */
    smart,
    ownHosts,
    /** The link a redirect on `host` serves for `code` (its tracker's first, see trackerAt). */
    lookup: find,
    trackerAt,
    /**
     * After a miss in lookup: the link as the database has it now, when several instances share
     * it and the rate allows (missLookup.ts); undefined otherwise. Not put in the map: the
     * follower does that, in order with every other change, so a later delete cannot be undone.
     */
    async lookupMissing(code: string, host?: string | null): Promise<CachedLink | undefined> {
      const rows = misses ? await misses.lookup(code) : null;
      if (!rows || find(code, host)) return find(code, host);
      const first = trackerAt(host);
      const row = rows.find((r) => r.tracker === first) ?? rows[0]!;
      const c = toCached(row);
      if (c?.smart?.maxClicks != null) smart.seed(row.id, Number(row.click_count ?? 0));
      return c ?? undefined;
    },
    /** The map may be missing changes (follow.ts: listener lost or silent, catching up); still served. */
    isStale: () => follower?.stale === true,
    /**
     * Awaited by every link write before it answers: resolves once every live instance has the
     * write in its map (follow.ts, barrier; at most ACK_WAIT_MS). At once on SQLite.
     */
    published,
    /**
     * Keeps the redirect map exact after a create or an edit (old code removed when renamed).
     * Any row with the redirect's columns will do (a route's LinkRow, or one read by code).
     */
    remember,
    forget: (code: string, tracker: Tracker) => byCode.delete(keyOf(tracker, code)),
    /**
     * Between two transactions of a bulk create or an import: a turn of the event loop for
     * redirects and other requests, and (SQLite) while the WAL is past a quarter of WAL_LIMIT_MB, up
     * to WAL_GAP_MS with no transaction open, so the click worker's TRUNCATE checkpoint (whose
     * busy handler polls for the write lock) wins the lock instead of meeting the next batch
     * (clickWorker.ts watchWal). The worker is started if no click has started it yet.
     */
    async writeGap() {
      await nextTurn();
      if (!walOver()) return;
      recorder.start();
      for (let waited = 0; waited < WAL_GAP_MS && walOver(); waited += 5) await Bun.sleep(5);
    },
    /**
     * One link, checked as every create is (the schema has run: here the destination's host,
     * the expiry and a free code). A code left empty is generated. Throws the error answer.
     * With an `externalId` the user's link already has, that link (`existing`), unchanged: a
     * retried create, even one racing the first, never makes a second link.
     */
    async create(userId: number, tracker: Tracker, body: CreateInput): Promise<{ row: LinkRow; existing: boolean }> {
      const externalId = body.externalId ?? null;
      const prior = async () => {
        const row = externalId ? await store.byExternalId(userId, externalId) : null;
        if (row && row.tracker !== tracker) throw conflict(MSG.externalIdOther, { externalId: MSG.externalIdOther });
        return row;
      };
      const first = await prior();
      if (first) return { row: first, existing: true };
      refuse(newLinkProblem(body, ownHosts));
      const smartText = await smartJson(body.smart, null, ownHosts);
      const tagIds = await tagIdsFor(userId, body.tags);
      let code = body.shortCode || null;
      if (code && (await store.codeTaken(code, tracker))) throw codeConflict();
      for (let i = 0; !code && i < 10; i++) {
        const c = generateCode();
        if (!isReserved(c) && !(await store.codeTaken(c, tracker))) code = c;
      }
      if (!code) throw conflict(BULK_MSG.noCode);
      // Two creates racing for one code or one externalId: the UNIQUE constraints decide, in
      // the store; the loser of an externalId race answers with the winner's link.
      let row: LinkRow;
      try {
        row = await store.create(userId, tracker, { ...body, shortCode: code, externalId, tagIds, smartJson: smartText });
      } catch (e) {
        const won = e instanceof AppError && e.code === "CONFLICT" ? await prior() : null;
        if (won) return { row: won, existing: true };
        throw e;
      }
      remember(row);
      await published();
      return { row, existing: false };
    },
    /**
     * Links already checked (rules.ts checkItem) written in one transaction, each put in the
     * redirect map at once. Aligned with `items`: the row, or the reason it was not written
     * (its code is taken, or the owner's link quota is full: QUOTA_EXCEEDED for that item and
     * every later one). At most WRITE_BATCH items a call.
     */
    async createMany(userId: number, tracker: Tracker, items: readonly NewLink[]): Promise<(LinkRow | Existing | ItemError)[]> {
      if (items.length === 0) return [];
      // The batch's tags are made in one go; over the tag quota, the items naming tags are
      // refused and the others written.
      const tagIds = new Map<string, number>();
      const refused = new Set<number>();
      const isQuota = (e: unknown) => e instanceof AppError && e.code === "QUOTA_EXCEEDED";
      const keep = (made: { id: number; name: string }[]) => {
        for (const t of made) tagIds.set(tagKey(t.name), t.id);
      };
      try {
        keep(await tags.ensure(userId, items.flatMap((i) => i.tags ?? [])));
      } catch (e) {
        if (!isQuota(e)) throw e;
        // Past the cap: item by item, in order, so the items naming tags that exist (or fit) go in.
        for (const [i, item] of items.entries()) {
          if (!item.tags?.length) continue;
          try {
            keep(await tags.ensure(userId, item.tags));
          } catch (e2) {
            if (!isQuota(e2)) throw e2;
            refused.add(i);
          }
        }
      }
      // Smart settings hashed and checked per item, one after the other: a password's hash takes
      // ~35 ms of a core (off the event loop), so a batch of them never takes every core from
      // the redirects. An item whose settings name a refused destination is refused alone.
      const smartRefusals = new Map<number, ItemError>();
      const smartTexts: (string | null)[] = [];
      for (const [i, item] of items.entries()) {
        smartTexts.push(null);
        if (refused.has(i) || !item.smart) continue;
        try {
          smartTexts[i] = await smartJson(item.smart, null, ownHosts);
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          smartRefusals.set(i, { code: "VALIDATION", message: e.message, ...(e.fields ? { fields: e.fields } : {}) });
          refused.add(i);
        }
      }
      const writing = items.flatMap((item, i) => (refused.has(i) ? [] : [{ ...item, smartJson: smartTexts[i], tagIds: (item.tags ?? []).flatMap((n) => tagIds.get(tagKey(n)) ?? []) }]));
      const written = await store.createMany(userId, tracker, writing, freshCode);
      let w = 0;
      const rows = items.map((_, i) => (refused.has(i) ? null : written[w++]!));
      const out = rows.map((row, i) => {
        if (smartRefusals.has(i)) return smartRefusals.get(i)!;
        if (refused.has(i)) return refusal("QUOTA_EXCEEDED", QUOTA_MSG.tags(tags.maxPerUser), "tags");
        if (row === OVER_QUOTA) return refusal("QUOTA_EXCEEDED", QUOTA_MSG.links(store.maxPerUser));
        if (row && "existing" in row) return row.existing.tracker === tracker ? row : refusal("CONFLICT", MSG.externalIdOther, "externalId");
        if (!row) return items[i]!.shortCode === null ? refusal("CONFLICT", BULK_MSG.noCode) : refusal("CONFLICT", MSG.codeTaken, "shortCode");
        remember(row);
        return row;
      });
      // Every instance has them before the answer (one barrier per batch of links).
      await published();
      return out;
    },
    /**
     * Replaces a link's values (the row as read for its owner). The root link is never edited;
     * a new expiry must be in the future; a new code must be free.
     */
    async edit(row: LinkRow, userId: number, change: EditInput): Promise<LinkRow> {
      if (row.is_system) throw forbidden("The root link cannot be edited");
      refuse(destinationRefused(change.originalUrl, ownHosts));
      if (row.tracker === "main") refuse(expiryProblem(change.expiresAt, row.expires_at));
      const shortCode = change.shortCode;
      if (shortCode !== null && shortCode !== row.short_code && (await store.codeTaken(shortCode, row.tracker, row.id))) throw codeConflict();
      // New settings count from every click captured so far (as PUT …/smart: the row read after
      // the flush seeds the limit); absent ones are left as they are in the row.
      if (change.smart !== undefined) await recorder.flush();
      const smartText = change.smart === undefined ? undefined : await smartJson(change.smart, readStored(row), ownHosts);
      const tagIds = await tagIdsFor(userId, change.tags);
      const updated =
        row.tracker === "main"
          ? await store.edit(row.id, userId, row.tracker, { ...change, shortCode, expiresAt: change.expiresAt ?? null, tagIds, smartJson: smartText })
          : await store.update(row.id, userId, row.tracker, { ...change, shortCode: shortCode ?? row.short_code, tagIds, smartJson: smartText });
      if (!updated) throw notFound("Link not found");
      remember(updated, row.short_code);
      await published();
      return updated;
    },
    /**
     * A partial edit: the fields given replace the link's, the rest are kept (a null
     * description or expiry clears it). Then checked and written as a whole edit is.
     */
    patch(row: LinkRow, userId: number, change: Partial<EditInput>): Promise<LinkRow> {
      return this.edit(row, userId, {
        originalUrl: change.originalUrl ?? row.original_url,
        title: change.title ?? row.title,
        description: change.description === undefined ? (row.description ?? "") : change.description,
        shortCode: change.shortCode ?? null,
        expiresAt: change.expiresAt === undefined ? row.expires_at : change.expiresAt,
        tags: change.tags,
        smart: change.smart,
      });
    },
    /** Deletes a link; buffered clicks for it are written first, so none is left pointing at nothing. */
    async remove(row: LinkRow, userId: number) {
      if (row.is_system) throw forbidden("The root link cannot be deleted");
      await recorder.flush();
      const gone = await store.delete(row.id, userId, row.tracker);
      if (!gone) throw notFound("Link not found");
      byCode.delete(keyOf(row.tracker, gone.short_code));
      await published();
    },
    /** The link's clicks cleared (every captured click written first, so none comes back). */
    async resetClicks(row: LinkRow): Promise<LinkRow> {
      await recorder.flush();
      await store.resetClicks(row.id);
      // A click limit counts from zero again (this instance's count; others read the database's).
      smart.reset(row.id);
      return { ...row, click_count: 0 };
    },
    // The root link is the bare brand domain: GET / there redirects through it.
    shortUrl: (row: Pick<LinkRow, "tracker" | "short_code" | "is_system">) => shortUrlOf(row, ctx.config),
    view(row: LinkRow): LinkView {
      return {
        id: row.id,
        shortCode: row.short_code,
        shortUrl: this.shortUrl(row),
        originalUrl: row.original_url,
        title: row.title,
        description: row.description,
        active: row.active === 1,
        isSystem: row.is_system === 1,
        clickCount: row.click_count,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        expiresAt: row.expires_at,
        hostWarning: hostWarning(row.original_url),
        externalId: row.external_id,
        tags: tagNames(row),
        importedClicks: row.imported_clicks === null ? null : Number(row.imported_clicks),
        // The limit's count as PUT …/smart reports it: this instance's clicks may be ahead of the row's.
        smart: smartBadges(row.smart, row.smart ? Math.max(row.click_count, smart.clicks(row.id)) : 0),
      };
    },
  };
}

export type Links = Awaited<ReturnType<typeof createLinks>>;
