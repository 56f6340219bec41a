import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { toPublicUser, type AuthPlugin } from "../http/auth";
import { forbidden } from "../shared/errors";
import { UPGRADE_DISABLED_MESSAGE, upgradedExpiry } from "./rules";
import { Upgraded } from "./schema";
import { defineOperations } from "../shared/apiOperations";

export function planRoutes(ctx: AppContext, auth: AuthPlugin) {
  return new Elysia({ prefix: "/api" }).use(auth).post(
    "/subscription/upgrade",
    async ({ user }) => {
      // With no payment processor in a self-hosted box, the operator decides whether users
      // may upgrade themselves (ALLOW_SELF_UPGRADE) or plans are set from the CLI.
      if (!ctx.config.allowSelfUpgrade) throw forbidden(UPGRADE_DISABLED_MESSAGE);
      const updated = (await ctx.accounts.setPlan(user.id, "premium", upgradedExpiry(user)))!;
      return { ok: true, user: await toPublicUser(ctx, updated) };
    },
    { auth: true },
  );
}

export const planOperations = defineOperations({ tag: "Account", auth: "session" }, [
  {
    method: "POST",
    path: "/api/subscription/upgrade",
    summary: "Upgrade to Premium",
    description: "Only where the operator allows self-upgrade (otherwise 403).",
    responses: { 200: Upgraded },
  },
]);
