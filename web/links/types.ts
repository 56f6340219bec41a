// Shapes the link API returns, taken from the server's own types so they never drift.
export type { LinkView, Tracker } from "../../src/links/schema";
export type { AnalyticsReport, ClickView, Tally } from "../../src/analytics/schema";

/** Where each tracker's API lives. */
export const API_BASE = { main: "/api/links", brand: "/api/pic-drift-links" } as const;
