import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { AuthPlugin } from "../http/auth";
import { badRequest, notFound } from "../http/errors";
import { assertCanAddTopic, assertCanUseEmoji } from "../plans/rules";
import { CreateTopicBody, ReorderBody, UpdateTopicBody, type Topic } from "./schema";
import { jsonBody } from "../http/bodyLimit";
import { splitEmoji } from "./slug";
import { randomPhone, topicsStore } from "./store";
import { topicVcard, vcardFilename } from "./vcard";

/** Path ids are positive integers; anything else is simply not found. */
export function parseId(raw: string) {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw notFound("Topic not found");
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
      ({ body, user, set }) => {
        const { name, emoji } = nameAndEmoji(body.name, body.emoji);
        assertCanAddTopic(user, store.countOwn(user.id), ctx.config.freeTopicLimit);
        assertCanUseEmoji(user, emoji);
        set.status = 201;
        return store.create(user.id, { name, emoji, accessType: body.accessType }, phone);
      },
      { auth: true, body: jsonBody(CreateTopicBody) },
    )
    // Listed before /topics/:id so "reorder" is never read as an id.
    .post(
      "/topics/reorder",
      ({ body, user }) => {
        const list = store.reorder(user.id, body.fromIndex, body.toIndex);
        if (!list) throw badRequest("fromIndex and toIndex must point at topics in your list");
        return list;
      },
      { auth: true, body: jsonBody(ReorderBody) },
    )
    .put(
      "/topics/:id",
      ({ params, body, user }) => {
        const id = parseId(params.id);
        const current = store.get(user.id, id);
        if (!current) throw notFound("Topic not found");
        const patch: Parameters<typeof store.update>[2] = { accessType: body.accessType };
        if (body.name !== undefined) Object.assign(patch, nameAndEmoji(body.name, body.emoji));
        else if (body.emoji !== undefined) patch.emoji = body.emoji || null;
        if (patch.emoji !== undefined) assertCanUseEmoji(user, patch.emoji, current.emoji);
        return store.update(user.id, id, patch)!;
      },
      { auth: true, body: jsonBody(UpdateTopicBody) },
    )
    .delete(
      "/topics/:id",
      ({ params, user, set }) => {
        if (!store.remove(user.id, parseId(params.id))) throw notFound("Topic not found");
        set.status = 204;
        return null;
      },
      { auth: true },
    )
    .get(
      "/topics/:id/contact.vcf",
      ({ params, user, set }) => {
        const topic = store.get(user.id, parseId(params.id));
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
      ({ params, user }) => {
        const found = store.findVisible(user.id, params.username, params.topicSlug);
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
      ({ params, user }) => {
        const found = store.findVisible(user.id, params.username, params.topicSlug);
        if (!found) throw notFound("Topic not found");
        const { topic, role } = found;
        const counted = role !== "owner" && store.recordOpen(topic.id, user.id);
        return { counted, clickCount: topic.clickCount + (counted ? 1 : 0) };
      },
      { auth: true },
    )
    .get("/shared-topics", ({ user }) => store.listShared(user.id), { auth: true })
    .get("/sharing-users", ({ user }) => store.sharingUsers(user.id), { auth: true })
    // /share/{username}: what the viewer may see of that user's topics.
    .get(
      "/share/:username",
      ({ params, user }) => {
        const owner = ctx.accounts.findByUsername(params.username.toLowerCase());
        if (!owner) throw notFound("No user with that name");
        const isMember = owner.id !== user.id && store.sharingUsers(user.id).some((u) => u.id === owner.id);
        return { username: owner.username, isOwner: owner.id === user.id, isMember, topics: store.listForShare(user.id, owner.username) };
      },
      { auth: true },
    );
}
