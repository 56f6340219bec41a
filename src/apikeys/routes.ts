// /api/api-keys: a signed-in user's API keys (issue 14). Reached only with a session: the
// auth macro answers a key's request here with 403 (src/apikeys/access.ts).
import { Elysia } from "elysia";
import { rowId } from "../db/ids";
import type { AppContext } from "../context";
import { hashToken, type AuthPlugin } from "../http/auth";
import { notFound } from "../shared/errors";
import { jsonBody } from "../http/bodyLimit";
import { ApiKeyView, CreateApiKeyBody, CreatedApiKey } from "./schema";
import * as v from "valibot";
import { Ok, defineOperations } from "../shared/apiOperations";
import { apiKeysStore, toView } from "./store";
import { newApiKey } from "./access";

// 0 names no row: ids past PostgreSQL's integer are refused before any query (src/db/ids.ts).
const parseId = (raw: string) => rowId(raw) ?? 0;

export function apiKeyRoutes(ctx: AppContext, auth: AuthPlugin) {
  const keys = apiKeysStore(ctx.db);
  return new Elysia({ prefix: "/api/api-keys" })
    .use(auth)
    .get("/", async ({ user }) => (await keys.list(user.id)).map(toView), { auth: true })
    .post(
      "/",
      async ({ body, user, set }): Promise<CreatedApiKey> => {
        const { key, prefix } = newApiKey();
        const row = await keys.create(user.id, { name: body.name, prefix, hash: hashToken(key), scope: body.scope, only: body.only }, ctx.config.quotas.apiKeysPerUser);
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { ...toView(row), key };
      },
      { auth: true, body: jsonBody(CreateApiKeyBody) },
    )
    .delete(
      "/:id",
      async ({ params, user }) => {
        if (!(await keys.revoke(parseId(params.id), user.id))) throw notFound("API key not found");
        return { ok: true };
      },
      { auth: true },
    );
}

export const apiKeyOperations = defineOperations({ tag: "API keys", auth: "session" }, [
  { method: "GET", path: "/api/api-keys/", summary: "List your API keys", responses: { 200: v.array(ApiKeyView) } },
  {
    method: "POST",
    path: "/api/api-keys/",
    summary: "Create an API key",
    description: "The response is the only time the full key is shown: store it now. Only its hash is kept.",
    body: CreateApiKeyBody,
    example: { name: "CI deploys", scope: "read-write", only: "links" },
    responses: { 201: CreatedApiKey },
    errors: ["QUOTA_EXCEEDED"],
  },
  { method: "DELETE", path: "/api/api-keys/:id", summary: "Revoke an API key", params: { id: "The key's id" }, responses: { 200: Ok } },
]);
