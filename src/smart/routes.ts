// Smart links' API (issue 24): a link's settings (GET/PUT …/:id/smart), the rule simulator
// (POST …/:id/simulate) on both trackers, and the user's UTM templates (/api/utm-templates).
import { Elysia } from "elysia";
import * as v from "valibot";
import { rowId } from "../db/ids";
import type { AppContext } from "../context";
import { ownerId, type AuthPlugin } from "../http/auth";
import { forbidden, notFound } from "../shared/errors";
import { clientAddress } from "../http/security";
import { jsonBody } from "../http/bodyLimit";
import { Ok, defineOperations } from "../shared/apiOperations";
import type { Tracker } from "../links/schema";
import type { Links } from "../links/service";
import type { LinkRow } from "../links/store";
import { readStored, smartView, toStored } from "./settings";
import { compile, explain, parseLanguages, type Facts } from "./decide";
import { agentOf } from "./visitor";
import { NO_PLACE, trustedPlace, visitorIdOf } from "../redirects/visitor";
import {
  BROWSERS,
  DEVICES,
  Decision,
  LANGUAGE_MIN_Q,
  OSES,
  SimulateBody,
  SmartInput,
  SmartView,
  UNLOCK_TTL_S,
  UtmTemplateBody,
  UtmTemplateView,
} from "./schema";
import type { UtmTemplateRow } from "./store";

const parseId = (raw: string) => rowId(raw) ?? 0;

export function smartRoutes(ctx: AppContext, auth: AuthPlugin, links: Links, tracker: Tracker) {
  const prefix = tracker === "main" ? "/api/links" : "/api/pic-drift-links";

  /** The user's link in this tracker; with `allowRoot`, also the brand root link for the instance owner (PUT says 403 for it). */
  const find = async (rawId: string, userId: number, allowRoot = false) => {
    const root = allowRoot && tracker === "brand" && (await ownerId(ctx)) === userId;
    const row = await links.store.get(parseId(rawId), userId, tracker, root);
    if (!row) throw notFound("Link not found");
    return row;
  };

  /** The count the limit reads: this instance's, which includes clicks not yet written. */
  const clicksOf = (row: LinkRow) => Math.max(row.click_count, links.smart.clicks(row.id));

  return new Elysia({ prefix })
    .use(auth)
    .get(
      "/:id/smart",
      async ({ params, user, set }) => {
        // The count includes every click captured so far (as the lists' do).
        await links.recorder.flush();
        const row = await find(params.id, user.id);
        set.headers["cache-control"] = "no-store";
        return smartView(readStored(row), clicksOf(row));
      },
      { auth: true },
    )
    .put(
      "/:id/smart",
      async ({ params, user, body }) => {
        // A new limit counts from every click this instance has captured, written or not: the
        // row read after the flush carries them all (the map seeds the limit from it).
        await links.recorder.flush();
        // The owner reaches the root link, to be told why it cannot be changed (as its edit is);
        // without that it was 404, which said the link did not exist.
        const row = await find(params.id, user.id, true);
        if (row.is_system) throw forbidden("The root link cannot have smart settings");
        const stored = await toStored(body, readStored(row), links.ownHosts);
        const updated = await links.store.setSmart(row.id, user.id, tracker, stored ? JSON.stringify(stored) : null);
        if (!updated) throw notFound("Link not found");
        links.remember(updated);
        await links.published();
        return smartView(stored, clicksOf(updated));
      },
      { auth: true, body: jsonBody(SmartInput) },
    )
    .post(
      "/:id/simulate",
      async ({ params, user, body, request, server }) => {
        const row = await find(params.id, user.id);
        const stored = readStored(row);
        const c = compile(stored);
        const h = request.headers;
        const agent = body.useRequest ? agentOf(h.get("user-agent")?.slice(0, 1024) ?? null) : null;
        // "This browser": the location the redirect would see, read the redirect's way (a trusted
        // proxy's CDN headers, the lookup for what they leave out); a given country or city wins.
        let here: { country: string | null; city: string | null } = NO_PLACE;
        if (body.useRequest && !(body.country && body.city)) {
          const { ip, viaTrustedProxy } = clientAddress(ctx, request, server);
          here = viaTrustedProxy ? trustedPlace(h) : NO_PLACE;
          if (!here.country || !here.city) {
            const looked = links.smart.place(ip);
            here = { country: here.country ?? looked.country, city: here.city ?? looked.city };
          }
        }
        const country = body.country || here.country;
        const city = body.city || here.city;
        const language = body.language ?? (body.useRequest ? (h.get("accept-language")?.slice(0, 256) ?? null) : null);
        const at = body.at ? Date.parse(body.at) : Date.now();
        const facts: Facts = {
          device: body.device ?? agent?.device ?? null,
          os: body.os ?? agent?.os ?? null,
          browser: body.browser ?? agent?.browser ?? null,
          languages: parseLanguages(language),
          country,
          city,
          now: at,
          // This browser's own visitor cookie, as the redirect reads it, for a sticky split; a
          // visitor without one gets a new id there, so a random one here.
          visitorId: body.visitorId ?? (body.useRequest ? visitorIdOf(request) : null) ?? crypto.randomUUID(),
          clicks: body.clicks ?? clicksOf(row),
        };
        const e = explain(c, facts, row.id, new URL(row.original_url).href);
        return {
          destination: e.href,
          route: e.route,
          reason: e.reason,
          visitor: { device: facts.device, os: facts.os, browser: facts.browser, languages: facts.languages, country, city, at: new Date(at).toISOString() },
          steps: e.steps,
          passwordFirst: Boolean(c?.password),
        };
      },
      { auth: true, body: jsonBody(SimulateBody) },
    );
}

