// /api/api-keys: a signed-in user's API keys (issue 14). Reached only with a session: the
// auth macro answers a key's request here with 403 (src/apikeys/access.ts).
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { hashToken, type AuthPlugin } from "../http/auth";
import { notFound } from "../http/errors";
import { jsonBody } from "../http/bodyLimit";
import { CreateApiKeyBody, type CreatedApiKey } from "./schema";
import { apiKeysStore, toView } from "./store";
import { newApiKey } from "./access";

const parseId = (raw: string) => (/^\d{1,15}$/.test(raw) ? Number(raw) : 0);

export function apiKeyRoutes(ctx: AppContext, auth: AuthPlugin) {
  const keys = apiKeysStore(ctx.db);
  return new Elysia({ prefix: "/api/api-keys" })
    .use(auth)
    .get("/", ({ user }) => keys.list(user.id).map(toView), { auth: true })
    .post(
      "/",
      ({ body, user, set }): CreatedApiKey => {
        const { key, prefix } = newApiKey();
        const row = keys.create(user.id, { name: body.name, prefix, hash: hashToken(key), scope: body.scope, only: body.only });
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { ...toView(row), key };
      },
      { auth: true, body: jsonBody(CreateApiKeyBody) },
    )
    .delete(
      "/:id",
      ({ params, user }) => {
        if (!keys.revoke(parseId(params.id), user.id)) throw notFound("API key not found");
        return { ok: true };
      },
      { auth: true },
    );
}
