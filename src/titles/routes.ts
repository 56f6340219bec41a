import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { forbidden, notFound } from "../shared/errors";
import { rowId } from "../db/ids";
import { topicsStore, type TopicRole } from "../topics/store";
import { CreateTitleBody, TITLE_PAGE_DEFAULT, TITLE_PAGE_MAX, Title, TitleListQuery, TitleQuery, UpdateTitleBody } from "./schema";
import { cursorKeys, pageHeaders } from "../http/paging";
import { NEXT_HEADER, TOTAL_HEADER } from "../shared/paging";
import * as v from "valibot";
import { defineOperations } from "../shared/apiOperations";
import { jsonBody } from "../http/bodyLimit";
import { NOT_YOURS, titleSortKinds, titlesStore } from "./store";

const TOPIC_NOT_FOUND = "Topic not found";
const TITLE_NOT_FOUND = "Title not found";

/** A path id is a positive integer; anything else can name no title. */
function titleId(raw: string) {
  const id = rowId(raw);
  if (id === null) throw notFound(TITLE_NOT_FOUND);
  return id;
}

/**
 * Titles and their message versions inside a topic: /api/{username}/{topicSlug}/titles.
 * Access comes from the topic (PRODUCT.md): owner and invitees read and write, a public
 * topic's other readers only read, only the owner deletes; a topic the caller may not see
 * is 404, so its existence is not revealed.
 */
export function titleRoutes(ctx: AppContext, auth: AuthPlugin) {
  const store = titlesStore(ctx.db, ctx.config.quotas);
  const topics = topicsStore(ctx.db);

  async function access(userId: number, username: string, slug: string, need: "read" | "write" | "delete") {
    const found = await topics.findVisible(userId, username, slug);
    if (!found) throw notFound(TOPIC_NOT_FOUND);
    const allowed: Record<typeof need, TopicRole[]> = {
      read: ["owner", "member", "viewer"],
      write: ["owner", "member"],
      delete: ["owner"],
    };
    if (!allowed[need].includes(found.role)) {
      throw forbidden(need === "delete" ? "Only the topic's owner can delete its titles" : "You can view this topic but not change it");
    }
    return found;
  }

  return new Elysia({ prefix: "/api" })
    .use(auth)
    .get(
      "/:username/:topicSlug/titles",
      async ({ user, params, set, query }) => {
        const { topic } = await access(user.id, params.username, params.topicSlug, "read");
        // Spec §7: the titles list is never cached.
        set.headers["cache-control"] = "no-store";
        const sort = query.sort ?? "newest";
        const page = await store.page(topic.id, {
          search: query.q ?? "",
          name: query.name ?? null,
          sort,
          limit: query.limit ?? TITLE_PAGE_DEFAULT,
          after: cursorKeys(query.cursor, sort, titleSortKinds(sort)),
        });
        pageHeaders(set, page, sort, (t) => t.cursor);
        return page.rows.map(({ cursor: _, ...t }) => t);
      },
      { auth: true, query: TitleListQuery },
    )
    .post(
      "/:username/:topicSlug/titles",
      async ({ user, params, body, set }) => {
        const { topic } = await access(user.id, params.username, params.topicSlug, "write");
        // The event's consumers decide who hears of it (the owner's notification: src/notifications/events.ts).
        const title = await store.create(topic.id, user.id, body, (t) => ({
          type: "title.added",
          userId: topic.userId,
          topicId: topic.id,
          data: {
            topicId: topic.id,
            topicName: topic.name,
            titleId: t.id,
            titleName: t.name,
            version: t.version,
            actorId: user.id,
            actor: user.username,
            path: `/${topic.username}/${topic.linkSlug}/${t.slug}`,
          },
        }));
        set.status = 201;
        return title;
      },
      { auth: true, body: jsonBody(CreateTitleBody) },
    )
    .put(
      "/:username/:topicSlug/titles/:id",
      async ({ user, params, body, query }) => {
        const id = titleId(params.id);
        const { topic, role } = await access(user.id, params.username, params.topicSlug, "write");
        const title = await store.update(topic.id, id, body, query.updateAllVersions === "true", { userId: user.id, isOwner: role === "owner" });
        // Not changeable by this member: say so when they can see it (they read the topic).
        if (!title) throw (await store.get(topic.id, id)) ? forbidden(NOT_YOURS) : notFound(TITLE_NOT_FOUND);
        return title;
      },
      { auth: true, body: jsonBody(UpdateTitleBody), query: TitleQuery },
    )
    .delete(
      "/:username/:topicSlug/titles/:id",
      async ({ user, params, query, set }) => {
        const id = titleId(params.id);
        const { topic } = await access(user.id, params.username, params.topicSlug, "delete");
        if (!(await store.remove(topic.id, id, query.allVersions === "true"))) throw notFound(TITLE_NOT_FOUND);
        set.status = 204;
      },
      { auth: true, query: TitleQuery },
    );
}

const IN_TOPIC = { username: "The topic owner's username", topicSlug: "The topic's link slug" };
const TITLE = { ...IN_TOPIC, id: "The title's id (one version)" };

export const titleOperations = defineOperations({ tag: "Titles", auth: "user", keyArea: "topics" }, [
  {
    method: "GET",
    path: "/api/:username/:topicSlug/titles",
    summary: "List a topic's titles",
    description: `A page of the topic's titles, every version of each (default ${TITLE_PAGE_DEFAULT}, at most ${TITLE_PAGE_MAX}), newest first unless \`sort\` says otherwise; \`q\` finds names containing the text, \`name\` one title's versions. \`${TOTAL_HEADER}\` gives how many match; \`${NEXT_HEADER}\` (absent on the last page) is the next page's \`cursor\`.`,
    params: IN_TOPIC,
    query: TitleListQuery,
    responses: {
      200: {
        description: "A page of titles",
        schema: v.array(Title),
        headers: { [TOTAL_HEADER]: "How many titles match" },
        optionalHeaders: { [NEXT_HEADER]: "The next page's cursor; absent on the last page" },
      },
    },
  },
  {
    method: "POST",
    path: "/api/:username/:topicSlug/titles",
    summary: "Add a title or a new version",
    description: "`version: 1` starts a new title (409 when the name is taken); otherwise the next version of the series is added. Viewers of a public topic get 403.",
    params: IN_TOPIC,
    body: CreateTitleBody,
    example: { name: "Welcome", keyPhrase: "Hello and welcome!", notes: "", version: 1 },
    responses: { 201: Title },
    errors: ["CONFLICT", "QUOTA_EXCEEDED"],
  },
  {
    method: "PUT",
    path: "/api/:username/:topicSlug/titles/:id",
    summary: "Change a title",
    description: "`updateAllVersions=true` renames every version of the series. Members change only what they added (403).",
    params: TITLE,
    query: TitleQuery,
    body: UpdateTitleBody,
    example: { keyPhrase: "Hello again!" },
    responses: { 200: Title },
    errors: ["CONFLICT", "QUOTA_EXCEEDED"],
  },
  {
    method: "DELETE",
    path: "/api/:username/:topicSlug/titles/:id",
    summary: "Delete a title",
    description: "Only the topic's owner; `allVersions=true` deletes the whole series.",
    params: TITLE,
    query: TitleQuery,
    responses: { 204: { description: "Deleted" } },
  },
]);