const templateView = (r: UtmTemplateRow) => ({
  id: r.id,
  name: r.name,
  source: r.source,
  medium: r.medium,
  campaign: r.campaign,
  term: r.term,
  content: r.content,
  createdAt: r.created_at,
});

export function utmTemplateRoutes(auth: AuthPlugin, links: Links) {
  const store = links.smart.store;
  return new Elysia({ prefix: "/api/utm-templates" })
    .use(auth)
    .get("/", async ({ user, set }) => {
      set.headers["cache-control"] = "no-store";
      return (await store.templates(user.id)).map(templateView);
    }, { auth: true })
    .post(
      "/",
      async ({ user, body, set }) => {
        const row = await store.createTemplate(user.id, body);
        set.status = 201;
        return templateView(row);
      },
      { auth: true, body: jsonBody(UtmTemplateBody) },
    )
    .put(
      "/:id",
      async ({ params, user, body }) => {
        const row = await store.updateTemplate(parseId(params.id), user.id, body);
        if (!row) throw notFound("Template not found");
        return templateView(row);
      },
      { auth: true, body: jsonBody(UtmTemplateBody) },
    )
    .delete(
      "/:id",
      async ({ params, user }) => {
        if (!(await store.deleteTemplate(parseId(params.id), user.id))) throw notFound("Template not found");
        return { ok: true };
      },
      { auth: true },
    );
}

/** Every smart-link route, as one plugin (the app's chain of plugins is long enough for the type checker). */
export const smartLinkRoutes = (ctx: AppContext, auth: AuthPlugin, links: Links) =>
  new Elysia({ name: "smart-links", seed: ctx.instanceId })
    .use(smartRoutes(ctx, auth, links, "main"))
    .use(smartRoutes(ctx, auth, links, "brand"))
    .use(utmTemplateRoutes(auth, links));

const LINK_ID = { id: "The link's id" };

