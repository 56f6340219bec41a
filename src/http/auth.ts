import { Elysia } from "elysia";
import type { AppContext } from "../context";
import type { UserRow } from "../accounts/store";
import type { PublicUser } from "../accounts/schema";
import { AppError } from "./errors";
import { DAY_MS, isoIn } from "../shared/time";

export const SESSION_COOKIE = "tl_session";
export const SESSION_TTL_MS = 30 * DAY_MS;
// Rolling expiry is written at most once a day per session, not on every request.
const EXTEND_AFTER_MS = DAY_MS;

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

export function ownerId(ctx: AppContext) {
  if (ctx.config.ownerUsername) return ctx.accounts.findByUsername(ctx.config.ownerUsername)?.id ?? null;
  return ctx.accounts.firstUserId();
}

export function toPublicUser(ctx: AppContext, u: UserRow): PublicUser {
  const plan = effectivePlan(u);
  return {
    id: u.id,
    username: u.username,
    email: u.email,
    subscriptionType: plan,
    subscriptionExpiresAt: plan === "premium" ? u.subscription_expires_at : null,
    isOwner: ownerId(ctx) === u.id,
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

/** Reads the session cookie; extends a rolling session; null when signed out. */
export function currentUser(ctx: AppContext, request: Request, set: SetLike): (UserRow & { sessionId: string }) | null {
  const token = readCookie(request, SESSION_COOKIE);
  if (typeof token !== "string" || token.length < 20 || token.length > 100) return null;
  const row = ctx.accounts.sessionUser(hashToken(token));
  if (!row) return null;
  if (Date.parse(row.session_expires_at) - Date.now() < SESSION_TTL_MS - EXTEND_AFTER_MS) {
    ctx.accounts.extendSession(row.session_id, isoIn(SESSION_TTL_MS));
    setSessionCookie(ctx, set, token);
  }
  const { session_id, session_expires_at: _, ...user } = row;
  return { ...user, sessionId: session_id };
}

/**
 * `{ auth: true }` on a route supplies `user` (the signed-in user row) or answers 401.
 * Use the same instance everywhere: createApp builds one per context.
 *
 * The check runs in the transform phase, before the body is validated: a caller who is not
 * signed in learns that and nothing about what its body should have been (and the schema's
 * work is not spent on it). resolve, which runs after validation, hands the user over.
 */
export function authPlugin(ctx: AppContext) {
  const signedIn = new WeakMap<Request, NonNullable<ReturnType<typeof currentUser>>>();
  return new Elysia({ name: "auth", seed: ctx.instanceId }).macro({
    auth: {
      transform({ request, set }) {
        const user = currentUser(ctx, request, set);
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
