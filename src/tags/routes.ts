// /api/tags: a user's tags for links of both trackers (issue 23): list, create, rename and
// recolour, delete, and a tag's combined clicks. A link names its tags in its own create and
// edit bodies (src/links); no SQL here.
import { Elysia } from "elysia";
import type { AuthPlugin } from "../http/auth";
import { rowId } from "../db/ids";
import { notFound } from "../shared/errors";
import { jsonBody } from "../http/bodyLimit";
import { Ok, defineOperations } from "../shared/apiOperations";
import * as v from "valibot";
import type { TagsStore } from "./store";
import { tagView } from "./store";
import { CreateTagBody, EditTagBody, TAG_COLORS, TagAnalytics, TagAnalyticsQuery, TagView } from "./schema";

/** The tag's links shown in its analytics, most clicked first. */
const TOP_LINKS = 10;
const DAY_MS = 86_400_000;

const parseId = (raw: string) => rowId(raw) ?? 0;

/** `flush`: every captured click written before the counts are read (the click recorder). */
export function tagRoutes(auth: AuthPlugin, tags: TagsStore, flush: () => Promise<unknown>) {
  const find = async (rawId: string, userId: number) => {
    const row = await tags.get(parseId(rawId), userId);
    if (!row) throw notFound("Tag not found");
    return row;
  };
  return new Elysia({ prefix: "/api/tags" })
    .use(auth)
    .get(
      "/",
      async ({ user, set }) => {
        set.headers["cache-control"] = "no-store";
        return (await tags.list(user.id)).map(tagView);
      },
      { auth: true },
    )
    .post(
      "/",
      async ({ user, body, set }) => {
        const row = await tags.create(user.id, body.name, body.color);
        set.status = 201;
        return tagView(row);
      },
      { auth: true, body: jsonBody(CreateTagBody) },
    )
    .patch(
      "/:id",
      async ({ user, params, body }) => {
        const row = await tags.update(parseId(params.id), user.id, body);
        if (!row) throw notFound("Tag not found");
        return tagView(row);
      },
      { auth: true, body: jsonBody(EditTagBody) },
    )
    .delete(
      "/:id",
      async ({ user, params }) => {
        if (!(await tags.delete(parseId(params.id), user.id))) throw notFound("Tag not found");
        return { ok: true as const };
      },
      { auth: true },
    )
    .get(
      "/:id/analytics",
      async ({ user, params, query }) => {
        await flush();
        const tag = await find(params.id, user.id);
        const days = Number(query.days ?? 30);
        const start = Date.now() - (days - 1) * DAY_MS;
        const counts = new Map((await tags.days(tag.id, new Date(start).toISOString().slice(0, 10))).map((d) => [d.day, Number(d.count)]));
        const series = Array.from({ length: days }, (_, i) => {
          const day = new Date(start + i * DAY_MS).toISOString().slice(0, 10);
          return { day, count: counts.get(day) ?? 0 };
        });
        const top = await tags.topLinks(tag.id, TOP_LINKS);
        return {
          tag: tagView(tag),
          totalClicks: await tags.totalClicks(tag.id),
          days: series,
          topLinks: top.map((l) => ({ id: l.id, shortCode: l.short_code, title: l.title, tracker: l.tracker, clickCount: Number(l.clicks) })),
        };
      },
      { auth: true, query: TagAnalyticsQuery },
    );
}

const TAG_ID = { id: "The tag's id" };

export const tagOperations = defineOperations({ tag: "Tags", auth: "user", keyArea: "links" }, [
  {
    method: "GET",
    path: "/api/tags/",
    summary: "List your tags",
    description: "Every tag you have (both trackers share them), A→Z, with how many links carry each.",
    responses: { 200: v.array(TagView) },
  },
  {
    method: "POST",
    path: "/api/tags/",
    summary: "Create a tag",
    description: `A name (at most 40 characters, no comma; "Sale" and "sale" are one tag) and a colour from the palette (${TAG_COLORS.join(", ")}; default gray). A link's create or edit body may also name a tag that does not exist yet: it is made then. Past MAX_TAGS_PER_USER tags: 403 \`QUOTA_EXCEEDED\`.`,
    body: CreateTagBody,
    example: { name: "Spring campaign", color: "green" },
    responses: { 201: TagView },
    errors: ["CONFLICT", "QUOTA_EXCEEDED"],
  },
  {
    method: "PATCH",
    path: "/api/tags/:id",
    summary: "Rename or recolour a tag",
    description: "Only the fields sent change. Its links keep it under the new name.",
    params: TAG_ID,
    body: EditTagBody,
    example: { name: "Summer campaign" },
    responses: { 200: TagView },
    errors: ["CONFLICT"],
  },
  { method: "DELETE", path: "/api/tags/:id", summary: "Delete a tag", description: "Its links stay, without the tag.", params: TAG_ID, responses: { 200: Ok } },
  {
    method: "GET",
    path: "/api/tags/:id/analytics",
    summary: "A tag's combined clicks",
    description: "The clicks of every link carrying the tag (both trackers), added up from the stored counts and daily roll-ups: the total, a daily series over `days` (7, 30 or 90; UTC days) and the most clicked links.",
    params: TAG_ID,
    query: TagAnalyticsQuery,
    responses: { 200: TagAnalytics },
    errors: ["VALIDATION"],
  },
]);
