import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { badRequest, notFound } from "../shared/errors";
import { rowId } from "../db/ids";
import { QUOTA_MSG, assertRoom } from "../plans/quotas";
import { assertCanAddTopic, assertCanUseEmoji } from "../plans/rules";
import { CreateTopicBody, ReorderBody, SharePayload, SharingUser, Topic, TopicOpen, TopicView, UpdateTopicBody } from "./schema";
import * as v from "valibot";
import { defineOperations } from "../shared/apiOperations";
import { jsonBody } from "../http/bodyLimit";
import { hasControlChars } from "../shared/text";
import { splitEmoji } from "./slug";
import { randomPhone, topicsStore } from "./store";
import { topicVcard, vcardFilename } from "./vcard";

/** Path ids are positive integers; anything else is simply not found. */
function parseId(raw: string) {
  const id = rowId(raw);
  if (id === null) throw notFound("Topic not found");
  return id;
}

/** An explicit emoji wins; otherwise a leading "🚀 " is split off the name (spec §3). */
function nameAndEmoji(name: string, emoji: string | null | undefined) {
  if (emoji !== undefined) return { name, emoji: emoji || null };
  return splitEmoji(name);
}

export function topicRoutes(ctx: AppContext, auth: AuthPlugin) {
  const store = topicsStore(ctx.db);
  const phone = () => randomPhone(ctx.config.phonePrefix);
  const linkOf = (t: Topic) => `${ctx.config.publicUrl}/${t.username}/${t.linkSlug}`;

  return new Elysia({ prefix: "/api" })
    .use(auth)
    .get("/topics", ({ user }) => store.listOwn(user.id), { auth: true })
    .post(
      "/topics",
      async ({ body, user, set }) => {
        const { name, emoji } = nameAndEmoji(body.name, body.emoji);
        // Checked inside the store's transaction, on the count it is about to add to.
        const allow = (count: number) => {
          assertCanAddTopic(user, count, ctx.config.freeTopicLimit);
          // Premium too: "unlimited" topics are bounded by what one account may hold here.
          assertRoom(count, ctx.config.quotas.topicsPerUser, QUOTA_MSG.topics);
          assertCanUseEmoji(user, emoji);
        };
        const topic = await store.create(user.id, { name, emoji, accessType: body.accessType }, phone, allow);
        set.status = 201;
        return topic;
      },
      { auth: true, body: jsonBody(CreateTopicBody) },
    )
    // Listed before /topics/:id so "reorder" is never read as an id.
    .post(
      "/topics/reorder",
      async ({ body, user }) => {
        const list = await store.reorder(user.id, body.fromIndex, body.toIndex);
        if (!list) throw badRequest("fromIndex and toIndex must point at topics in your list");
        return list;
      },
      { auth: true, body: jsonBody(ReorderBody) },
    )
    .put(
      "/topics/:id",
      async ({ params, body, user }) => {
        const id = parseId(params.id);
        const current = await store.get(user.id, id);
        if (!current) throw notFound("Topic not found");
        const patch: Parameters<typeof store.update>[2] = { accessType: body.accessType };
        if (body.name !== undefined) Object.assign(patch, nameAndEmoji(body.name, body.emoji));
        else if (body.emoji !== undefined) patch.emoji = body.emoji || null;
        if (patch.emoji !== undefined) assertCanUseEmoji(user, patch.emoji, current.emoji);
        // Null only when the topic was deleted since the read above.
        const updated = await store.update(user.id, id, patch);
        if (!updated) throw notFound("Topic not found");
        return updated;
      },
      { auth: true, body: jsonBody(UpdateTopicBody) },
    )
    .delete(
      "/topics/:id",
      async ({ params, user, set }) => {
        if (!(await store.remove(user.id, parseId(params.id)))) throw notFound("Topic not found");
        set.status = 204;
        return null;
      },
      { auth: true },
    )
    .get(
      "/topics/:id/contact.vcf",
      async ({ params, user, set }) => {
        const topic = await store.get(user.id, parseId(params.id));
        if (!topic) throw notFound("Topic not found");
        set.headers["content-type"] = "text/vcard; charset=utf-8";
        set.headers["content-disposition"] = `attachment; filename="${vcardFilename(topic)}"`;
        set.headers["cache-control"] = "no-store";
        return topicVcard(topic, linkOf(topic));
      },
      { auth: true },
    )
    // The topic behind a link {host}/{username}/{slug}; old slugs still resolve. Reading it
    // counts nothing: the message list and detail pages fetch it too.
    .get(
      "/topic/:username/:topicSlug",
      async ({ params, user }) => {
        const found = await store.findVisible(user.id, params.username, params.topicSlug);
        if (!found) throw notFound("Topic not found");
        const { topic, role } = found;
        return { ...topic, slug: topic.linkSlug, role };
      },
      { auth: true },
    )
    // clickCount counts opens of the topic link by anyone but its owner (PRODUCT.md), once per
    // viewer per topic per day, so reloading or replaying the request does not inflate it.
    // Only the topic page (the page behind that link) sends this.
    .post(
      "/topic/:username/:topicSlug/open",
      async ({ params, user }) => {
        const found = await store.findVisible(user.id, params.username, params.topicSlug);
        if (!found) throw notFound("Topic not found");
        const { topic, role } = found;
        const counted = role !== "owner" && (await store.recordOpen(topic.id, user.id));
        return { counted, clickCount: topic.clickCount + (counted ? 1 : 0) };
      },
      { auth: true },
    )
    .get("/shared-topics", ({ user }) => store.listShared(user.id), { auth: true })
    .get("/sharing-users", ({ user }) => store.sharingUsers(user.id), { auth: true })
    // /share/{username}: what the viewer may see of that user's topics.
    .get(
      "/share/:username",
      async ({ params, user }) => {
        // A username never holds a control character (and PostgreSQL cannot bind U+0000).
        const owner = hasControlChars(params.username) ? null : await ctx.accounts.findByUsername(params.username.toLowerCase());
        if (!owner) throw notFound("No user with that name");
        const isMember = owner.id !== user.id && (await store.sharingUsers(user.id)).some((u) => u.id === owner.id);
        return { username: owner.username, isOwner: owner.id === user.id, isMember, topics: await store.listForShare(user.id, owner.username) };
      },
      { auth: true },
    );
}

