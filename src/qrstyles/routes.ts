// /api/qr-styles: a signed-in user's saved QR styles (issue 25), picked on /qr and in the brand
// tracker's QR dialog. The style is only the look; the codes themselves are drawn in the browser.
import { Elysia } from "elysia";
import * as v from "valibot";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { notFound } from "../shared/errors";
import { jsonBody } from "../http/bodyLimit";
import { rowId } from "../db/ids";
import { Ok, defineOperations } from "../shared/apiOperations";
import { SaveQrStyleBody, SavedQrStyle } from "./schema";
import { qrStylesStore } from "./store";

// 0 names no row: ids past PostgreSQL's integer are refused before any query (src/db/ids.ts).
const parseId = (raw: string) => rowId(raw) ?? 0;
const STYLE_NOT_FOUND = "QR style not found";

export function qrStyleRoutes(ctx: AppContext, auth: AuthPlugin) {
  const styles = qrStylesStore(ctx.db);
  return new Elysia({ prefix: "/api/qr-styles" })
    .use(auth)
    .get("/", ({ user }) => styles.list(user.id), { auth: true })
    .post(
      "/",
      async ({ body, user, set }) => {
        const saved = await styles.create(user.id, body, ctx.config.quotas.qrStylesPerUser);
        set.status = 201;
        return saved;
      },
      { auth: true, body: jsonBody(SaveQrStyleBody) },
    )
    .put(
      "/:id",
      async ({ params, body, user }) => {
        const saved = await styles.replace(parseId(params.id), user.id, body);
        if (!saved) throw notFound(STYLE_NOT_FOUND);
        return saved;
      },
      { auth: true, body: jsonBody(SaveQrStyleBody) },
    )
    .delete(
      "/:id",
      async ({ params, user }) => {
        if (!(await styles.remove(parseId(params.id), user.id))) throw notFound(STYLE_NOT_FOUND);
        return { ok: true };
      },
      { auth: true },
    );
}

const example = { name: "Brand blue", foreground: "#0b3d91", background: "#ffffff", dots: "rounded", corners: "rounded", frameText: "Scan me" };

export const qrStyleOperations = defineOperations({ tag: "QR styles", auth: "user" }, [
  { method: "GET", path: "/api/qr-styles/", summary: "List your saved QR styles", description: "By name.", responses: { 200: v.array(SavedQrStyle) } },
  {
    method: "POST",
    path: "/api/qr-styles/",
    summary: "Save a QR style",
    description:
      "Colours are #rrggbb (#rgb is accepted). The foreground must be the darker colour and the pair must reach a WCAG contrast ratio of 4.5:1; an empty frameText means no frame. Names are unique per account.",
    body: SaveQrStyleBody,
    example,
    responses: { 201: SavedQrStyle },
    errors: ["CONFLICT", "QUOTA_EXCEEDED"],
  },
  {
    method: "PUT",
    path: "/api/qr-styles/:id",
    summary: "Replace a saved QR style",
    description: "The same rules as saving one.",
    params: { id: "The style's id" },
    body: SaveQrStyleBody,
    example,
    responses: { 200: SavedQrStyle },
    errors: ["CONFLICT", "NOT_FOUND"],
  },
  { method: "DELETE", path: "/api/qr-styles/:id", summary: "Delete a saved QR style", params: { id: "The style's id" }, responses: { 200: Ok }, errors: ["NOT_FOUND"] },
]);
