// The invites API's response shapes, shared with the web app (which may import only schema.ts
// files and src/shared/ from the server).
import * as v from "valibot";

/** POST /api/invites: a new single-use invite link (the code is shown only here). */
export const Invite = v.object({ code: v.string(), createdAt: v.string(), expiresAt: v.string(), url: v.string() });
export type Invite = v.InferOutput<typeof Invite>;

/** GET /api/invites/{code}: who invited, and whether the code can still be used. */
export const InviteInfo = v.object({ inviter: v.string(), status: v.picklist(["valid", "used", "expired"]), expiresAt: v.string() });
export type InviteInfo = v.InferOutput<typeof InviteInfo>;

/** POST /api/invites/{code}/accept. */
export const InviteAccepted = v.object({ ok: v.literal(true), owner: v.object({ id: v.number(), username: v.string() }) });

/** GET /api/sharing-members: one person who sees your shared topics (accepted your invite). */
export const SharingMember = v.object({ id: v.number(), username: v.string(), since: v.string() });
export type SharingMember = v.InferOutput<typeof SharingMember>;