export function smartOperations(tracker: Tracker) {
  const prefix = tracker === "main" ? "/api/links" : "/api/pic-drift-links";
  const tag = tracker === "main" ? "Links" : "Brand links";
  return defineOperations({ tag, auth: "user", keyArea: "links" }, [
    {
      method: "GET",
      path: `${prefix}/:id/smart`,
      summary: "A link's smart settings",
      description: "Password (whether one is set, never the password), click limit and fallback, redirect rules and A/B split, and the clicks counted against the limit.",
      params: LINK_ID,
      responses: { 200: SmartView },
    },
    {
      method: "PUT",
      path: `${prefix}/:id/smart`,
      summary: "Set a link's smart settings",
      description:
        "Replaces the settings. `password`: absent keeps the current one, `null` or `\"\"` removes it, text sets it (hashed like account passwords; every earlier unlock ends). " +
        "A correct password on the link's page sets an HMAC-signed cookie for that link alone, valid " + `${UNLOCK_TTL_S / 3600} hours; wrong guesses are limited to 10 per 15 minutes per link and address. ` +
        "`maxClicks`: after that many clicks the link answers `fallbackUrl`, or its 410 page without one. " +
        `\`rules\`: tried in order, the first whose every condition holds wins; conditions are device (${DEVICES.join(", ")}), os (${OSES.join(", ")}), browser (${BROWSERS.join(", ")}), ` +
        `language (Accept-Language tags at quality ${LANGUAGE_MIN_Q} or more, so "en" does not match a visitor who lists English only as a fallback), country (ISO codes), city (as the analytics name it) and a from/until window (until exclusive). ` +
        "`split`: weighted destinations for visitors no rule matched; `sticky` gives one visitor one destination for as long as their tl_vid cookie lives (24 hours from their first visit: it is not renewed). Each click records which rule or destination sent it (the analytics `smart.routes`). " +
        "Answered once every instance serving redirects has the change." +
        (tracker === "brand" ? " The root link cannot have smart settings (403 for the instance owner)." : ""),
      params: LINK_ID,
      body: SmartInput,
      example: {
        password: null,
        maxClicks: 1000,
        fallbackUrl: "https://example.com/sold-out",
        rules: [{ name: "iPhone", when: { os: ["ios"] }, url: "https://apps.apple.com/app/id1" }],
        split: { variants: [{ url: "https://example.com/a", weight: 50 }, { url: "https://example.com/b", weight: 50 }], sticky: true },
      },
      responses: { 200: SmartView },
      ...(tracker === "brand" ? { errors: ["FORBIDDEN" as const] } : {}),
    },
    {
      method: "POST",
      path: `${prefix}/:id/simulate`,
      summary: "Simulate a visitor",
      description:
        "Where the link would send a visitor with these facts, and why (each rule in order). `useRequest: true` takes device, OS, browser, language, location (a trusted proxy's CDN headers, else the address lookup) and the visitor cookie of a sticky split from this request, as the redirect reads them (\"this browser, now\"); given fields win. Records nothing.",
      params: LINK_ID,
      body: SimulateBody,
      example: { country: "DE", device: "mobile", os: "android", browser: "chrome", language: "de-DE,de;q=0.9,en;q=0.8", at: "" },
      responses: { 200: Decision },
    },
  ]);
}

export const utmTemplateOperations = defineOperations({ tag: "UTM templates", auth: "user", keyArea: "links" }, [
  { method: "GET", path: "/api/utm-templates/", summary: "Your saved UTM templates", description: "By name.", responses: { 200: v.array(UtmTemplateView) } },
  {
    method: "POST",
    path: "/api/utm-templates/",
    summary: "Save a UTM template",
    description: "A named set of utm_source, utm_medium, utm_campaign, utm_term and utm_content values (at least one). Names are unique per user; MAX_UTM_TEMPLATES_PER_USER caps how many.",
    body: UtmTemplateBody,
    example: { name: "Newsletter", source: "newsletter", medium: "email", campaign: "spring", term: "", content: "" },
    responses: { 201: UtmTemplateView },
    errors: ["CONFLICT", "QUOTA_EXCEEDED"],
  },
  {
    method: "PUT",
    path: "/api/utm-templates/:id",
    summary: "Rename or change a UTM template",
    description: "Replaces the template's name and values (the body of a save). Names are unique per user.",
    params: { id: "The template's id" },
    body: UtmTemplateBody,
    example: { name: "Newsletter (spring)", source: "newsletter", medium: "email", campaign: "spring", term: "", content: "" },
    responses: { 200: UtmTemplateView },
    errors: ["CONFLICT"],
  },
  { method: "DELETE", path: "/api/utm-templates/:id", summary: "Delete a UTM template", params: { id: "The template's id" }, responses: { 200: Ok } },
]);
