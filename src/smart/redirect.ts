// The redirect of a smart link (the plain link's path never comes here: redirects/routes.ts
// checks CachedLink.smart once). Decided from memory: the compiled settings, the in-memory
// click count, the unlock cookie's MAC; no database read per redirect. The one database touch
// is a password guess (its attempt slot), which is not a redirect.
import type { AppContext } from "../context";
import type { CachedLink, Links } from "../links/service";
import { readCookie } from "../http/auth";
import { attemptStore } from "../http/attemptStore";
import { clientIp } from "../http/security";
import { LIMITS } from "../http/rateLimit";
import { decide, languagesOf, type CompiledSmart, type Facts, type Language } from "./decide";
import { agentOf } from "./visitor";
import { gatePages } from "./page";
import { unlockCookieName, unlockValue, unlocks } from "./unlock";
import { UNLOCK_TTL_S } from "./schema";

export type RedirectSource = "path" | "safari-direct";
type Server = { requestIP?: (r: Request) => { address: string } | null } | null | undefined;

/** What the plain path offers the smart one (redirects/routes.ts). */
export type SmartHooks = {
  /** The 302 and the click, exactly as a plain link's, to `href`, recording `route`. */
  send(link: CachedLink, href: string, route: string | null, request: Request, server: Server, source: RedirectSource, visitorId?: string): Response;
  /** The visitor's location as the analytics would take it from a trusted proxy (null fields otherwise). */
  proxyPlace(request: Request, server: Server): { ip: string | null; country: string | null; city: string | null; trusted: boolean };
  /** The 410 page of a link past its click limit with no fallback. */
  gone(): Response;
  visitorId(request: Request): string | null;
  newVisitorId(): string;
};

const MAX_LANGUAGE_HEADER = 256;
const NONE: readonly Language[] = Object.freeze([]);

export function smartRedirects(ctx: AppContext, links: Links, hooks: SmartHooks) {
  const rt = links.smart;
  const pages = gatePages(ctx.config.appName, LIMITS.linkPasswordPerAddress.windowMs);
  const attempts = attemptStore(ctx.db);
  const secure = ctx.config.secureCookies ? "; Secure" : "";

  const isUnlocked = (request: Request, link: CachedLink, s: CompiledSmart) =>
    s.password === null || unlocks(rt.key, readCookie(request, unlockCookieName(link.id)), link.id, s.password.version);

  /**
   * The facts `s`'s rules read, and only those, written into one object reused by every
   * redirect (decide keeps nothing of it, and the redirect never awaits): nothing allocated per
   * redirect for them.
   */
  const shared: Facts = { device: null, os: null, browser: null, languages: [], country: null, city: null, now: 0, visitorId: null, clicks: 0 };
  function facts(s: CompiledSmart, link: CachedLink, request: Request, server: Server, visitorId: string | null): Facts {
    const h = request.headers;
    const f = shared;
    f.device = f.os = f.browser = f.country = f.city = null;
    if (s.needs.agent) {
      const agent = agentOf(h.get("user-agent")?.slice(0, 1024) ?? null);
      f.device = agent.device;
      f.os = agent.os;
      f.browser = agent.browser;
    }
    if (s.needs.place) {
      const p = hooks.proxyPlace(request, server);
      f.country = p.country;
      f.city = p.city;
      if (!f.country || !f.city) {
        const looked = rt.place(p.ip);
        f.country ??= looked.country;
        f.city ??= looked.city;
      }
    }
    f.languages = s.needs.language ? languagesOf(h.get("accept-language")?.slice(0, MAX_LANGUAGE_HEADER) ?? null) : NONE;
    f.now = Date.now();
    f.visitorId = visitorId;
    f.clicks = rt.clicks(link.id);
    return f;
  }

  /** GET or HEAD of a live smart link. */
  function redirect(link: CachedLink, s: CompiledSmart, request: Request, server: Server, source: RedirectSource): Response {
    if (!isUnlocked(request, link, s)) {
      // The page view is counted apart from clicks (HEAD is a check, not a visitor).
      if (request.method === "GET") rt.gateView(link.id);
      return pages.ask.respond();
    }
    let visitorId = hooks.visitorId(request);
    // A sticky split draws from the visitor id: one is minted here when the visitor has none, and
    // the click's cookie carries it (send sets it as a new visitor).
    let minted: string | undefined;
    if (visitorId === null && s.split?.sticky) visitorId = minted = hooks.newVisitorId();
    const out = decide(s, facts(s, link, request, server, visitorId), link.id, link.href);
    if (out.href === null) return hooks.gone();
    const res = hooks.send(link, out.href, out.route, request, server, source, minted);
    if (s.maxClicks !== null && request.method === "GET") rt.counted(link.id);
    return res;
  }

  /** POST of the password form: unlock (a cookie for this link) and go on with a GET, or say why not. */
  async function unlock(link: CachedLink, request: Request, server: Server, body: unknown): Promise<Response> {
    const s = link.smart;
    const again = new URL(request.url);
    const back = { location: again.pathname + again.search, "cache-control": "no-store" };
    if (!s?.password) return new Response(null, { status: 303, headers: back });
    // Counted before the slow hash, as sign-in does: parallel guesses cannot all pass one check.
    // Without a peer address (an in-process request) the link's guesses share one count.
    const address = clientIp(ctx, request, server) ?? "unknown";
    const taken = await attempts.take([["linkPasswordPerAddress", `${link.id}|${address}`]]);
    if ("waitMs" in taken) return pages.limited(taken.waitMs);
    const given = body && typeof body === "object" && "password" in body ? (body as { password: unknown }).password : null;
    const ok = typeof given === "string" && given.length > 0 && given.length <= 1024 && (await Bun.password.verify(given, s.password.hash).catch(() => false));
    // A password changed while the hash ran bumped the version: this cookie then opens nothing.
    if (!ok) return pages.wrong.respond();
    await attempts.refund(taken.slots);
    rt.gateUnlock(link.id);
    const cookie = `${unlockCookieName(link.id)}=${unlockValue(rt.key, link.id, s.password.version)}; Path=/; Max-Age=${UNLOCK_TTL_S}; HttpOnly; SameSite=Lax${secure}`;
    return new Response(null, { status: 303, headers: { ...back, "set-cookie": cookie } });
  }

  return { redirect, unlock, isUnlocked };
}
