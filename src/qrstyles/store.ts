// The only SQL for saved QR styles. Ownership is inside every WHERE, so another user's style
// and a missing one are the same 404.
import type { Database } from "../db/database";
import { uniqueOr } from "../db/constraints";
import { AppError } from "../shared/errors";
import { nowIso } from "../shared/time";
import { QUOTA_MSG, assertRoom } from "../plans/quotas";
import type { QrCorners, QrDots, SaveQrStyleBody, SavedQrStyle } from "./schema";

type QrStyleRow = {
  id: number;
  user_id: number;
  name: string;
  foreground: string;
  background: string;
  dots: QrDots;
  corners: QrCorners;
  frame_text: string;
  created_at: string;
  updated_at: string;
};

const COLS = "id, user_id, name, foreground, background, dots, corners, frame_text, created_at, updated_at";
export const NAME_TAKEN = "You already have a style with this name";
const nameTaken = () => new AppError("CONFLICT", NAME_TAKEN, { name: NAME_TAKEN });

export function qrStylesStore(db: Database) {
  return {
    list: async (userId: number) => (await db.all<QrStyleRow>(`SELECT ${COLS} FROM qr_styles WHERE user_id = ? ORDER BY name, id`, userId)).map(toView),
    /**
     * A new style; QUOTA_EXCEEDED when the user already keeps `cap` (MAX_QR_STYLES_PER_USER, 0:
     * none), counted in the insert's transaction with the user's row locked first on PostgreSQL.
     */
    create: (userId: number, s: SaveQrStyleBody, cap = 0) =>
      uniqueOr(
        () =>
          db.tx(async (q) => {
            if (cap > 0) {
              if (q.dialect === "postgres") await q.get("SELECT 1 AS x FROM users WHERE id = ? FOR NO KEY UPDATE", userId);
              assertRoom((await q.get<{ n: number }>("SELECT COUNT(*) AS n FROM qr_styles WHERE user_id = ?", userId))!.n, cap, QUOTA_MSG.qrStyles);
            }
            const at = nowIso();
            const row = await q.get<QrStyleRow>(
              `INSERT INTO qr_styles (user_id, name, foreground, background, dots, corners, frame_text, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLS}`,
              userId, s.name, s.foreground, s.background, s.dots, s.corners, s.frameText, at, at,
            );
            return toView(row!);
          }),
        nameTaken,
      ),
    /** Replaces a style's name and look; null when the user has no such style. */
    replace: (id: number, userId: number, s: SaveQrStyleBody) =>
      uniqueOr(async () => {
        const row = await db.get<QrStyleRow>(
          `UPDATE qr_styles SET name = ?, foreground = ?, background = ?, dots = ?, corners = ?, frame_text = ?, updated_at = ?
           WHERE id = ? AND user_id = ? RETURNING ${COLS}`,
          s.name, s.foreground, s.background, s.dots, s.corners, s.frameText, nowIso(), id, userId,
        );
        return row ? toView(row) : null;
      }, nameTaken),
    remove: async (id: number, userId: number) => (await db.get("DELETE FROM qr_styles WHERE id = ? AND user_id = ? RETURNING id", id, userId)) !== null,
  };
}

const toView = (r: QrStyleRow): SavedQrStyle => ({
  id: r.id,
  name: r.name,
  foreground: r.foreground,
  background: r.background,
  dots: r.dots,
  corners: r.corners,
  frameText: r.frame_text,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
