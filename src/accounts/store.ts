// The only SQL for users and sessions.
import type { Database, Queries } from "../db/database";
import { uniqueOr } from "../db/constraints";
import { conflict } from "../shared/errors";
import { nowIso } from "../shared/time";

const TAKEN = {
  username: "That username is already taken",
  email: "An account with that email already exists",
} as const;

export type UserRow = {
  id: number;
  username: string;
  password_hash: string;
  email: string;
  subscription_type: "free" | "premium";
  subscription_expires_at: string | null;
  created_at: string;
  updated_at: string;
};

export type SessionUser = UserRow & { session_id: string; session_expires_at: string };

const SET_PASSWORD = `UPDATE users SET password_hash = $hash, updated_at = $now WHERE id = $id`;

export function accountsStore(db: Database) {
  async function taken(username: string, email: string) {
    const r = (await db.get<{ username: 1 | null; email: 1 | null }>(
      `SELECT (SELECT 1 FROM users WHERE username = $username) AS username,
              (SELECT 1 FROM users WHERE email = $email) AS email`,
      { username, email },
    ))!;
    return { username: !!r.username, email: !!r.email };
  }

  /** The CONFLICT naming the field already in use (username first), or null when both are free. */
  async function takenConflict(username: string, email: string) {
    const t = await taken(username, email);
    if (t.username) return conflict(TAKEN.username, { username: TAKEN.username });
    if (t.email) return conflict(TAKEN.email, { email: TAKEN.email });
    return null;
  }

  const insertUser = async (q: Queries, username: string, hash: string, email: string) =>
    (await q.get<UserRow>(
      `INSERT INTO users (username, password_hash, email, created_at, updated_at)
       VALUES ($username, $hash, $email, $now, $now) RETURNING *`,
      { username, hash, email, now: nowIso() },
    ))!;

  /**
   * Two sign-ups racing for one name both pass the route's check (the password hash runs
   * between it and this insert); the UNIQUE constraint decides, and the loser gets the same
   * CONFLICT the check gives. Read back once the write (and its transaction) has ended: on
   * PostgreSQL the failed statement aborted the transaction, and on SQLite a read on the
   * database while it is still open would wait for it.
   */
  const clashing = <T>(write: () => Promise<T>, username: string, email: string) =>
    uniqueOr(write, async () => (await takenConflict(username, email)) ?? conflict("That username or email is already taken"));

  const insertSession = (q: Queries, id: string, userId: number, expires: string) =>
    q.run(`INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES ($id, $userId, $now, $expires)`, {
      id,
      userId,
      expires,
      now: nowIso(),
    });

  return {
    createUser: (username: string, hash: string, email: string) => clashing(() => insertUser(db, username, hash, email), username, email),
    /** A new account and its first session, both or neither (sign-up). */
    createUserWithSession: (username: string, hash: string, email: string, sessionId: string, expires: string) =>
      clashing(
        () =>
          db.tx(async (q) => {
            const user = await insertUser(q, username, hash, email);
            await insertSession(q, sessionId, user.id, expires);
            return user;
          }),
        username,
        email,
      ),
    findByUsername: (username: string) => db.get<UserRow>(`SELECT * FROM users WHERE username = ?`, username),
    findById: (id: number) => db.get<UserRow>(`SELECT * FROM users WHERE id = ?`, id),
    takenConflict,
    firstUserId: async () => (await db.get<{ id: number }>(`SELECT id FROM users ORDER BY id LIMIT 1`))?.id ?? null,
    setPlan: (id: number, type: "free" | "premium", expires: string | null) =>
      db.get<UserRow>(
        `UPDATE users SET subscription_type = $type, subscription_expires_at = $expires, updated_at = $now
         WHERE id = $id RETURNING *`,
        { id, type, expires, now: nowIso() },
      ),
    /** Replaces the stored hash of the same password (a parameter upgrade): sessions stay. */
    setPasswordHash: (id: number, hash: string) => db.run(SET_PASSWORD, { id, hash, now: nowIso() }),
    /**
     * A new password (an account reset): ends every session and, unless `keepKeys`, every API key
     * too, in the same transaction — whoever had the account may have minted keys with it.
     * Returns how many keys were revoked.
     */
    setPassword: (id: number, hash: string, opts: { keepKeys?: boolean } = {}) =>
      db.tx(async (q) => {
        await q.run(SET_PASSWORD, { id, hash, now: nowIso() });
        await q.run(`DELETE FROM sessions WHERE user_id = ?`, id);
        if (opts.keepKeys) return 0;
        return (await q.all(`DELETE FROM api_keys WHERE user_id = ? RETURNING id`, id)).length;
      }),
    createSession: (id: string, userId: number, expires: string) => insertSession(db, id, userId, expires),
    sessionUser: (id: string) =>
      db.get<SessionUser>(
        `SELECT u.*, s.id AS session_id, s.expires_at AS session_expires_at
         FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.id = $id AND s.expires_at > $now`,
        { id, now: nowIso() },
      ),
    extendSession: (id: string, expires: string) => db.run(`UPDATE sessions SET expires_at = $expires WHERE id = $id`, { id, expires }),
    deleteSession: (id: string) => db.run(`DELETE FROM sessions WHERE id = ?`, id),
    /** Which of `ids` are live sessions now (the live hub ends the streams of the others). */
    liveSessionIds: async (ids: readonly string[]) => {
      const live = new Set<string>();
      for (let at = 0; at < ids.length; at += 500) {
        const part = ids.slice(at, at + 500);
        const rows = await db.all<{ id: string }>(`SELECT id FROM sessions WHERE id IN (${part.map(() => "?").join(", ")}) AND expires_at > ?`, ...part, nowIso());
        for (const r of rows) live.add(r.id);
      }
      return live;
    },
    deleteExpiredSessions: () => db.run(`DELETE FROM sessions WHERE expires_at <= ?`, nowIso()),
    /** Has this browser (its device token's hash) signed in to this account since `since`? */
    isKnownDevice: async (hash: string, userId: number, since: string) =>
      (await db.get(`SELECT 1 AS x FROM login_devices WHERE token_hash = $hash AND user_id = $userId AND last_used_at > $since`, {
        hash,
        userId,
        since,
      })) !== null,
    /** Records `hash` as a browser that signed in to `userId`, replacing its previous token `old`. */
    rememberDevice: (hash: string, old: string | null, userId: number, keep: number) =>
      db.tx(async (q) => {
        // A browser's new token takes over every account its old one was known for, replacing
        // a row the new token may already have for it (SQLite's UPDATE OR REPLACE, in both).
        if (old !== null) {
          await q.run(`DELETE FROM login_devices WHERE token_hash = $hash AND user_id IN (SELECT user_id FROM login_devices WHERE token_hash = $old)`, { hash, old });
          await q.run(`UPDATE login_devices SET token_hash = $hash WHERE token_hash = $old`, { hash, old });
        }
        await q.run(
          `INSERT INTO login_devices (token_hash, user_id, last_used_at) VALUES ($hash, $userId, $now)
           ON CONFLICT (token_hash, user_id) DO UPDATE SET last_used_at = excluded.last_used_at`,
          { hash, userId, now: nowIso() },
        );
        // Keeps an account's most recently used browsers; older ones sign in as strangers again.
        await q.run(
          `DELETE FROM login_devices WHERE user_id = $userId AND token_hash NOT IN (
             SELECT token_hash FROM login_devices WHERE user_id = $userId ORDER BY last_used_at DESC LIMIT $keep)`,
          { userId, keep },
        );
      }),
    deleteStaleDevices: (before: string) => db.run(`DELETE FROM login_devices WHERE last_used_at <= ?`, before),
  };
}
