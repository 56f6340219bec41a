// Attempt limits for sign-in, sign-up and invite acceptance: every number lives in LIMITS, and
// README.md's "Sign-in and abuse limits" section states them. They are counted in the database
// (attemptStore.ts), so every instance sharing it shares them. The API request limits below are
// counted in memory, per process.
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { AppError } from "../shared/errors";
import { sessionRow } from "./auth";
import { clientIp } from "./security";

const MINUTE = 60_000;

export const LIMITS = {
  /** Wrong passwords for one account from one address (IPv6: one /64). */
  loginPerAccountAddress: { max: 5, windowMs: 15 * MINUTE },
  /**
   * Wrong passwords for one account from every address together: the slow-down for a guesser
   * with many addresses. Reaching it locks the account for browsers it has never signed in
   * from; a browser holding the account's device cookie is limited by `loginPerDevice` instead.
   */
  loginPerAccount: { max: 20, windowMs: 15 * MINUTE },
  /** Wrong passwords from one address across all accounts (password spraying). */
  loginPerAddress: { max: 20, windowMs: 15 * MINUTE },
  /** Wrong passwords from one browser holding a valid device cookie for the account. */
  loginPerDevice: { max: 10, windowMs: 15 * MINUTE },
  /** Sign-up attempts (that pass validation) from one address. */
  signupPerAddress: { max: 10, windowMs: 60 * MINUTE },
  /** Invite acceptances, whatever their outcome, from one address. */
  inviteAcceptPerAddress: { max: 20, windowMs: 15 * MINUTE },
} as const;

/** Beyond this many live keys a limiter drops expired ones, then the oldest. */
const MAX_KEYS = 100_000;

type Window = { count: number; resetAt: number };

/** A fixed-window request counter in memory (the API request limits, per process). */
export class AttemptLimiter {
  private windows = new Map<string, Window>();
  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /**
   * Counts one request against `key` when it has a slot: whether it may proceed, the slots
   * left in its window and the milliseconds until that window ends. A refused request is not
   * counted (a client hammering past its limit does not push its own reset further away).
   */
  hit(key: string, now = Date.now()) {
    let w = this.windows.get(key);
    if (w && w.resetAt > now && w.count >= this.max) return { ok: false, remaining: 0, resetMs: w.resetAt - now };
    if (!w || w.resetAt <= now) {
      if (this.windows.size >= MAX_KEYS) this.sweep(now);
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { ok: true, remaining: this.max - w.count, resetMs: w.resetAt - now };
  }

  private sweep(now: number) {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    // Still full (a flood of distinct keys): drop the oldest windows first (Map keeps
    // insertion order). Their owners get fresh windows, which is the price of bounded memory.
    for (const k of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS * 0.9) break;
      this.windows.delete(k);
    }
  }
}

