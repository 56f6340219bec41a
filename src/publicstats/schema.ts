// Public stats pages (issue 26): what the owner's API returns about a link's published page.
import * as v from "valibot";

/** The page's address: /public/stats/TOKEN ("public" is a reserved first path segment). */
export const PUBLIC_STATS_PREFIX = "/public/stats/";
/** 24 random bytes, base64url: 32 characters. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

export const PublicStatsView = v.object({
  linkId: v.number(),
  published: v.pipe(v.boolean(), v.description("Whether the link's stats are published now")),
  url: v.pipe(v.nullable(v.string()), v.description("The page's address (null when not published): anyone with it can see the link's aggregate stats")),
  publishedAt: v.nullable(v.string()),
});
export type PublicStatsView = v.InferOutput<typeof PublicStatsView>;
