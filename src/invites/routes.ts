import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { AppError, badRequest, conflict, notFound } from "../shared/errors";
import { tooManyAttempts } from "../http/rateLimit";
import { attemptStore } from "../http/attemptStore";
import { clientIp } from "../http/security";
import { MAX_OPEN_INVITES, invitesStore } from "./store";
import { Invite, InviteAccepted, InviteInfo, SharingMember } from "./schema";
import { rowId } from "../db/ids";
import * as v from "valibot";
import { defineOperations } from "../shared/apiOperations";

const UNKNOWN = "This invite link is not valid. Check the code and try again.";

export function inviteRoutes(ctx: AppContext, auth: AuthPlugin) {
  const store = invitesStore(ctx.db);
  const attempts = attemptStore(ctx.db);

  return new Elysia({ prefix: "/api" })
    .use(auth)
    .post(
      "/invites",
      async ({ user, set }) => {
        if ((await store.openCount(user.id)) >= MAX_OPEN_INVITES) {
          throw new AppError(
            "RATE_LIMITED",
            `You have ${MAX_OPEN_INVITES} unused invite links. Wait until some are used or expire before creating more.`,
          );
        }
        const invite = await store.create(user.id);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { ...invite, url: `${ctx.config.publicUrl}/invite/${invite.code}` };
      },
      { auth: true },
    )
    // Public: the /invite/{code} page shows who invited before asking the visitor to sign in.
    // The code itself is the secret (128 bits), so this reveals nothing to a guesser.
    .get("/invites/:code", async ({ params }) => {
      const found = await store.describe(params.code);
      if (!found) throw notFound(UNKNOWN);
      return found;
    })
    .post(
      "/invites/:code/accept",
      async ({ params, user, request, server }) => {
        // Counted whatever the outcome: one address cannot churn through codes or accounts.
        const address = clientIp(ctx, request, server);
        const slot = await attempts.take(address === null ? [] : [["inviteAcceptPerAddress", address]]);
        if ("waitMs" in slot) throw tooManyAttempts("Too many invite attempts from this network.", slot.waitMs);
        const r = await store.accept(params.code, user.id, user.username);
        if (r.ok) {
          return { ok: true, owner: { id: r.ownerId, username: r.inviter } };
        }
        switch (r.reason) {
          case "unknown":
            throw notFound(UNKNOWN);
          case "own":
            throw badRequest("You can't accept your own invite. Send the link to someone else.");
          case "used":
            throw new AppError("GONE", "This invite has already been used. Ask for a new invite link.");
          case "expired":
            throw new AppError("GONE", "This invite has expired. Ask for a new invite link.");
          case "already":
            throw conflict(`You already see ${r.inviter}'s shared topics.`);
        }
      },
      { auth: true },
    )
    // "People with access" (issue 25): sharing can be undone from either side.
    .get("/sharing-members", ({ user }) => store.members(user.id), { auth: true })
    .delete(
      "/sharing-members/:id",
      async ({ params, user, set }) => {
        const id = rowId(params.id);
        if (id === null || !(await store.endShare(user.id, id))) throw notFound(NOT_MEMBER);
        set.status = 204;
      },
      { auth: true },
    )
    .delete(
      "/sharing-users/:id",
      async ({ params, user, set }) => {
        const id = rowId(params.id);
        if (id === null || !(await store.endShare(id, user.id))) throw notFound(NOT_SHARING);
        set.status = 204;
      },
      { auth: true },
    );
}

const NOT_MEMBER = "This person does not see your shared topics";
const NOT_SHARING = "This user does not share topics with you";

const CODE = { code: "The invite code from the invite link" };

export const inviteOperations = defineOperations({ tag: "Sharing", auth: "user", keyArea: "topics" }, [
  {
    method: "POST",
    path: "/api/invites",
    summary: "Create an invite link",
    description: "A single-use link that lets one person see your shared topics. At most a few unused links at once (429).",
    responses: { 201: Invite },
  },
  {
    method: "GET",
    path: "/api/invites/:code",
    summary: "Who sent an invite",
    description: "Anyone with the link may ask, signed in or not, so the invite page can name its sender before sign-in. Used or expired invites are 410; unknown ones 404.",
    auth: "none",
    params: CODE,
    responses: { 200: InviteInfo },
  },
  {
    method: "POST",
    path: "/api/invites/:code/accept",
    summary: "Accept an invite",
    params: CODE,
    responses: { 200: InviteAccepted },
    errors: ["VALIDATION", "CONFLICT", "GONE"],
  },
  {
    method: "GET",
    path: "/api/sharing-members",
    summary: "People who see your shared topics",
    description: "Everyone who accepted one of your invites, by username.",
    responses: { 200: v.array(SharingMember) },
  },
  {
    method: "DELETE",
    path: "/api/sharing-members/:id",
    summary: "Remove someone's access to your shared topics",
    description: "They stop seeing your personal and public topics as a member at once (public topics stay public). Coming back takes a new invite.",
    params: { id: "The member's user id (from GET /api/sharing-members)" },
    responses: { 204: { description: "Removed" } },
  },
  {
    method: "DELETE",
    path: "/api/sharing-users/:id",
    summary: "Leave a user's shared topics",
    description: "You stop seeing that user's shared topics; they can invite you again.",
    params: { id: "The sharing user's id (from GET /api/sharing-users)" },
    responses: { 204: { description: "Left" } },
  },
]);
