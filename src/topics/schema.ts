// One schema for the topic routes and the dashboard forms: the spec's messages live here.
import * as v from "valibot";
import { graphemesAtMost } from "../shared/slug";
import { noControlChars } from "../shared/text";

export const TOPIC_NAME_MAX = 50;
export const ACCESS_TYPES = ["personal", "public", "private"] as const;

// Characters as people count them (an emoji is one), so "🚀 " never eats the budget twice
// (graphemesAtMost stops counting one past the limit: issue 11's request budget).

/** Spec §5: name required, 1 to 50 characters. */
export const TopicName = v.pipe(
  v.optional(v.string("Topic name must be text"), ""),
  v.trim(),
  v.nonEmpty("Topic name is required"),
  noControlChars("Topic name"),
  // A bound in code units too: "a" plus 900,000 combining marks is one grapheme.
  v.maxLength(TOPIC_NAME_MAX * 10, "Topic name must be less than 50 characters"),
  v.check((s) => graphemesAtMost(s, TOPIC_NAME_MAX), "Topic name must be less than 50 characters"),
);

/** Spec §5: emoji optional free text; bounded so it stays an emoji-sized label. */
export const TopicEmoji = v.optional(
  v.nullable(
    v.pipe(
      v.string("Emoji must be text"),
      v.trim(),
      noControlChars("Emoji"),
      v.maxLength(64, "Emoji must be a single emoji"),
      v.check((s) => graphemesAtMost(s, 2), "Emoji must be a single emoji"),
    ),
  ),
);

export const AccessType = v.picklist(ACCESS_TYPES, "Access must be personal, public or private");
export type AccessType = v.InferOutput<typeof AccessType>;

export const CreateTopicBody = v.object(
  { name: TopicName, emoji: TopicEmoji, accessType: v.optional(AccessType) },
  "Send the topic as a JSON object",
);

export const UpdateTopicBody = v.object(
  {
    name: v.optional(
      v.pipe(
        v.string("Topic name must be text"),
        v.trim(),
        v.nonEmpty("Topic name is required"),
        noControlChars("Topic name"),
        v.maxLength(TOPIC_NAME_MAX * 10, "Topic name must be less than 50 characters"),
        v.check((s) => graphemesAtMost(s, TOPIC_NAME_MAX), "Topic name must be less than 50 characters"),
      ),
    ),
    emoji: TopicEmoji,
    accessType: v.optional(AccessType),
  },
  "Send the topic as a JSON object",
);

const Index = (what: string) =>
  v.pipe(
    v.number(`${what} must be a number`),
    v.integer(`${what} must be a whole number`),
    v.minValue(0, `${what} must be 0 or more`),
  );

export const ReorderBody = v.object(
  { fromIndex: Index("fromIndex"), toIndex: Index("toIndex") },
  "Send {fromIndex, toIndex} as a JSON object",
);

/** A topic as the API returns it (spec §3, plus the owner's username for building links). */
export const Topic = v.object({
  id: v.number(),
  userId: v.number(),
  name: v.string(),
  emoji: v.nullable(v.string()),
  linkSlug: v.string(),
  phoneNumber: v.string(),
  order: v.number(),
  isDefault: v.boolean(),
  accessType: AccessType,
  clickCount: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
  username: v.string(),
});
export type Topic = v.InferOutput<typeof Topic>;

/** How the viewer stands to a topic: its owner, an invited member, or a reader of a public topic. */
export const TopicRole = v.picklist(["owner", "member", "viewer"]);

/** GET /api/topic/{username}/{topicSlug}: the topic behind a link, and the viewer's role. */
export const TopicView = v.object({ ...Topic.entries, slug: v.string(), role: TopicRole });
export type TopicView = v.InferOutput<typeof TopicView>;

/** POST …/open: whether this open was counted, and the count after it. */
export const TopicOpen = v.object({ counted: v.boolean(), clickCount: v.number() });

/** A user whose invite the viewer accepted. */
export const SharingUser = v.object({ id: v.number(), username: v.string(), since: v.string(), topicCount: v.number() });
export type SharingUser = v.InferOutput<typeof SharingUser>;

/** GET /api/share/{username}: what the viewer may see of that user's topics. */
export const SharePayload = v.object({ username: v.string(), isOwner: v.boolean(), isMember: v.boolean(), topics: v.array(Topic) });
export type SharePayload = v.InferOutput<typeof SharePayload>;
