// Whether a short code is unique per tracker (issue 23), for the server (the link service, its
// checks and the redirect map) and the web app's import page alike.

/**
 * True when the brand tracker has a host of its own (BRAND_DOMAIN neither the app's host nor
 * SHORT_DOMAIN): `promo` can then be one link in each tracker. Otherwise both trackers print on
 * one host and a code names one link across both (docs/decisions.md, "A code per tracker").
 */
export function codesPerTracker(c: { publicUrl: string; shortDomain: string; brandDomain: string }) {
  const appHost = new URL(c.publicUrl).host.toLowerCase();
  return c.brandDomain !== appHost && c.brandDomain !== c.shortDomain;
}
