// The only SQL for invites and the shares they create.
import type { Database, Queries } from "../db/database";
import { DAY_MS, nowIso } from "../shared/time";
import { appendEvents } from "../events/store";

export const INVITE_TTL_MS = 7 * DAY_MS;
/** Open (unused, unexpired) invites one user may hold: plenty for people, a wall for scripts. */
export const MAX_OPEN_INVITES = 50;
/** 128 random bits, base64url: 22 characters. */
export const INVITE_CODE = /^[A-Za-z0-9_-]{22}$/;

export const hashCode = (code: string) => new Bun.CryptoHasher("sha256").update(code).digest("hex");

type InviteRow = {
  code_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
  used_by: number | null;
  used_at: string | null;
  inviter: string;
};

export type InviteStatus = "valid" | "used" | "expired";

export type AcceptResult =
  | { ok: true; ownerId: number; inviter: string }
  | { ok: false; reason: "unknown" | "own" | "used" | "expired" | "already"; inviter?: string };

const statusOf = (r: InviteRow, now = Date.now()): InviteStatus =>
  r.used_by !== null ? "used" : Date.parse(r.expires_at) <= now ? "expired" : "valid";

export function invitesStore(db: Database) {
  const find = async (q: Queries, code: string) =>
    INVITE_CODE.test(code)
      ? q.get<InviteRow>(`SELECT i.*, u.username AS inviter FROM invites i JOIN users u ON u.id = i.user_id WHERE i.code_hash = ?`, hashCode(code))
      : null;

  return {
    openCount: async (userId: number) =>
      (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM invites WHERE user_id = $userId AND used_by IS NULL AND expires_at > $now`, {
        userId,
        now: nowIso(),
      }))!.n,

    /** A new single-use code; only its hash is stored, so the code is returned once, here. */
    async create(userId: number) {
      const code = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
      // One clock reading for both, so the lifetime is exactly INVITE_TTL_MS.
      const at = Date.now();
      const now = new Date(at).toISOString();
      const expiresAt = new Date(at + INVITE_TTL_MS).toISOString();
      await db.tx(async (q) => {
        // Spent and long-expired invites are of no use to anyone; they are swept when new ones are made.
        await q.run(`DELETE FROM invites WHERE user_id = $userId AND expires_at <= $before`, { userId, before: new Date(at - 30 * DAY_MS).toISOString() });
        await q.run(`INSERT INTO invites (code_hash, user_id, created_at, expires_at) VALUES ($hash, $userId, $now, $expires)`, {
          hash: hashCode(code),
          userId,
          now,
          expires: expiresAt,
        });
      });
      return { code, createdAt: now, expiresAt };
    },

    /** Who invited, and whether the code can still be used; null for an unknown code. */
    async describe(code: string) {
      const r = await find(db, code);
      return r ? { inviter: r.inviter, status: statusOf(r), expiresAt: r.expires_at } : null;
    },

    /** `memberName`: for the invite.accepted event (and so the owner's notification). */
    accept(code: string, memberId: number, memberName: string): Promise<AcceptResult> {
      return db.tx(async (q): Promise<AcceptResult> => {
        const r = await find(q, code);
        if (!r) return { ok: false, reason: "unknown" };
        if (r.user_id === memberId) return { ok: false, reason: "own", inviter: r.inviter };
        const status = statusOf(r);
        if (status !== "valid") return { ok: false, reason: status, inviter: r.inviter };
        // Already sharing: the code stays unused, so it can still be handed to someone else.
        if (await q.get(`SELECT 1 AS x FROM shares WHERE owner_id = $owner AND member_id = $member`, { owner: r.user_id, member: memberId })) {
          return { ok: false, reason: "already", inviter: r.inviter };
        }
        const now = nowIso();
        // used_by IS NULL in the WHERE makes single use hold even for two accepts at once (on
        // PostgreSQL the second waits for the first's row lock, then finds used_by set).
        const used = await q.run(`UPDATE invites SET used_by = $member, used_at = $now WHERE code_hash = $hash AND used_by IS NULL AND expires_at > $now`, {
          member: memberId,
          now,
          hash: r.code_hash,
        });
        if (used === 0) return { ok: false, reason: "used", inviter: r.inviter };
        await q.run(`INSERT INTO shares (owner_id, member_id, created_at) VALUES ($owner, $member, $now) ON CONFLICT DO NOTHING`, {
          owner: r.user_id,
          member: memberId,
          now,
        });
        await appendEvents(q, [{ type: "invite.accepted", userId: r.user_id, data: { memberId, member: memberName } }]);
        return { ok: true, ownerId: r.user_id, inviter: r.inviter };
      });
    },

    /** Who sees `ownerId`'s shared topics (accepted an invite), with when they joined. */
    members: (ownerId: number) =>
      db.all<{ id: number; username: string; since: string }>(
        `SELECT u.id, u.username, s.created_at AS since FROM shares s JOIN users u ON u.id = s.member_id WHERE s.owner_id = ? ORDER BY u.username`,
        ownerId,
      ),

    /**
     * Ends one share: the owner removing a member, or a member leaving. Both ids are in the
     * WHERE, so a pair that does not exist (someone else's share included) changes nothing
     * and answers false. Invites already accepted stay spent: coming back takes a new one.
     */
    endShare: async (ownerId: number, memberId: number) =>
      (await db.run(`DELETE FROM shares WHERE owner_id = $owner AND member_id = $member`, { owner: ownerId, member: memberId })) > 0,
  };
}
