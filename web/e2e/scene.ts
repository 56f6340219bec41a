// One set of data behind every screen, made through the API, for the accessibility and
// screenshot specs: an owner with topics, a title in two versions, links with a click, a
// brand link, an accepted invite (so the owner has a notification and the friend a share
// page) and a pending invite for the visitor's invite page.
import { expect, request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { PASSWORD, nextClientAddress } from "./helpers";

export type Scene = {
  owner: string;
  friend: string;
  topicSlug: string;
  titleSlug: string;
  inviteCode: string;
  linkTitle: string;
  /** Signed-in cookies, for `browser.newContext({ storageState })`. */
  ownerState: Awaited<ReturnType<APIRequestContext["storageState"]>>;
  friendState: Awaited<ReturnType<APIRequestContext["storageState"]>>;
  /** When the last topic was made: the dashboard highlights topics younger than 5 s. */
  madeAt: number;
};

async function ok<T>(res: Promise<import("@playwright/test").APIResponse>, status = 201): Promise<T> {
  const r = await res;
  expect(r.status(), `${r.url()}: ${await r.text()}`).toBe(status);
  return (r.headers()["content-type"] ?? "").includes("json") ? ((await r.json()) as T) : (undefined as T);
}

async function signedIn(baseURL: string, username: string) {
  const api = await playwrightRequest.newContext({ baseURL });
  await ok(api.post("/api/register", { data: { username, password: PASSWORD, email: `${username}@example.test` }, headers: { "x-forwarded-for": nextClientAddress() } }));
  return api;
}

/**
 * Builds the scene for two usernames. Names are the caller's: the screenshot spec passes fixed
 * ones (they show on screen), the accessibility spec unique ones. Playwright runs beforeAll
 * again in a new worker after a failed test, so a scene once built is kept in a file beside
 * the server's data dir (fresh each run) and reused, never made twice.
 */
export async function buildScene(baseURL: string, owner: string, friend: string, codeSuffix = ""): Promise<Scene> {
  // playwright.config.ts makes a fresh E2E_DATA_DIR per run and passes it to every worker.
  const saved = `${process.env.E2E_DATA_DIR}-scene-${owner}.json`;
  if (existsSync(saved)) return JSON.parse(readFileSync(saved, "utf8")) as Scene;
  const scene = await makeScene(baseURL, owner, friend, codeSuffix);
  writeFileSync(saved, JSON.stringify(scene));
  return scene;
}

async function makeScene(baseURL: string, owner: string, friend: string, codeSuffix: string): Promise<Scene> {
  const a = await signedIn(baseURL, owner);
  const b = await signedIn(baseURL, friend);

  const topics: { linkSlug: string }[] = [];
  for (const [name, accessType] of [["Road Trip", "personal"], ["Book Club", "public"], ["Garden Log", "private"]] as const) {
    topics.push(await ok(a.post("/api/topics", { data: { name, accessType } })));
  }
  const topicSlug = topics[0]!.linkSlug;
  const titles = `/api/${owner}/${topicSlug}/titles`;
  const first = await ok<{ slug: string }>(a.post(titles, { data: { name: "Packing List", notes: "Tent, stove, two maps and the blue cooler.", version: 1 } }));
  await ok(a.post(titles, { data: { name: "Packing List", notes: "Tent, stove, maps, cooler and sun cream.", version: 2 } }));
  await ok(a.post(titles, { data: { name: "Route Ideas", notes: "Coast road north, back through the hills.", version: 1 } }));

  // Fixed short codes (a random one would change every screenshot); codes are global, so a
  // second scene in the same server passes a suffix.
  const linkTitle = "Spring Launch";
  const link = await ok<{ shortUrl: string }>(
    a.post("/api/links", { data: { originalUrl: "https://example.com/spring", title: linkTitle, description: "The landing page for the spring campaign", shortCode: `spring-launch${codeSuffix}` } }),
  );
  await ok(a.post("/api/links", { data: { originalUrl: "https://example.org/menu", title: "Lunch Menu", shortCode: `lunch-menu${codeSuffix}` } }));
  // One click, so the analytics dialog has numbers and a row of Click Details. The click
  // worker writes it (and its 'first click' notification) off the request: wait for it, so the
  // notifications are always listed in the same order.
  await ok(a.get(link.shortUrl, { maxRedirects: 0 }), 302);
  await expect
    .poll(async () => ((await ok<{ notifications: { message: string }[] }>(a.get("/api/notifications"), 200)).notifications.map((n) => n.message)))
    .toContainEqual(expect.stringContaining("got its first click"));
  await ok(a.post("/api/pic-drift-links", { data: { originalUrl: "https://example.com/gallery", title: "Gallery", shortCode: `gallery${codeSuffix}` } }));

  // The friend accepts one invite (the owner is notified); a second stays pending for the invite page.
  const accepted = await ok<{ code: string }>(a.post("/api/invites"));
  await ok(b.post(`/api/invites/${accepted.code}/accept`), 200);
  const pending = await ok<{ code: string }>(a.post("/api/invites"));

  const scene: Scene = {
    owner,
    friend,
    topicSlug,
    titleSlug: first.slug,
    inviteCode: pending.code,
    linkTitle,
    ownerState: await a.storageState(),
    friendState: await b.storageState(),
    madeAt: Date.now(),
  };
  await a.dispose();
  await b.dispose();
  return scene;
}

type Who = "owner" | "friend" | "visitor";
export type Screen = {
  name: string;
  who: Who;
  path: (s: Scene) => string;
  /** Shown once the screen has its data. */
  ready: (p: import("@playwright/test").Page, s: Scene) => import("@playwright/test").Locator;
  /** Gets the screen into the state to check after load (opening a dialog). */
  open?: (p: import("@playwright/test").Page, s: Scene) => Promise<void>;
  /** Loads the screen some other way than by going to `path`. */
  load?: (p: import("@playwright/test").Page, s: Scene) => Promise<void>;
};

const h1 = (p: import("@playwright/test").Page, name: string | RegExp) => p.getByRole("heading", { level: 1, name });

/** Every screen of the spec, once. */
export const SCREENS: Screen[] = [
  { name: "auth", who: "visitor", path: () => "/auth", ready: (p) => h1(p, "Welcome back") },
  { name: "dashboard", who: "owner", path: () => "/", ready: (p) => p.getByRole("listitem", { name: "Road Trip" }) },
  { name: "topic", who: "owner", path: (s) => `/topic/${s.owner}/${s.topicSlug}`, ready: (p) => p.getByRole("heading", { level: 3, name: "Route Ideas" }) },
  { name: "messages", who: "owner", path: (s) => `/${s.owner}/${s.topicSlug}/${s.titleSlug}`, ready: (p) => p.getByText("sun cream") },
  { name: "message", who: "owner", path: (s) => `/${s.owner}/${s.topicSlug}/${s.titleSlug}/1`, ready: (p) => p.getByText("blue cooler").first() },
  { name: "share", who: "friend", path: (s) => `/share/${s.owner}`, ready: (p) => p.getByText("Book Club").first() },
  { name: "invite", who: "visitor", path: (s) => `/invite/${s.inviteCode}`, ready: (p, s) => h1(p, `${s.owner} invited you`) },
  { name: "link-tracker", who: "owner", path: () => "/link-tracker", ready: (p) => p.getByRole("heading", { name: "Spring Launch" }) },
  {
    name: "analytics",
    who: "owner",
    path: () => "/link-tracker",
    ready: (p) => p.getByRole("heading", { name: "Spring Launch" }),
    open: async (p, s) => {
      await p.getByRole("button", { name: `Analytics for ${s.linkTitle}` }).click();
      await expect(p.getByRole("dialog", { name: `Analytics: ${s.linkTitle}` }).getByText("Total Clicks")).toBeVisible();
    },
  },
  {
    name: "phone-menu",
    who: "owner",
    path: () => "/",
    ready: (p) => p.getByRole("listitem", { name: "Road Trip" }),
    open: async (p) => {
      await p.setViewportSize({ width: 360, height: 740 });
      await p.getByRole("button", { name: "Open menu" }).click();
      await expect(p.getByRole("dialog", { name: "Menu" }).getByRole("link", { name: "Notifications" })).toBeVisible();
    },
  },
  { name: "brand-tracker", who: "owner", path: () => "/pic-drift-link-tracker", ready: (p) => p.getByRole("heading", { name: "Gallery" }) },
  { name: "qr", who: "owner", path: () => "/qr", ready: (p) => h1(p, "QR Code Generator") },
  {
    // Issue 25: a styled, framed code generated, with a refused colour pair's message showing.
    name: "qr-styled",
    who: "owner",
    path: () => "/qr",
    ready: (p) => h1(p, "QR Code Generator"),
    open: async (p) => {
      await p.getByLabel("URL", { exact: true }).fill("https://example.com/styled");
      await p.getByLabel("Dot shape").selectOption("dots");
      await p.getByLabel("Corner shape").selectOption("rounded");
      await p.getByLabel("Frame text (optional)").fill("Scan me");
      await p.getByRole("button", { name: "Generate" }).click();
      await expect(p.getByText("Checked: scans to https://example.com/styled")).toBeVisible();
      // The success toast would come and go during a screenshot.
      await p.getByRole("button", { name: "Dismiss notification" }).click();
      await p.getByLabel("Background colour", { exact: true }).fill("#dddddd");
      await p.getByLabel("Foreground colour", { exact: true }).fill("#999999");
      await expect(p.getByText(/too close to scan reliably/)).toBeVisible();
    },
  },
  {
    name: "brand-qr",
    who: "owner",
    path: () => "/pic-drift-link-tracker",
    ready: (p) => p.getByRole("heading", { name: "Gallery" }),
    open: async (p) => {
      await p.getByRole("button", { name: "More actions for Gallery" }).click();
      await p.getByRole("menu").getByRole("menuitem", { name: "QR code" }).click();
      const dialog = p.getByRole("dialog", { name: "QR Code Generator" });
      await dialog.getByText("Style: colours, shapes and frame").click();
      await expect(dialog.getByLabel("Dot shape")).toBeVisible();
    },
  },
  { name: "notifications", who: "owner", path: () => "/notifications", ready: (p, s) => p.getByText(`${s.friend} accepted your invite`) },
  { name: "pricing", who: "owner", path: () => "/pricing", ready: (p) => p.getByText("per month") },
  { name: "about", who: "visitor", path: () => "/about", ready: (p) => h1(p, /^About/) },
  { name: "how-to-use", who: "visitor", path: () => "/how-to-use", ready: (p) => h1(p, /^How to Use/) },
  { name: "not-found", who: "visitor", path: () => "/no/such/page/here/at-all", ready: (p) => h1(p, "Page Not Found") },
  {
    // The server's own page for an unknown short code. It sends the visitor home after 2 s,
    // so it is checked as its HTML with the refresh taken out.
    name: "unknown-code",
    who: "visitor",
    path: () => "/no-such-code",
    ready: (p) => h1(p, "Link not found"),
    load: async (p) => {
      const res = await p.request.get("/no-such-code", { maxRedirects: 0 });
      expect(res.status()).toBe(404);
      await p.setContent((await res.text()).replace(/<meta http-equiv="refresh"[^>]*>/i, ""));
    },
  },
];

/** The cookies a screen is seen with. */
export const stateFor = (s: Scene, who: Who) => (who === "owner" ? s.ownerState : who === "friend" ? s.friendState : undefined);
