// Tags on links (issue 23): one schema for the tag routes, the link bodies that name tags and
// the web forms. Isomorphic: the web app imports it too.
import * as v from "valibot";
import { noControlChars } from "../shared/text";

export const TAG_NAME_MAX = 40;
/** Most tags one link may carry. */
export const TAGS_PER_LINK_MAX = 20;

/**
 * A fixed palette rather than any colour: each is drawn from the app's own tokens, so a tag
 * reads in light and dark mode alike and never fails contrast (web/links/links.css).
 */
export const TAG_COLORS = ["gray", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink"] as const;
export type TagColor = (typeof TAG_COLORS)[number];

export const TAG_MSG = {
  name: "Tag name is required",
  nameLength: `Tag name must be at most ${TAG_NAME_MAX} characters`,
  nameComma: "Tag name must not contain a comma (commas separate tags in CSV files)",
  color: `color must be one of ${TAG_COLORS.join(", ")}`,
  taken: "You already have a tag with that name",
  tooMany: `A link may have at most ${TAGS_PER_LINK_MAX} tags`,
  list: "tags must be a list of tag names",
} as const;

/** Case is kept as typed; "Sale" and "sale" are one tag (the store compares lower-cased). */
export const TagName = v.pipe(
  v.string("Tag name must be text"),
  v.trim(),
  v.nonEmpty(TAG_MSG.name),
  v.maxLength(TAG_NAME_MAX, TAG_MSG.nameLength),
  noControlChars("Tag name"),
  v.check((s) => !s.includes(","), TAG_MSG.nameComma),
);

export const TagColorSchema = v.pipe(v.picklist(TAG_COLORS, TAG_MSG.color), v.description(`One of the palette's colours: ${TAG_COLORS.join(", ")}.`));

export const CreateTagBody = v.object({ name: TagName, color: v.optional(TagColorSchema, "gray") });
export const EditTagBody = v.object({ name: v.optional(TagName), color: v.optional(TagColorSchema) });

/**
 * The tags of a link in a create or edit body, by name: a name you have no tag for yet makes
 * one (grey). Duplicates (in any case) count once.
 */
export const LinkTags = v.pipe(
  v.array(TagName, TAG_MSG.list),
  v.maxLength(TAGS_PER_LINK_MAX, TAG_MSG.tooMany),
  v.description(`Tag names (at most ${TAGS_PER_LINK_MAX}); a name you have no tag for yet makes one. On edit, the list replaces the link's tags.`),
);

export const TagView = v.object({
  id: v.number(),
  name: v.string(),
  color: v.picklist(TAG_COLORS),
  /** Links (both trackers) carrying the tag. */
  linkCount: v.number(),
  createdAt: v.string(),
});
export type TagView = v.InferOutput<typeof TagView>;

/** GET /api/tags/{id}/analytics: the tag's links' clicks added up, from the roll-ups. */
export const TagAnalyticsQuery = v.object({
  days: v.optional(v.pipe(v.picklist(["7", "30", "90"], "days must be 7, 30 or 90"), v.description("Days in the daily series (default 30)."))),
});

export const TagAnalytics = v.object({
  tag: TagView,
  /** Every click of the tag's links, all time. */
  totalClicks: v.number(),
  /** Clicks a UTC day over the last `days` days, days without clicks included as 0. */
  days: v.pipe(v.array(v.object({ day: v.string(), count: v.number() })), v.description("Clicks per UTC day over the last `days` days, oldest first, days without clicks as 0.")),
  /** The tag's links with the most clicks. */
  topLinks: v.array(v.object({ id: v.number(), shortCode: v.string(), title: v.string(), tracker: v.picklist(["main", "brand"]), clickCount: v.number() })),
});
export type TagAnalytics = v.InferOutput<typeof TagAnalytics>;
