import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { AppError } from "../shared/errors";
import { tooManyAttempts } from "../http/rateLimit";
import { attemptStore } from "../http/attemptStore";
import { clientIp } from "../http/security";
import { LoginBody, PublicUser, RegisterBody, SignedIn } from "./schema";
import { Ok, defineOperations } from "../shared/apiOperations";
import { PASSWORD_HASH, hashPassword, needsRehash } from "./password";
import { jsonBody } from "../http/bodyLimit";
import {
  SESSION_COOKIE,
  SESSION_TTL_MS,
  clearSessionCookie,
  hashToken,
  readCookie,
  setSessionCookie,
  newToken,
  setCookie,
  toPublicUser,
  type AuthPlugin,
} from "../http/auth";
import { DAY_MS, isoIn } from "../shared/time";

const LOGIN_FAILED = "Invalid username or password";
// A fixed hash to verify against when the username does not exist, so both failures take
// the same time and give the same answer.
// Hashed off the request thread while the server starts (hashSync held start-up ~80 ms).
const DUMMY_HASH = Bun.password.hash("threadlink-timing-equaliser", PASSWORD_HASH);

/**
 * The device cookie (OWASP "device cookie" lockout): a browser that has signed in to an account
 * keeps a random token; sign-in attempts presenting it for that account are limited per device
 * and skip the account-wide lockout, so hammering an account cannot lock its owner out of
 * browsers they already use. Scoped to the sign-in path, so no other request carries it.
 */
export const DEVICE_COOKIE = "tl_device";
export const DEVICE_TTL_MS = 365 * DAY_MS;
/** Browsers remembered per account; the least recently used beyond this are forgotten. */
export const DEVICES_PER_ACCOUNT = 20;
const DEVICE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const SIGN_IN_LIMITED = "Too many failed sign-in attempts.";

