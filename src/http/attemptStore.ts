// The only SQL for attempt limits (sign-in, sign-up, invite acceptance: LIMITS in rateLimit.ts).
// Counted in the database, not in the process, so N instances on one PostgreSQL share every
// count, and a restart forgets none (docs/decisions.md "Sign-in limits in the database").
import type { Database, Queries } from "../db/database";
import { hashToken } from "./auth";
import { LIMITS } from "./rateLimit";

type Limit = { readonly max: number; readonly windowMs: number };
type LimitName = keyof typeof LIMITS;
/** One limit and the subject it counts: an account name, an address, a device and account. */
type Attempt = [LimitName, string];
/** A slot taken for one attempt; given back on success. Its window is named by its end. */
export type Slot = { key: string; windowEndsAt: string };

/** Windows that ended are deleted at most this often per process (takes ignore them anyway). */
const SWEEP_EVERY_MS = 60_000;

/**
 * Takes one slot when the window has one left, in one statement: a new window when there is no
 * row or its window has ended, else one more attempt while under `max`. A full window is left
 * as it is (a refused request is not counted and does not push its own reset later), and the
 * statement returns no row. The row lock of the upsert makes parallel takes count one by one on
 * PostgreSQL; SQLite runs one statement at a time.
 */
const TAKE = `INSERT INTO attempt_counts (key, attempts, window_ends_at) VALUES ($key, 1, $ends)
  ON CONFLICT (key) DO UPDATE SET
    attempts = CASE WHEN attempt_counts.window_ends_at <= $now THEN 1 ELSE attempt_counts.attempts + 1 END,
    window_ends_at = CASE WHEN attempt_counts.window_ends_at <= $now THEN excluded.window_ends_at ELSE attempt_counts.window_ends_at END
  WHERE attempt_counts.window_ends_at <= $now OR attempt_counts.attempts < $max
  RETURNING window_ends_at`;

/** A take refused inside a transaction: rolls the slots already taken in it back. */
class Full extends Error {
  constructor(readonly waitMs: number) {
    super("attempt limit reached");
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

export function attemptStore(db: Database) {
  let sweptAt = 0;
  // Hashed: the table holds no account name or address (it outlives the process, in backups).
  const keyOf = ([name, subject]: Attempt) => hashToken(`${name}:${subject}`);

  async function takeOne(q: Queries, key: string, limit: Limit, now: number): Promise<Slot | null> {
    const row = await q.get<{ window_ends_at: string }>(TAKE, { key, ends: iso(now + limit.windowMs), now: iso(now), max: limit.max });
    return row && { key, windowEndsAt: row.window_ends_at };
  }

  /** Milliseconds until the window of `key` has a slot again (it is full at `now`). */
  async function waitFor(q: Queries, key: string, limit: Limit, now: number) {
    const row = await q.get<{ attempts: number; window_ends_at: string }>("SELECT attempts, window_ends_at FROM attempt_counts WHERE key = ?", key);
    if (!row || row.attempts < limit.max) return 0;
    // At most a window: parallel requests read the clock before they queue, so the one that
    // opened the window may have read a later time than this one did (or another instance's
    // clock runs ahead).
    return Math.min(limit.windowMs, Math.max(0, Date.parse(row.window_ends_at) - now));
  }

  return {
    /**
     * Takes one slot for every attempt, all or none. Counted before the slow work (the password
     * hash), so parallel requests cannot all pass a check before any of them is counted. The
     * slots, or the longest wait among the full windows (then nothing is taken).
     */
    async take(attempts: Attempt[], now = Date.now()): Promise<{ slots: Slot[] } | { waitMs: number }> {
      if (now - sweptAt > SWEEP_EVERY_MS) {
        sweptAt = now;
        await db.run("DELETE FROM attempt_counts WHERE window_ends_at <= ?", iso(now));
      }
      const keyed = attempts.map((a) => ({ key: keyOf(a), limit: LIMITS[a[0]] as Limit }));
      if (keyed.length === 0) return { slots: [] };
      if (keyed.length === 1) {
        const [{ key, limit }] = keyed as [(typeof keyed)[0]];
        const slot = await takeOne(db, key, limit, now);
        // Full: the wait is read apart (a window that just ended in between reads as 1 ms).
        return slot ? { slots: [slot] } : { waitMs: Math.max(1, await waitFor(db, key, limit, now)) };
      }
      // In key order, so two transactions lock shared rows in the same order (no deadlock).
      keyed.sort((a, b) => (a.key < b.key ? -1 : 1));
      try {
        return await db.tx(async (q) => {
          const slots: Slot[] = [];
          for (let i = 0; i < keyed.length; i++) {
            const { key, limit } = keyed[i]!;
            const slot = await takeOne(q, key, limit, now);
            if (slot) {
              slots.push(slot);
              continue;
            }
            // The windows taken so far had room; this one and any after it may be full.
            let waitMs = await waitFor(q, key, limit, now);
            for (const rest of keyed.slice(i + 1)) waitMs = Math.max(waitMs, await waitFor(q, rest.key, rest.limit, now));
            throw new Full(Math.max(1, waitMs));
          }
          return { slots };
        });
      } catch (e) {
        if (e instanceof Full) return { waitMs: e.waitMs };
        throw e;
      }
    },

    /** Gives slots back, each unless its window has since ended and a new one begun. */
    async refund(slots: Slot[]) {
      for (const s of slots) {
        await db.run("UPDATE attempt_counts SET attempts = attempts - 1 WHERE key = ? AND window_ends_at = ? AND attempts > 0", s.key, s.windowEndsAt);
      }
    },

    /** Forgets one subject's count for one limit. */
    async clear(attempt: Attempt) {
      await db.run("DELETE FROM attempt_counts WHERE key = ?", keyOf(attempt));
    },
  };
}
