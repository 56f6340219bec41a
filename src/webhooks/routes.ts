// /api/webhooks (issue 26): a signed-in user's endpoints, their delivery log and Redeliver.
// API keys never reach these (src/apikeys/access.ts): an endpoint receives the whole account's events.
import { Elysia } from "elysia";
import * as v from "valibot";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { AppError, badRequest, notFound } from "../shared/errors";
import { jsonBody } from "../http/bodyLimit";
import { rowId } from "../db/ids";
import { Ok, defineOperations } from "../shared/apiOperations";
import { EVENT_TYPES } from "../events/schema";
import { urlProblem } from "./send";
import { type DeliveryRow, type SummaryRow, type WebhookRow, webhooksStore } from "./store";
import { CreateWebhookBody, DELIVERY_LOG, DeliverySummary, DeliveryView, MAX_WEBHOOKS, UpdateWebhookBody, WEBHOOK_MSG, WebhookView, WebhookWithSecret } from "./schema";

/** 'whsec_' and 32 random bytes (base64url). */
export const newSecret = () => `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;

const list = (s: string | null) => (s === null ? null : s.split(",").filter(Boolean));

export const webhookView = (r: WebhookRow): WebhookView => ({
  id: r.id,
  url: r.url,
  events: list(r.events) as WebhookView["events"],
  linkIds: list(r.link_ids)?.map(Number) ?? null,
  enabled: r.enabled === 1,
  failures: r.failures,
  disabledReason: r.disabled_reason,
  secretHint: r.secret.slice(-4),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const deliverySummary = (d: SummaryRow | DeliveryRow, bodyBytes: number): DeliverySummary => ({
  id: d.id,
  eventId: `evt_${d.event_id}`,
  eventType: d.event_type,
  state: d.state,
  attempts: d.attempts,
  nextAttemptAt: d.state === "pending" ? d.next_at : null,
  lastStatus: d.last_status,
  lastLatencyMs: d.last_latency_ms,
  lastResponse: d.last_response,
  lastError: d.last_error,
  lastAttemptAt: d.last_at,
  createdAt: d.created_at,
  bodyBytes,
});
const deliveryView = (d: DeliveryRow): DeliveryView => ({ ...deliverySummary(d, Buffer.byteLength(d.body)), body: d.body });

/** `worker`: the webhook sender (./sender.ts), poked when a route makes deliveries due (Redeliver, an endpoint turned on again). */
export function webhookRoutes(ctx: AppContext, auth: AuthPlugin, worker: { poke(): Promise<void> }) {
  const store = webhooksStore(ctx.db);
  const checkUrl = (url: string) => {
    const problem = urlProblem(url, ctx.config.webhookAllowPrivate);
    if (problem) throw badRequest(problem, { url: problem });
  };
  const checkLinks = async (userId: number, ids: readonly number[] | null) => {
    if (ids && (await store.ownLinkCount(userId, ids)) !== new Set(ids).size) throw badRequest(WEBHOOK_MSG.links, { linkIds: WEBHOOK_MSG.links });
  };
  const idOf = (raw: string) => rowId(raw) ?? 0;
  const own = async (raw: string, userId: number) => {
    const w = await store.get(idOf(raw), userId);
    if (!w) throw notFound("Webhook not found");
    return w;
  };

  return new Elysia({ prefix: "/api/webhooks" })
    .use(auth)
    .get("/", async ({ user }) => (await store.list(user.id)).map(webhookView), { auth: true })
    .post(
      "/",
      async ({ user, body, set }) => {
        checkUrl(body.url);
        await checkLinks(user.id, body.linkIds);
        if ((await store.count(user.id)) >= MAX_WEBHOOKS) throw new AppError("CONFLICT", WEBHOOK_MSG.tooMany);
        const secret = newSecret();
        const row = await store.create(user.id, { url: body.url, secret, events: body.events, linkIds: body.linkIds });
        set.status = 201;
        return { ...webhookView(row), secret };
      },
      { auth: true, body: jsonBody(CreateWebhookBody) },
    )
    .put(
      "/:id",
      async ({ user, params, body }) => {
        const w = await own(params.id, user.id);
        checkUrl(body.url);
        await checkLinks(user.id, body.linkIds);
        const secret = body.rotateSecret ? newSecret() : w.secret;
        const row = await store.update(w.id, user.id, { url: body.url, events: body.events, linkIds: body.linkIds, enabled: body.enabled, secret });
        if (!row) throw notFound("Webhook not found");
        if (row.enabled === 1 && w.enabled === 0) void worker.poke();
        return body.rotateSecret ? { ...webhookView(row), secret } : webhookView(row);
      },
      { auth: true, body: jsonBody(UpdateWebhookBody) },
    )
    .delete(
      "/:id",
      async ({ user, params }) => {
        if (!(await store.remove(idOf(params.id), user.id))) throw notFound("Webhook not found");
        return { ok: true };
      },
      { auth: true },
    )
    .get(
      "/:id/deliveries",
      async ({ user, params, set }) => {
        const w = await own(params.id, user.id);
        set.headers["cache-control"] = "no-store";
        return (await store.deliveries(w.id, user.id, DELIVERY_LOG)).map((d) => deliverySummary(d, Number(d.body_bytes)));
      },
      { auth: true },
    )
    .get(
      "/:id/deliveries/:deliveryId",
      async ({ user, params, set }) => {
        const w = await own(params.id, user.id);
        const d = await store.delivery(idOf(params.deliveryId), w.id, user.id);
        if (!d) throw notFound("Delivery not found");
        set.headers["cache-control"] = "no-store";
        return deliveryView(d);
      },
      { auth: true },
    )
    .post(
      "/:id/deliveries/:deliveryId/redeliver",
      async ({ user, params, set }) => {
        const w = await own(params.id, user.id);
        const d = await store.redeliver(idOf(params.deliveryId), w.id, user.id);
        if (!d) throw notFound("Delivery not found");
        void worker.poke();
        set.status = 201;
        return deliveryView(d);
      },
      { auth: true },
    );
}

const ID = { id: "The webhook's id" };
const example = { url: "https://hooks.example.com/threadlink", events: ["link.created", "clicks.recorded"], linkIds: null };

export const webhookOperations = defineOperations({ tag: "Webhooks", auth: "session" }, [
  { method: "GET", path: "/api/webhooks/", summary: "Your webhooks", responses: { 200: v.array(WebhookView) } },
  {
    method: "POST",
    path: "/api/webhooks/",
    summary: "Add a webhook",
    description: `Events: ${EVENT_TYPES.join(", ")}. The response carries the signing secret, shown this once. At most ${MAX_WEBHOOKS} per account.`,
    body: CreateWebhookBody,
    example,
    responses: { 201: WebhookWithSecret },
    errors: ["CONFLICT"],
  },
  {
    method: "PUT",
    path: "/api/webhooks/:id",
    summary: "Change a webhook",
    description: "Turning a disabled webhook on again clears its failure count; `rotateSecret` returns a new secret.",
    params: ID,
    body: UpdateWebhookBody,
    example: { ...example, enabled: true, rotateSecret: false },
    responses: { 200: WebhookWithSecret },
  },
  { method: "DELETE", path: "/api/webhooks/:id", summary: "Delete a webhook", params: ID, responses: { 200: Ok } },
  {
    method: "GET",
    path: "/api/webhooks/:id/deliveries",
    summary: "A webhook's delivery log",
    description: `The newest ${DELIVERY_LOG} deliveries: state, attempts, the last attempt's status, latency and the start of the answer, and the body's size (the body itself: one delivery's own address).`,
    params: ID,
    responses: { 200: v.array(DeliverySummary) },
  },
  {
    method: "GET",
    path: "/api/webhooks/:id/deliveries/:deliveryId",
    summary: "One delivery, with its body",
    description: "The delivery as in the log, with the exact JSON body it sends (every attempt and a Redeliver send the same bytes).",
    params: { ...ID, deliveryId: "The delivery's id" },
    responses: { 200: DeliveryView },
  },
  {
    method: "POST",
    path: "/api/webhooks/:id/deliveries/:deliveryId/redeliver",
    summary: "Send a delivery again",
    description: "Queues the same body (same event id) at the end of the webhook's queue.",
    params: { ...ID, deliveryId: "The delivery's id" },
    responses: { 201: DeliveryView },
  },
]);