/** The 429 every limit answers with: how long to wait in words and in Retry-After. */
export function tooManyAttempts(what: string, waitMs: number) {
  const minutes = Math.max(1, Math.ceil(waitMs / MINUTE));
  return new AppError("RATE_LIMITED", `${what} Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, undefined, {
    "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))),
  });
}

// ---- Request limits for the API (issue 14): per API key, and per client address for calls
// that carry neither a known key nor a live session. The web app's own requests (a session
// cookie) are not limited: a person's browser makes a handful of calls per screen, and its
// abuse is already bounded by the sign-in limits above (docs/decisions.md).

/** The window API limits count in; API_RATE_LIMIT and API_ANON_RATE_LIMIT are per this window. */
export const API_RATE_WINDOW_S = 60;

/**
 * The fields every limited /api answer carries, from draft-ietf-httpapi-ratelimit-headers-06
 * (the separate fields, which clients and proxies already read; see docs/decisions.md), with
 * what each means: exported for the OpenAPI document.
 */
export const RATE_LIMIT_HEADERS = {
  "RateLimit-Limit": "Requests allowed in the current window (per API key, or per client address without one).",
  "RateLimit-Remaining": "Requests left in the current window.",
  "RateLimit-Reset": "Seconds until the current window ends and the count starts again.",
  "RateLimit-Policy": `The limit and its window in seconds, e.g. "300;w=${API_RATE_WINDOW_S}".`,
} as const;

/** Sent only with a 429: seconds to wait before trying again (the same as RateLimit-Reset). */
export const RETRY_AFTER_HEADER = "Retry-After";

/** What the limits are, in words, for the OpenAPI document and the README. */
export const RATE_LIMIT_DESCRIPTION =
  `Requests with an API key are limited per key (API_RATE_LIMIT a minute, 300 by default); /api requests ` +
  `with neither a key nor a signed-in session are limited per client address (API_ANON_RATE_LIMIT a minute, 120 ` +
  `by default). The web app's own signed-in requests and /api/health are not limited, except the heavy calls (bulk, ` +
  `import, exports, analytics, click CSVs: HEAVY_RATE_LIMIT a minute per user, 120 by default). Every limited response ` +
  `carries RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and RateLimit-Policy; past the limit the answer is ` +
  `429 with code RATE_LIMITED and Retry-After, and the refused request changes nothing.`;

// Monitoring polls health, and the redirect's API form is the redirect path: neither is throttled.
export const UNLIMITED = /^\/api\/(health\/?$|links\/redirect\/)/;

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** Counts requests for one kind of caller and states the count in the RateLimit fields. */
class RequestLimit {
  private counts: AttemptLimiter;
  constructor(
    readonly max: number,
    private who: string,
  ) {
    this.counts = new AttemptLimiter(max, API_RATE_WINDOW_S * 1000);
  }

  /** The fields for this response, or a 429 carrying them when `key` has used its window. */
  check(key: string, now = Date.now()): Record<string, string> {
    const { ok, remaining, resetMs } = this.counts.hit(key, now);
    const headers = {
      "RateLimit-Limit": String(this.max),
      "RateLimit-Remaining": String(remaining),
      "RateLimit-Reset": String(seconds(resetMs)),
      "RateLimit-Policy": `${this.max};w=${API_RATE_WINDOW_S}`,
    };
    if (ok) return headers;
    const wait = seconds(resetMs);
    throw new AppError(
      "RATE_LIMITED",
      `Too many requests ${this.who}: the limit is ${this.max} a minute. Please try again in ${wait} second${wait === 1 ? "" : "s"}.`,
      undefined,
      { ...headers, [RETRY_AFTER_HEADER]: String(wait) },
    );
  }
}

/** The per-key and per-address limits of one app; a limit of 0 is off. */
export function apiRequestLimits(config: Pick<AppContext["config"], "apiRateLimit" | "apiAnonRateLimit">) {
  return {
    perKey: config.apiRateLimit > 0 ? new RequestLimit(config.apiRateLimit, "with this API key") : null,
    perAddress: config.apiAnonRateLimit > 0 ? new RequestLimit(config.apiAnonRateLimit, "from this address") : null,
  };
}

/**
 * Applies the API limits before any route runs (transform: before the sign-in check, so a
 * refused request changes nothing, not even a key's last-used time). `bearerKey` is the auth
 * plugin's own look-up, so the key is read once per request. The redirect fast lane never
 * reaches this, and the redirect's other paths leave at the first test.
 */
export function apiRateLimit(ctx: AppContext, bearerKey: (request: Request) => Promise<{ id: number } | null>) {
  const { perKey, perAddress } = apiRequestLimits(ctx.config);
  const plugin = new Elysia({ name: "api-rate-limit", seed: ctx.instanceId });
  // Both limits off: no hook at all, so no request pays even the path test.
  if (!perKey && !perAddress) return plugin;
  return plugin.onTransform({ as: "global" }, async ({ request, path, server, set }) => {
    if (!path.startsWith("/api/") || UNLIMITED.test(path)) return;
    const withKey = request.headers.has("authorization");
    if (withKey) {
      const key = await bearerKey(request);
      if (key) {
        if (perKey) Object.assign(set.headers, perKey.check(String(key.id)));
        return;
      }
      // A malformed, unknown or revoked key is anonymous here (the sign-in check refuses it
      // next): made-up keys must not each get a fresh count.
    }
    // A live session is the web app (not limited); a junk cookie does not escape the count.
    if (!perAddress || (!withKey && (await sessionRow(ctx, request)) !== null)) return;
    // Null for an in-process request (tests, the CLI): no network client to limit.
    const ip = clientIp(ctx, request, server);
    if (ip !== null) Object.assign(set.headers, perAddress.check(ip));
  });
}

// ---- Heavy calls, per user (issue 21): bulk create, import, exports and analytics cost far
// more than a list or a create, so a signed-in browser (not limited above) and every key of
// one user share one budget for them. Checked before the sign-in check's own work and, for the
// import, before its body is read (bodyLimit's gate below).

/** The operations HEAVY_RATE_LIMIT counts (exact paths; `:id` any one segment). */
export const HEAVY_CALLS = /^\/api\/(links\/(bulk|import|export\.(csv|json))|(links|pic-drift-links)\/[^/]+\/(analytics|clicks\.csv))\/?$/;

/**
 * The per-user limit on HEAVY_CALLS, as a transform hook and as a gate the import's body
 * reader asks before reading a byte. A request is counted once, whichever asks first.
 */
export function heavyCallLimit(ctx: AppContext, bearerKey: (request: Request) => Promise<{ user_id: number } | null>) {
  const max = ctx.config.heavyRateLimit;
  const limit = max > 0 ? new RequestLimit(max, "for bulk, import, export and analytics calls of this account") : null;
  const counted = new WeakMap<Request, AppError | null>();

  /** The signed-in user a request names (key or session), null when none: the auth check refuses it. */
  const userOf = async (request: Request) =>
    request.headers.has("authorization") ? ((await bearerKey(request))?.user_id ?? null) : ((await sessionRow(ctx, request))?.id ?? null);

  /** The 429 for this request when its user has used the minute's heavy calls, else null. */
  async function refusal(request: Request, path: string): Promise<AppError | null> {
    if (!limit || !HEAVY_CALLS.test(path)) return null;
    const seen = counted.get(request);
    if (seen !== undefined) return seen;
    counted.set(request, null);
    const user = await userOf(request);
    if (user === null) return null;
    try {
      limit.check(String(user));
      return null;
    } catch (e) {
      counted.set(request, e as AppError);
      return e as AppError;
    }
  }

  const plugin = new Elysia({ name: "heavy-call-limit", seed: ctx.instanceId });
  return {
    plugin: limit
      ? plugin.onTransform({ as: "global" }, async ({ request, path }) => {
          const e = await refusal(request, path);
          if (e) throw e;
        })
      : plugin,
    /**
     * For a body reader: "anonymous" when the request names no signed-in user (its body is
     * not read; the sign-in check answers 401), the 429 when the user is over the limit, else "read".
     */
    async gate(request: Request, path: string): Promise<"read" | "anonymous" | AppError> {
      if ((await userOf(request)) === null) return "anonymous";
      return (await refusal(request, path)) ?? "read";
    },
  };
}
