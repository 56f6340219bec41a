// The analytics API's response shapes, shared with the web app (which may import only
// schema.ts files and src/shared/ from the server).

/** The dimensions the report tallies, in the order the dialog shows them. */
export const DIMENSIONS = ["country", "city", "browser", "device", "os", "referrer"] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** One row of a tally: a value and how many clicks had it. */
export type Tally = { name: string; count: number };

/** One click as the paged Click Details list shows it. */
export type ClickView = {
  id: number;
  timestamp: string;
  browser: string | null;
  deviceType: string | null;
  os: string | null;
  userAgent: string | null;
  country: string | null;
  city: string | null;
  referrer: string | null;
  metadata: { isReturningVisitor: boolean; visitNumber: number; source: string; isBot: boolean };
};

/** The analytics response (spec §3 'Analytics response shape' plus tallies, a daily series and a paged click list). */
export type AnalyticsReport = {
  link: { id: number; shortCode: string; shortUrl: string; originalUrl: string; title: string; createdAt: string; expiresAt: string | null };
  clickCount: number;
  uniqueVisitors: number;
  lastClick: string | null;
  tallies: Record<Dimension, Tally[]>;
  timeline: { days: number; series: { day: string; count: number }[] };
  page: number;
  pageSize: number;
  clicks: ClickView[];
};
