import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { SessionUser, UserRow } from "../accounts/store";
import type { PublicUser } from "../accounts/schema";
import { AppError, forbidden } from "../shared/errors";
import { apiKeysStore, type ApiKeyRow } from "../apikeys/store";
import { KEY_MSG, isKeyShaped, keyInQuery, keyRefusal, type KeyReachOf } from "../apikeys/access";
import { DAY_MS, isoIn } from "../shared/time";

export const SESSION_COOKIE = "tl_session";
export const SESSION_TTL_MS = 30 * DAY_MS;
// Rolling expiry is written at most once a day per session, not on every request.
const EXTEND_AFTER_MS = DAY_MS;
/** How stale an API key's last-used time may get before a request writes it again. */
export const LAST_USED_EVERY_MS = 60_000;

export const hashToken = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");

export function newToken() {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

export function cookieOptions(ctx: AppContext) {
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    secure: ctx.config.secureCookies,
    path: "/",
    maxAge: SESSION_TTL_MS / 1000,
  };
}

/** Premium that has run out reads as free everywhere. */
export function effectivePlan(u: Pick<UserRow, "subscription_type" | "subscription_expires_at">, now = Date.now()) {
  if (u.subscription_type !== "premium") return "free" as const;
  if (u.subscription_expires_at && Date.parse(u.subscription_expires_at) <= now) return "free" as const;
  return "premium" as const;
}

export async function ownerId(ctx: AppContext) {
  if (ctx.config.ownerUsername) return (await ctx.accounts.findByUsername(ctx.config.ownerUsername))?.id ?? null;
  return ctx.accounts.firstUserId();
}

export async function toPublicUser(ctx: AppContext, u: UserRow): Promise<PublicUser> {
  const plan = effectivePlan(u);
  return {
    id: u.id,
    username: u.username,
    email: u.email,
    subscriptionType: plan,
    subscriptionExpiresAt: plan === "premium" ? u.subscription_expires_at : null,
    isOwner: (await ownerId(ctx)) === u.id,
    createdAt: u.created_at,
    updatedAt: u.updated_at,
  };
}

type SetLike = { headers: Record<string, unknown> };

// Cookies are read from and written to the headers directly rather than through Elysia's
// cookie jar, whose parsing is switched on by reading handler source code and so is not
// reliable once the binary is minified.
export function readCookie(request: Request, name: string) {
  const header = request.headers.get("cookie");
  if (!header) return null;
  try {
    return new Bun.CookieMap(header).get(name);
  } catch {
    return null;
  }
}

export function setCookie(set: SetLike, name: string, value: string, options: Bun.CookieInit | object) {
  const line = new Bun.Cookie(name, value, options as Bun.CookieInit).serialize();
  const prev = set.headers["set-cookie"];
  set.headers["set-cookie"] = prev === undefined ? line : ([] as unknown[]).concat(prev, line);
}

export function setSessionCookie(ctx: AppContext, set: SetLike, token: string) {
  setCookie(set, SESSION_COOKIE, token, cookieOptions(ctx));
}

export function clearSessionCookie(ctx: AppContext, set: SetLike) {
  setCookie(set, SESSION_COOKIE, "", { ...cookieOptions(ctx), maxAge: 0 });
}

/** The session cookie's token when it has a token's length (else nothing to look up). */
function sessionToken(request: Request) {
  const token = readCookie(request, SESSION_COOKIE);
  return typeof token === "string" && token.length >= 20 && token.length <= 100 ? token : null;
}

// The rate limit (before the route) and the auth macro both need the session: read once.
const sessionRows = new WeakMap<Request, Promise<SessionUser | null>>();

/** The live session the request's cookie names, with its user; null when there is none. */
export function sessionRow(ctx: AppContext, request: Request): Promise<SessionUser | null> {
  let row = sessionRows.get(request);
  if (row !== undefined) return row;
  const token = sessionToken(request);
  row = token === null ? Promise.resolve(null) : ctx.accounts.sessionUser(hashToken(token));
  sessionRows.set(request, row);
  return row;
}