/** `signedOut`: told the id of a session this instance ended (its live streams end at once). */
export function accountRoutes(ctx: AppContext, auth: AuthPlugin, signedOut: (sessionId: string) => void = () => {}) {
  const attempts = attemptStore(ctx.db);
  let staleDevicesSweptAt = 0;

  /** Stores a new session and returns its token (the cookie is set once the write is done). */
  const newSession = async (userId: number) => {
    const token = newToken();
    await ctx.accounts.createSession(hashToken(token), userId, isoIn(SESSION_TTL_MS));
    return token;
  };

  const deviceToken = (request: Request) => {
    const t = readCookie(request, DEVICE_COOKIE);
    return typeof t === "string" && DEVICE_TOKEN.test(t) ? t : null;
  };

  /**
   * Marks this browser as one that signed in to `userId`. The token is replaced at every
   * sign-in (its accounts move to the new one), so a token planted in the browser beforehand,
   * or copied from it, is worth nothing once the owner has signed in.
   */
  const rememberDevice = async (request: Request, set: { headers: Record<string, unknown> }, userId: number) => {
    const old = deviceToken(request);
    const token = newToken();
    await ctx.accounts.rememberDevice(hashToken(token), old === null ? null : hashToken(old), userId, DEVICES_PER_ACCOUNT);
    setCookie(set, DEVICE_COOKIE, token, {
      httpOnly: true,
      sameSite: "strict",
      secure: ctx.config.secureCookies,
      path: "/api/login",
      maxAge: DEVICE_TTL_MS / 1000,
    });
    const now = Date.now();
    // Once a day per instance, with no lock among N of them: one DELETE of devices unused for
    // a year, which two instances may run at once (each row goes once) at no harm.
    if (now - staleDevicesSweptAt > DAY_MS) {
      staleDevicesSweptAt = now;
      await ctx.accounts.deleteStaleDevices(isoIn(-DEVICE_TTL_MS));
    }
  };

  return new Elysia({ prefix: "/api" })
    .use(auth)
    .post(
      "/register",
      async ({ body, set, request, server }) => {
        if (ctx.config.registration === "closed") {
          throw new AppError("FORBIDDEN", "Registration is closed on this server. Ask the administrator for an account.");
        }
        // Counted before any work, whatever the outcome: a name taken or free is also what
        // an address probing for accounts wants to learn.
        const address = clientIp(ctx, request, server);
        const slot = await attempts.take(address === null ? [] : [["signupPerAddress", address]]);
        if ("waitMs" in slot) throw tooManyAttempts("Too many sign-ups from this network.", slot.waitMs);
        const clash = await ctx.accounts.takenConflict(body.username, body.email);
        if (clash) throw clash;
        const hash = await hashPassword(body.password);
        // Account and session commit together: a failed session write must not leave an
        // account the user cannot sign up for again. A sign-up that raced this one to the
        // name gets its CONFLICT from the store.
        const token = newToken();
        const user = await ctx.accounts.createUserWithSession(body.username, hash, body.email, hashToken(token), isoIn(SESSION_TTL_MS));
        setSessionCookie(ctx, set, token);
        await rememberDevice(request, set, user.id);
        set.status = 201;
        return { ok: true, message: "Account created", user: await toPublicUser(ctx, user) };
      },
      { body: jsonBody(RegisterBody) },
    )
    .post(
      "/login",
      async ({ body, set, request, server }) => {
        const address = clientIp(ctx, request, server);
        // No account's name holds U+0000 (the sign-up schema refuses it), and PostgreSQL cannot
        // even compare one: such a name is looked up as nobody, as on SQLite.
        const user = body.username.includes("\u0000") ? null : await ctx.accounts.findByUsername(body.username);
        const device = deviceToken(request);
        const deviceHash = device ? hashToken(device) : null;
        const knownDevice = !!user && deviceHash !== null && (await ctx.accounts.isKnownDevice(deviceHash, user.id, isoIn(-DEVICE_TTL_MS)));
        // Every attempt takes its slots BEFORE the slow hash, all in one transaction, so
        // parallel guesses (on any instance) cannot all pass the check before any is counted.
        // Keys use the submitted name whether or not it exists, so the answers reveal nothing.
        const taken = await attempts.take(
          knownDevice
            ? [["loginPerDevice", `${deviceHash}|${user!.id}`]]
            : address === null
              ? [["loginPerAccount", body.username]]
              : [
                  ["loginPerAccountAddress", `${body.username}|${address}`],
                  ["loginPerAccount", body.username],
                  ["loginPerAddress", address],
                ],
        );
        if ("waitMs" in taken) throw tooManyAttempts(SIGN_IN_LIMITED, taken.waitMs);
        const ok = await Bun.password.verify(body.password, user?.password_hash ?? (await DUMMY_HASH));
        if (!user || !ok) throw new AppError("UNAUTHORIZED", LOGIN_FAILED);
        // A success costs nothing, and the earlier misses from this browser were typos.
        await attempts.refund(taken.slots);
        if (needsRehash(user.password_hash)) await ctx.accounts.setPasswordHash(user.id, await hashPassword(body.password));
        if (address !== null) await attempts.clear(["loginPerAccountAddress", `${body.username}|${address}`]);
        setSessionCookie(ctx, set, await newSession(user.id));
        await rememberDevice(request, set, user.id);
        return { ok: true, message: "Logged in", user: await toPublicUser(ctx, user) };
      },
      { body: jsonBody(LoginBody) },
    )
    .post("/logout", async ({ request, set }) => {
      const token = readCookie(request, SESSION_COOKIE);
      if (token) {
        const sessionId = hashToken(token);
        await ctx.accounts.deleteSession(sessionId);
        signedOut(sessionId);
      }
      clearSessionCookie(ctx, set);
      return { ok: true };
    })
    .get("/user", ({ user }) => toPublicUser(ctx, user), { auth: true });
}

export const accountOperations = defineOperations({ tag: "Account", auth: "none" }, [
  {
    method: "POST",
    path: "/api/register",
    summary: "Create an account",
    description: "Signs the new user in: the answer sets the session cookie. Refused with 403 when the server's registration is closed.",
    body: RegisterBody,
    example: { username: "ada", password: "correct horse battery", email: "ada@example.com" },
    responses: { 201: SignedIn },
    errors: ["CONFLICT", "FORBIDDEN"],
  },
  {
    method: "POST",
    path: "/api/login",
    summary: "Sign in",
    description: "Sets the session cookie. Failed attempts are limited per account, address and browser (429 with Retry-After).",
    body: LoginBody,
    example: { username: "ada", password: "correct horse battery" },
    responses: { 200: SignedIn },
    errors: ["UNAUTHORIZED"],
  },
  { method: "POST", path: "/api/logout", summary: "Sign out", description: "Ends this session and clears its cookie.", responses: { 200: Ok } },
  { method: "GET", path: "/api/user", summary: "The signed-in user", auth: "session", responses: { 200: PublicUser } },
]);
