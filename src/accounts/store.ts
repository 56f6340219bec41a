// The only SQL for users and sessions.
import type { Db } from "../db/open";
import { uniqueOr } from "../db/constraints";
import { conflict } from "../http/errors";
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

export function accountsStore(db: Db) {
  const q = {
    insertUser: db.prepare(
      `INSERT INTO users (username, password_hash, email, created_at, updated_at)
       VALUES ($username, $hash, $email, $now, $now) RETURNING *`,
    ),
    byUsername: db.prepare(`SELECT * FROM users WHERE username = ?`),
    byId: db.prepare(`SELECT * FROM users WHERE id = ?`),
    taken: db.prepare(
      `SELECT (SELECT 1 FROM users WHERE username = $username) AS username,
              (SELECT 1 FROM users WHERE email = $email) AS email`,
    ),
    firstUser: db.prepare(`SELECT id FROM users ORDER BY id LIMIT 1`),
    setPlan: db.prepare(
      `UPDATE users SET subscription_type = $type, subscription_expires_at = $expires, updated_at = $now
       WHERE id = $id RETURNING *`,
    ),
    setPassword: db.prepare(`UPDATE users SET password_hash = $hash, updated_at = $now WHERE id = $id`),
    insertSession: db.prepare(
      `INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES ($id, $userId, $now, $expires)`,
    ),
    sessionUser: db.prepare(
      `SELECT u.*, s.id AS session_id, s.expires_at AS session_expires_at
       FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.id = $id AND s.expires_at > $now`,
    ),
    extendSession: db.prepare(`UPDATE sessions SET expires_at = $expires WHERE id = $id`),
    deleteSession: db.prepare(`DELETE FROM sessions WHERE id = ?`),
    deleteUserSessions: db.prepare(`DELETE FROM sessions WHERE user_id = ?`),
    deleteExpired: db.prepare(`DELETE FROM sessions WHERE expires_at <= ?`),
    deviceKnown: db.prepare(`SELECT 1 FROM login_devices WHERE token_hash = $hash AND user_id = $userId AND last_used_at > $since`),
    // A browser's new token takes over every account its old one was known for.
    rotateDevice: db.prepare(`UPDATE OR REPLACE login_devices SET token_hash = $hash WHERE token_hash = $old`),
    rememberDevice: db.prepare(
      `INSERT INTO login_devices (token_hash, user_id, last_used_at) VALUES ($hash, $userId, $now)
       ON CONFLICT (token_hash, user_id) DO UPDATE SET last_used_at = excluded.last_used_at`,
    ),
    // Keeps an account's most recently used browsers; older ones sign in as strangers again.
    trimDevices: db.prepare(
      `DELETE FROM login_devices WHERE user_id = $userId AND token_hash NOT IN (
         SELECT token_hash FROM login_devices WHERE user_id = $userId ORDER BY last_used_at DESC LIMIT $keep)`,
    ),
    deleteStaleDevices: db.prepare(`DELETE FROM login_devices WHERE last_used_at <= ?`),
  };

  function taken(username: string, email: string) {
    const r = q.taken.get({ username, email }) as { username: 1 | null; email: 1 | null };
    return { username: !!r.username, email: !!r.email };
  }

  /** The CONFLICT naming the field already in use (username first), or null when both are free. */
  function takenConflict(username: string, email: string) {
    const t = taken(username, email);
    if (t.username) return conflict(TAKEN.username, { username: TAKEN.username });
    if (t.email) return conflict(TAKEN.email, { email: TAKEN.email });
    return null;
  }

  return {
    /**
     * Two sign-ups racing for one name both pass the route's check (the password hash runs
     * between it and this insert); the UNIQUE constraint decides, and the loser gets the same
     * CONFLICT the check gives, read back after the clash.
     */
    createUser(username: string, hash: string, email: string) {
      return uniqueOr(
        () => q.insertUser.get({ username, hash, email, now: nowIso() }) as UserRow,
        () => takenConflict(username, email) ?? conflict("That username or email is already taken"),
      );
    },
    findByUsername: (username: string) => q.byUsername.get(username) as UserRow | null,
    findById: (id: number) => q.byId.get(id) as UserRow | null,
    takenConflict,
    firstUserId: () => (q.firstUser.get() as { id: number } | null)?.id ?? null,
    setPlan(id: number, type: "free" | "premium", expires: string | null) {
      return q.setPlan.get({ id, type, expires, now: nowIso() }) as UserRow | null;
    },
    /** Replaces the stored hash of the same password (a parameter upgrade): sessions stay. */
    setPasswordHash: (id: number, hash: string) => q.setPassword.run({ id, hash, now: nowIso() }),
    setPassword(id: number, hash: string) {
      db.transaction(() => {
        q.setPassword.run({ id, hash, now: nowIso() });
        // A new password ends every existing session.
        q.deleteUserSessions.run(id);
      }).immediate();
    },
    createSession(id: string, userId: number, expires: string) {
      q.insertSession.run({ id, userId, expires, now: nowIso() });
    },
    sessionUser: (id: string) => q.sessionUser.get({ id, now: nowIso() }) as SessionUser | null,
    extendSession: (id: string, expires: string) => q.extendSession.run({ id, expires }),
    deleteSession: (id: string) => q.deleteSession.run(id),
    deleteExpiredSessions: () => q.deleteExpired.run(nowIso()).changes,
    /** Has this browser (its device token's hash) signed in to this account since `since`? */
    isKnownDevice: (hash: string, userId: number, since: string) => q.deviceKnown.get({ hash, userId, since }) !== null,
    /** Records `hash` as a browser that signed in to `userId`, replacing its previous token `old`. */
    rememberDevice(hash: string, old: string | null, userId: number, keep: number) {
      db.transaction(() => {
        if (old !== null) q.rotateDevice.run({ hash, old });
        q.rememberDevice.run({ hash, userId, now: nowIso() });
        q.trimDevices.run({ userId, keep });
      }).immediate();
    },
    deleteStaleDevices: (before: string) => q.deleteStaleDevices.run(before).changes,
  };
}