const TOPIC_ID = { id: "The topic's id" };
const TOPIC_LINK = { username: "The topic owner's username", topicSlug: "The topic's link slug (an old slug still resolves)" };

export const topicOperations = defineOperations({ tag: "Topics", auth: "user", keyArea: "topics" }, [
  { method: "GET", path: "/api/topics", summary: "List your topics", responses: { 200: v.array(Topic) } },
  {
    method: "POST",
    path: "/api/topics",
    summary: "Create a topic",
    description: "A leading emoji in the name becomes the topic's emoji. The free plan has a topic limit and no emoji (403).",
    body: CreateTopicBody,
    example: { name: "🚀 Launch notes", accessType: "personal" },
    responses: { 201: Topic },
    errors: ["QUOTA_EXCEEDED"],
  },
  {
    method: "POST",
    path: "/api/topics/reorder",
    summary: "Move a topic in your list",
    body: ReorderBody,
    example: { fromIndex: 0, toIndex: 2 },
    responses: { 200: v.array(Topic) },
  },
  {
    method: "PUT",
    path: "/api/topics/:id",
    summary: "Change a topic",
    params: TOPIC_ID,
    body: UpdateTopicBody,
    example: { name: "Launch notes", accessType: "public" },
    responses: { 200: Topic },
  },
  { method: "DELETE", path: "/api/topics/:id", summary: "Delete a topic", params: TOPIC_ID, responses: { 204: { description: "Deleted" } } },
  {
    method: "GET",
    path: "/api/topics/:id/contact.vcf",
    summary: "The topic as a contact card",
    params: TOPIC_ID,
    responses: {
      200: {
        description: "A vCard with the topic's name, phone number and link",
        media: { type: "text/vcard" },
        headers: { "Content-Disposition": "attachment; filename=\"….vcf\"" },
      },
    },
  },
  {
    method: "GET",
    path: "/api/topic/:username/:topicSlug",
    summary: "The topic behind a topic link",
    description: "Yours, a topic shared with you, or a public topic; anything else is 404.",
    params: TOPIC_LINK,
    responses: { 200: TopicView },
  },
  {
    method: "POST",
    path: "/api/topic/:username/:topicSlug/open",
    summary: "Count an open of a topic link",
    description: "Counted once per viewer per topic per day, never for the owner.",
    params: TOPIC_LINK,
    responses: { 200: TopicOpen },
  },
  { method: "GET", path: "/api/shared-topics", summary: "Topics shared with you", tag: "Sharing", responses: { 200: v.array(Topic) } },
  { method: "GET", path: "/api/sharing-users", summary: "Users who share their topics with you", tag: "Sharing", responses: { 200: v.array(SharingUser) } },
  {
    method: "GET",
    path: "/api/share/:username",
    summary: "What you may see of a user's topics",
    tag: "Sharing",
    params: { username: "The user whose topics to list" },
    responses: { 200: SharePayload },
  },
]);
