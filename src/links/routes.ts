// /api/links (the Link Tracker) and /api/pic-drift-links (the brand tracker): one factory,
// parameterised by tracker; the brand tracker adds edit, reset and the root link.
import { download } from "../downloads/jobs";
import { answer } from "../downloads/answers";
import { Elysia } from "elysia";
import { rowId } from "../db/ids";
import type { AppContext } from "../context";
import { ownerId, type AuthPlugin } from "../http/auth";
import { notFound } from "../shared/errors";
import { analyticsStore } from "../analytics/store";
import { CreateLinkBody, EditLinkBody, EditMainLinkBody, LINK_PAGE_DEFAULT, LINK_PAGE_MAX, LinkListItem, LinkView, ListQuery, SPARK_DAYS, LookupQuery, listTags, PatchLinkBody, PatchMainLinkBody, ResetQuery, type Tracker } from "./schema";
import { AnalyticsQuery, AnalyticsReport } from "../analytics/schema";
import * as v from "valibot";
import { Ok, defineOperations } from "../shared/apiOperations";
import { jsonBody } from "../http/bodyLimit";
import type { Links } from "./service";
import { linkCursorKeys, linkSortKinds, type LinkRow } from "./store";
import { cursorKeys, pageHeaders } from "../http/paging";
import { NEXT_HEADER, TOTAL_HEADER, searchWords } from "../shared/paging";

// 0 names no row: ids past PostgreSQL's integer are refused before any query (src/db/ids.ts).
const parseId = (raw: string) => rowId(raw) ?? 0;