/** Reads the session cookie; extends a rolling session; null when signed out. */
export async function currentUser(ctx: AppContext, request: Request, set: SetLike): Promise<(UserRow & { sessionId: string }) | null> {
  const row = await sessionRow(ctx, request);
  const token = sessionToken(request);
  if (!row || token === null) return null;
  if (Date.parse(row.session_expires_at) - Date.now() < SESSION_TTL_MS - EXTEND_AFTER_MS) {
    await ctx.accounts.extendSession(row.session_id, isoIn(SESSION_TTL_MS));
    setSessionCookie(ctx, set, token);
  }
  const { session_id, session_expires_at: _, ...user } = row;
  return { ...user, sessionId: session_id };
}

// One or more spaces after the scheme (RFC 9110 §11.4: 1*SP), in any case.
const BEARER = /^Bearer +([^\s]+)$/i;

/**
 * The API key a request's `Authorization: Bearer` names: null when there is none, or it is
 * malformed, unknown or revoked. Looked up once per request: the rate limit (before the route)
 * and the auth macro both ask. One per app (createApp), since it holds that app's statements.
 */
export function bearerKeys(ctx: AppContext) {
  const keys = apiKeysStore(ctx.db);
  const seen = new WeakMap<Request, Promise<ApiKeyRow | null>>();
  return (request: Request): Promise<ApiKeyRow | null> => {
    let key = seen.get(request);
    if (key !== undefined) return key;
    const m = BEARER.exec((request.headers.get("authorization") ?? "").trim());
    key = m && isKeyShaped(m[1]!) ? keys.byHash(hashToken(m[1]!)) : Promise.resolve(null);
    seen.set(request, key);
    return key;
  };
}

/**
 * `{ auth: true }` on a route supplies `user` (the signed-in user row) or answers 401.
 * Use the same instance everywhere: createApp builds one per context.
 *
 * The check runs in the transform phase, before the body is validated: a caller who is not
 * signed in learns that and nothing about what its body should have been (and the schema's
 * work is not spent on it). resolve, which runs after validation, hands the user over.
 *
 * A request with `Authorization: Bearer <key>` is an API key's (issue 14): the key alone
 * decides, with that user's rights narrowed by its scope (src/apikeys/access.ts); a cookie
 * sent beside it is not looked at. `sessionId` is empty for a key: it has no session. What a
 * key reaches is looked up by the matched route (`reachOf`, built from the operations' own
 * declarations in createApp), not by matching the path again.
 */
export function authPlugin(ctx: AppContext, bearerKey: ReturnType<typeof bearerKeys>, reachOf: KeyReachOf) {
  const signedIn = new WeakMap<Request, NonNullable<Awaited<ReturnType<typeof currentUser>>>>();
  const keys = apiKeysStore(ctx.db);

  async function keyUser(request: Request, route: string, header: string) {
    const m = BEARER.exec(header.trim());
    if (!m || !isKeyShaped(m[1]!)) throw new AppError("UNAUTHORIZED", KEY_MSG.malformed);
    const key = await bearerKey(request);
    const user = key && (await ctx.accounts.findById(key.user_id));
    if (!key || !user) throw new AppError("UNAUTHORIZED", KEY_MSG.unknown);
    const refusal = keyRefusal(key, reachOf(request.method, route), request.method);
    if (refusal) throw forbidden(refusal);
    // Written at most once a minute per key: a script's burst is not a burst of writes.
    const now = Date.now();
    if (!key.last_used_at || now - Date.parse(key.last_used_at) >= LAST_USED_EVERY_MS) await keys.touch(key.id, new Date(now).toISOString());
    return { ...user, sessionId: "" };
  }

  return new Elysia({ name: "auth", seed: ctx.instanceId }).macro({
    auth: {
      async transform({ request, route, set }) {
        // Refused even with a valid session: an address with a key in it is already in logs.
        if (keyInQuery(new URL(request.url))) throw new AppError("UNAUTHORIZED", KEY_MSG.inQuery);
        const header = request.headers.get("authorization");
        const user = header !== null ? await keyUser(request, route, header) : await currentUser(ctx, request, set);
        if (!user) throw new AppError("UNAUTHORIZED", "Please sign in to continue");
        signedIn.set(request, user);
      },
      resolve({ request }) {
        const user = signedIn.get(request);
        if (!user) throw new AppError("UNAUTHORIZED", "Please sign in to continue");
        return { user };
      },
    },
  });
}

export type AuthPlugin = ReturnType<typeof authPlugin>;
