import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { AppError, conflict } from "../http/errors";
import { FailureLimiter } from "../http/rateLimit";
import { clientIp } from "../http/security";
import { LoginBody, RegisterBody } from "./schema";
import {
  SESSION_COOKIE,
  SESSION_TTL_MS,
  clearSessionCookie,
  hashToken,
  readCookie,
  setSessionCookie,
  newToken,
  toPublicUser,
  type AuthPlugin,
} from "../http/auth";
import { isoIn } from "../shared/time";

const LOGIN_FAILED = "Invalid username or password";
// A fixed hash to verify against when the username does not exist, so both failures take
// the same time and give the same answer.
const DUMMY_HASH = Bun.password.hashSync("threadlink-timing-equaliser", { algorithm: "argon2id" });

export function accountRoutes(ctx: AppContext, auth: AuthPlugin) {
  // Per username: slows guessing one account; per IP: slows spraying many accounts.
  const byUser = new FailureLimiter(5, 15 * 60_000);
  const byIp = new FailureLimiter(20, 15 * 60_000);

  /** Stores a new session and returns its token (the cookie is set once the write is done). */
  const newSession = (userId: number) => {
    const token = newToken();
    ctx.accounts.createSession(hashToken(token), userId, isoIn(SESSION_TTL_MS));
    return token;
  };

  const tooMany = (ms: number) =>
    new AppError(
      "RATE_LIMITED",
      `Too many failed sign-in attempts. Please try again in ${Math.ceil(ms / 60_000)} minute(s).`,
      undefined,
      { "retry-after": String(Math.ceil(ms / 1000)) },
    );

  return new Elysia({ prefix: "/api" })
    .use(auth)
    .post(
      "/register",
      async ({ body, set }) => {
        if (ctx.config.registration === "closed") {
          throw new AppError("FORBIDDEN", "Registration is closed on this server. Ask the administrator for an account.");
        }
        const taken = ctx.accounts.taken(body.username, body.email);
        if (taken.username) throw conflict("That username is already taken", { username: "That username is already taken" });
        if (taken.email) throw conflict("An account with that email already exists", { email: "An account with that email already exists" });
        const hash = await Bun.password.hash(body.password, { algorithm: "argon2id" });
        let user, token;
        try {
          // Account and session commit together: a failed session write must not leave an
          // account the user cannot sign up for again.
          [user, token] = ctx.db.transaction(() => {
            const u = ctx.accounts.createUser(body.username, hash, body.email);
            return [u, newSession(u.id)] as const;
          }).immediate();
        } catch (e) {
          // Two sign-ups racing for one name: the UNIQUE constraint decides.
          if (String(e).includes("UNIQUE")) throw conflict("That username or email is already taken");
          throw e;
        }
        setSessionCookie(ctx, set, token);
        set.status = 201;
        return { ok: true, message: "Account created", user: toPublicUser(ctx, user) };
      },
      { body: RegisterBody },
    )
    .post(
      "/login",
      async ({ body, set, request, server }) => {
        const ip = clientIp(ctx, request, server);
        const wait = Math.max(byUser.blockedFor(body.username), byIp.blockedFor(ip));
        if (wait) throw tooMany(wait);
        const user = ctx.accounts.findByUsername(body.username);
        const ok = await Bun.password.verify(body.password, user?.password_hash ?? DUMMY_HASH);
        if (!user || !ok) {
          byUser.fail(body.username);
          byIp.fail(ip);
          throw new AppError("UNAUTHORIZED", LOGIN_FAILED);
        }
        byUser.clear(body.username);
        setSessionCookie(ctx, set, newSession(user.id));
        return { ok: true, message: "Logged in", user: toPublicUser(ctx, user) };
      },
      { body: LoginBody },
    )
    .post("/logout", ({ request, set }) => {
      const token = readCookie(request, SESSION_COOKIE);
      if (token) ctx.accounts.deleteSession(hashToken(token));
      clearSessionCookie(ctx, set);
      return { ok: true };
    })
    .get("/user", ({ user }) => toPublicUser(ctx, user), { auth: true });
}