export function linkRoutes(ctx: AppContext, auth: AuthPlugin, links: Links, tracker: Tracker) {
  const prefix = tracker === "main" ? "/api/links" : "/api/pic-drift-links";
  const isOwner = async (userId: number) => tracker === "brand" && (await ownerId(ctx)) === userId;
  const analytics = analyticsStore(ctx.db);

  /** A page's links with each one's clicks per day for its sparkline: one roll-up read per page. */
  const withRecentClicks = async (rows: LinkRow[]): Promise<LinkListItem[]> => {
    const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
    const dayAt = (i: number) => new Date(today - (SPARK_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10);
    const first = dayAt(0);
    const byLink = new Map<number, number[]>();
    for (const d of await analytics.daysOf(rows.map((r) => r.id), first)) {
      const i = Math.round((Date.parse(d.day) - Date.parse(first)) / 86_400_000);
      if (i < 0 || i >= SPARK_DAYS) continue;
      let series = byLink.get(Number(d.link_id));
      if (!series) byLink.set(Number(d.link_id), (series = new Array<number>(SPARK_DAYS).fill(0)));
      series[i] = Number(d.count);
    }
    return rows.map((r) => ({ ...links.view(r), recentClicks: byLink.get(r.id) ?? new Array<number>(SPARK_DAYS).fill(0) }));
  };

  /** The user's link in this tracker, or the root link for the instance owner; else 404. */
  const find = async (rawId: string, userId: number): Promise<LinkRow> => {
    const row = await links.store.get(parseId(rawId), userId, tracker, await isOwner(userId));
    if (!row) throw notFound("Link not found");
    return row;
  };

  // The trackers edit different things (the brand tracker renames codes; the Link Tracker
  // sets expiry), so each has its own schema; the link service applies either.
  const edit = new Elysia().use(auth).put(
    "/:id",
    async ({ params, body, user }) => {
      const row = await find(params.id, user.id);
      return links.view(await links.edit(row, user.id, { ...body, shortCode: body.shortCode ?? null }));
    },
    { auth: true, body: jsonBody(tracker === "main" ? EditMainLinkBody : EditLinkBody) },
  );

  const patch = new Elysia().use(auth).patch(
    "/:id",
    async ({ params, body, user }) => {
      const row = await find(params.id, user.id);
      return links.view(await links.patch(row, user.id, body));
    },
    { auth: true, body: jsonBody(tracker === "main" ? PatchMainLinkBody : PatchLinkBody) },
  );

  const resetClicks = new Elysia().use(auth).post(
    "/:id/reset-clicks",
    async ({ params, user, query }) => {
      const row = await find(params.id, user.id);
      // isRoot=true is how the page addresses the root link (spec §7); it must match the row.
      if ((query.isRoot === "true") !== (row.is_system === 1)) throw notFound("Link not found");
      return links.view(await links.resetClicks(row));
    },
    { auth: true },
  );

  return new Elysia({ prefix })
    .use(auth)
    .get(
      "/",
      async ({ user, query, set }) => {
        // The counts include every click captured so far.
        await links.recorder.flush();
        const sort = query.sort ?? "newest";
        const after = cursorKeys(query.cursor, sort, linkSortKinds(sort));
        const words = searchWords(query.q);
        // A search with no letter or digit in it ("%", an emoji) finds nothing: the index holds
        // words only, and the whole list would read as every link matching it.
        const page =
          words.length === 0 && query.q?.trim()
            ? { rows: [], more: false, total: 0, capped: false }
            : await links.store.page(user.id, tracker, {
                words,
                sort,
                status: query.status ?? "all",
                limit: query.limit ?? LINK_PAGE_DEFAULT,
                after,
                tags: listTags(query.tags),
              });
        pageHeaders(set, page, sort, (r) => linkCursorKeys(sort, r));
        set.headers["cache-control"] = "no-store";
        const rows = [...page.rows];
        if (tracker === "brand" && !after && query.includeRoot === "true" && (await isOwner(user.id))) {
          const root = await links.store.root();
          if (root) rows.unshift(root);
        }
        return withRecentClicks(rows);
      },
      { auth: true, query: ListQuery },
    )
    .post(
      "/",
      async ({ body, user, set }) => {
        const { row, existing } = await links.create(user.id, tracker, body);
        set.status = existing ? 200 : 201;
        return links.view(row);
      },
      { auth: true, body: jsonBody(CreateLinkBody) },
    )
    // Static before the parameter: "lookup" is never read as an id.
    .get(
      "/lookup",
      async ({ user, query, set }) => {
        await links.recorder.flush();
        const row = await links.store.byCode(query.code, tracker);
        const mine = row && (row.user_id === user.id || (row.is_system === 1 && (await isOwner(user.id))));
        if (!mine) throw notFound("Link not found");
        set.headers["cache-control"] = "no-store";
        return links.view(row);
      },
      { auth: true, query: LookupQuery },
    )
    .get(
      "/:id",
      async ({ params, user, set }) => {
        // The count includes every click captured so far, as the list's does.
        await links.recorder.flush();
        const row = await find(params.id, user.id);
        set.headers["cache-control"] = "no-store";
        return links.view(row);
      },
      { auth: true },
    )
    .delete(
      "/:id",
      async ({ params, user }) => {
        await links.remove(await find(params.id, user.id), user.id);
        return { ok: true };
      },
      { auth: true },
    )
    .get(
      "/:id/analytics",
      async ({ params, user, query, request }) => {
        await links.recorder.flush();
        const row = await find(params.id, user.id);
        const { clickRetentionDays: retentionDays, clickDetailPerMinute: detailPerMinute } = ctx.config;
        return await answer(ctx.db, { kind: "report", link: row, shortUrl: links.shortUrl(row), query, retentionDays, detailPerMinute }, request.headers.get("accept-encoding"));
      },
      { auth: true, query: AnalyticsQuery },
    )
    .get(
      "/:id/clicks.csv",
      async ({ params, user }) => {
        await links.recorder.flush();
        const row = await find(params.id, user.id);
        return new Response(download(ctx.db, { kind: "clicks", linkId: row.id }), {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="clicks-${row.short_code}.csv"`,
            "cache-control": "no-store",
          },
        });
      },
      { auth: true },
    )
    .use(edit)
    .use(patch)
    // The brand tracker's alone: on the Link Tracker the path is not a route at all (404).
    .use(tracker === "brand" ? resetClicks : new Elysia());
}

const LINK_ID = { id: "The link's id" };

/** The operations of one tracker, for the OpenAPI document. */
export function linkOperations(tracker: Tracker) {
  const prefix = tracker === "main" ? "/api/links" : "/api/pic-drift-links";
  const main = tracker === "main";
  const what = main ? "link" : "brand link";
  const example = { originalUrl: "https://example.com/spring-sale", title: "Spring sale", description: "", expiresAt: "", shortCode: "" };
  // The guarantee every link write gives (links/follow.ts, README "More than one server").
  const everywhere =
    " Answered once every instance serving redirects has the change (several instances on PostgreSQL: each live one confirms, waited for at most 1 s), so the next redirect through any of them follows it. A new code redirects on every instance even when that wait runs out: a code an instance does not know yet is looked up in the database before its 404 (at a bounded rate).";
  return defineOperations({ tag: main ? "Links" : "Brand links", auth: "user", keyArea: "links" }, [
    {
      method: "GET",
      path: `${prefix}/`,
      summary: `List your ${what}s`,
      description:
        `A page of links (default ${LINK_PAGE_DEFAULT}, at most ${LINK_PAGE_MAX}), newest first unless \`sort\` says otherwise, with click counts up to this moment. ` +
        "`q` finds links in which each word given begins a word of their title, destination, description or short code (any case; `kang` finds Kangaroo, `ab3` a code aB3xY9z; punctuation splits words, so a code spring-sale is found by spring-sale, spring, sale or spr). Anything but letters and digits only separates words: no operator of a query language is read, and a `q` with no letter or digit (`%`, an emoji) finds nothing. " +
        `The \`${TOTAL_HEADER}\` header gives how many links match; \`${NEXT_HEADER}\` (absent on the last page) is the \`cursor\` of the next page. A cursor belongs to its sort: another sort's, or one edited, is a 400.` +
        (main ? "" : " With `includeRoot=true` the instance owner also gets the root link first (first page only, not counted)."),
      query: ListQuery,
      responses: {
        200: {
          description: "The page's links",
          schema: v.array(LinkListItem),
          headers: { [TOTAL_HEADER]: "How many links match the query" },
          optionalHeaders: { [NEXT_HEADER]: "The next page's cursor; absent on the last page" },
        },
      },
    },
    {
      method: "POST",
      path: `${prefix}/`,
      summary: `Create a ${what}`,
      description:
        `Leave \`shortCode\` empty for a generated 7-character code. **Idempotent with \`externalId\`:** your own id for the link, unique among your links; a create naming an externalId you already used makes nothing and answers 200 with that link as it is now (whatever else the retry sends), so a request retried after a timeout, even while the first is still running, never makes a second link. An externalId used in the other tracker is a 409. \`smart\` sets the link's smart settings at creation (password, click limit and fallback, rules, split), checked as PUT …/{id}/smart checks them (unknown fields refused by name; the password hashed like account passwords).${everywhere}`,
      body: CreateLinkBody,
      example: main ? { ...example, expiresAt: "2030-01-01T00:00:00Z", externalId: "crm-4711" } : example,
      responses: { 201: LinkView, 200: { description: "A link with this externalId existed: that link, unchanged", schema: LinkView } },
      errors: ["CONFLICT", "QUOTA_EXCEEDED"],
    },
    main
      ? {
          method: "PUT",
          path: `${prefix}/:id`,
          summary: "Edit a link",
          description:
            `Replaces destination, title, description and expiry (an absent description or expiry clears it). A new short code renames the link. \`smart\`: absent keeps the link's smart settings, an object replaces them as PUT …/{id}/smart does, null removes them all. The redirect follows at once.${everywhere}`,
          params: LINK_ID,
          body: EditMainLinkBody,
          example: { originalUrl: "https://example.com/summer-sale", title: "Summer sale", description: "", expiresAt: null },
          responses: { 200: LinkView },
        }
      : {
          method: "PUT",
          path: `${prefix}/:id`,
          summary: "Edit a brand link",
          description: `Destination, title, description and short code; the root link cannot be edited (403). \`smart\`: absent keeps the link's smart settings, an object replaces them as PUT …/{id}/smart does, null removes them all.${everywhere}`,
          params: LINK_ID,
          body: EditLinkBody,
          example: { shortCode: "spring", originalUrl: "https://example.com/summer-sale", title: "Summer sale", description: "" },
          responses: { 200: LinkView },
          errors: ["CONFLICT"],
        },
    {
      method: "GET",
      path: `${prefix}/:id`,
      summary: `One ${what}`,
      description: "The link with its click count up to this moment. Another user's link, or none, is a 404.",
      params: LINK_ID,
      responses: { 200: LinkView },
    },
    {
      method: "GET",
      path: `${prefix}/lookup`,
      summary: `Find a ${what} by its short code`,
      description:
        `Answers "does this code exist, and where does it go?" without listing every link: your ${what} whose short code is exactly \`code\` (codes are case-sensitive), with its click count. A code that is not one of your ${what}s (unknown, another user's, or the other tracker's) is a 404.` +
        (main ? "" : " The instance owner finds the root link with `code=root`."),
      query: LookupQuery,
      responses: { 200: LinkView },
      errors: ["VALIDATION", "NOT_FOUND"],
    },
    {
      method: "PATCH",
      path: `${prefix}/:id`,
      summary: main ? "Edit some fields of a link" : "Edit some fields of a brand link",
      description:
        `Only the fields sent change; every other keeps its value (PUT replaces them all). A \`description\`${main ? " or `expiresAt`" : ""} sent as null clears it; \`smart\` sent as null removes every smart setting, an object replaces them as PUT …/{id}/smart does. Each field is checked as on PUT${main ? "; a new expiry must be in the future, an unchanged one may have passed" : "; the root link cannot be edited (403)"}.${everywhere}`,
      params: LINK_ID,
      body: main ? PatchMainLinkBody : PatchLinkBody,
      example: { title: "Summer sale" },
      responses: { 200: LinkView },
      errors: ["CONFLICT"],
    },
    { method: "DELETE", path: `${prefix}/:id`, summary: `Delete a ${what}`, description: `Its code stops redirecting.${everywhere}`, params: LINK_ID, responses: { 200: Ok } },
    {
      method: "GET",
      path: `${prefix}/:id/analytics`,
      summary: `A ${what}'s analytics`,
      description:
        "Counts, unique visitors, tallies by country, city, browser, device, OS and referrer, a daily `timeline`, a page of clicks, and a `series` by day or hour over a date range (`from`, `to`) in a time zone (`tz`), read from roll-ups counted per UTC hour. Each parameter is checked: a wrong one is 400 naming it, never replaced by a default.",
      params: LINK_ID,
      query: AnalyticsQuery,
      responses: { 200: AnalyticsReport },
      errors: ["VALIDATION"],
    },
    {
      method: "GET",
      path: `${prefix}/:id/clicks.csv`,
      summary: `A ${what}'s clicks as CSV`,
      params: LINK_ID,
      responses: {
        200: {
          description: "Every click, one row each",
          media: { type: "text/csv" },
          headers: { "Content-Disposition": 'attachment; filename="clicks-{code}.csv"' },
        },
      },
    },
    ...(main
      ? []
      : [
          {
            method: "POST" as const,
            path: `${prefix}/:id/reset-clicks`,
            summary: "Reset a brand link's clicks",
            description: "The root link is addressed with `isRoot=true`.",
            params: LINK_ID,
            query: ResetQuery,
            responses: { 200: LinkView },
          },
        ]),
  ]);
}
