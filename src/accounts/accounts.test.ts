import { describe, expect, test } from "bun:test";
import { HOSTILE, ORIGIN, PASSWORD, setup } from "../test/helpers";
import { hashToken, SESSION_TTL_MS } from "../http/auth";
import { LIMITS } from "../http/rateLimit";

const t = await setup();
const alice = await t.signUp("alice");

type Scenario = { name: string; body?: unknown; raw?: string; headers?: Record<string, string>; status: number; message?: string | RegExp };

const expectError = (r: { status: number; json: any }, s: Scenario) => {
  expect(r.status).toBe(s.status);
  expect(r.json?.error?.code).toBeString();
  if (s.message) expect(r.json.error.message).toMatch(s.message);
};

describe("POST /api/register", () => {
  test("creates the account, starts a session, never returns the hash or token", async () => {
    const r = await t.call("POST", "/api/register", { body: { username: "Bob_1", password: PASSWORD, email: "bob@example.test" } });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ ok: true, message: "Account created", user: { username: "bob_1", email: "bob@example.test", subscriptionType: "free" } });
    const cookie = r.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^tl_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure");
    const token = cookie.split(";")[0]!.split("=")[1]!;
    expect(r.text).not.toContain(token);
    expect(r.text).not.toContain("argon2");
    const row = await t.database.get<{ password_hash: string }>("SELECT password_hash FROM users WHERE username = 'bob_1'");
    expect(row!.password_hash).toStartWith("$argon2id$");
    // Only the hash of the token is stored.
    expect(await t.database.get("SELECT COUNT(*) AS n FROM sessions WHERE id = ?", token)).toEqual({ n: 0 });
    expect(await t.database.get("SELECT COUNT(*) AS n FROM sessions WHERE id = ?", hashToken(token))).toEqual({ n: 1 });
  });

  const invalid: Scenario[] = [
    { name: "missing email", body: { username: "carol", password: PASSWORD }, status: 400, message: "Email is required for registration" },
    { name: "empty email", body: { username: "carol", password: PASSWORD, email: "" }, status: 400, message: "Email is required for registration" },
    { name: "bad email", body: { username: "carol", password: PASSWORD, email: "carol-at-example" }, status: 400, message: "Invalid email format" },
    { name: "missing username", body: { password: PASSWORD, email: "c@example.test" }, status: 400, message: "Username is required" },
    { name: "short username", body: { username: "ab", password: PASSWORD, email: "c@example.test" }, status: 400, message: /3 to 32 characters/ },
    { name: "username with spaces", body: { username: "a b c", password: PASSWORD, email: "c@example.test" }, status: 400, message: /letters, numbers/ },
    { name: "reserved username", body: { username: "Pricing", password: PASSWORD, email: "c@example.test" }, status: 400, message: /reserved/ },
    { name: "reserved chunk- prefix", body: { username: "chunk-abc", password: PASSWORD, email: "c@example.test" }, status: 400, message: /reserved/ },
    { name: "missing password", body: { username: "carol", email: "c@example.test" }, status: 400, message: "Password is required" },
    { name: "short password", body: { username: "carol", password: "1234567", email: "c@example.test" }, status: 400, message: "Password must be at least 8 characters" },
    { name: "duplicate username", body: { username: "ALICE", password: PASSWORD, email: "new@example.test" }, status: 409, message: "That username is already taken" },
    { name: "duplicate email (any case)", body: { username: "carol", password: PASSWORD, email: "ALICE@example.test" }, status: 409, message: "An account with that email already exists" },
    { name: "username as a number", body: { username: 12345, password: PASSWORD, email: "c@example.test" }, status: 400, message: "Username must be text" },
    { name: "password as an object", body: { username: "carol", password: { $gt: "" }, email: "c@example.test" }, status: 400, message: "Password must be text" },
    { name: "body is an array", body: [1, 2, 3], status: 400 },
    { name: "body is null", body: null, status: 400 },
    { name: "malformed JSON", raw: '{"username": "carol",', status: 400, message: "The request body is not valid JSON" },
    { name: "wrong content type", raw: "username=carol", headers: { "content-type": "text/plain" }, status: 415, message: "Content-Type: application/json" },
    { name: "10 kB username", body: { username: HOSTILE.huge, password: PASSWORD, email: "c@example.test" }, status: 400, message: "Username must be at most 32 characters" },
    { name: "HTML in username", body: { username: HOSTILE.script, password: PASSWORD, email: "c@example.test" }, status: 400 },
    { name: "SQL in username", body: { username: HOSTILE.sql, password: PASSWORD, email: "c@example.test" }, status: 400 },
    { name: "emoji username", body: { username: "🧵🧵🧵", password: PASSWORD, email: "c@example.test" }, status: 400 },
    { name: "HTML in email", body: { username: "carol", password: PASSWORD, email: `<img src=x onerror=alert(1)>@x.io` }, status: 400, message: "Invalid email format" },
    { name: "huge password", body: { username: "carol", password: HOSTILE.huge, email: "c@example.test" }, status: 400, message: "Password must be at most 256 characters" },
  ];
  for (const s of invalid) {
    test(`refuses ${s.name} and adds no user`, async () => {
      const before = await t.count("users");
      const r = await t.call("POST", "/api/register", { body: s.body as never, raw: s.raw, headers: s.headers });
      expectError(r, s);
      expect(await t.count("users")).toBe(before);
      expect(r.headers.get("set-cookie")).toBeNull();
    });
  }

  test("emoji and unicode in a password are fine", async () => {
    const r = await t.call("POST", "/api/register", { body: { username: "emoji_pw", password: "🧵🔗✨ naïve café", email: "e@example.test" } });
    expect(r.status).toBe(201);
    const login = await t.call("POST", "/api/login", { body: { username: "emoji_pw", password: "🧵🔗✨ naïve café" } });
    expect(login.status).toBe(200);
  });

  test("REGISTRATION=closed refuses sign-up with a clear message", async () => {
    const closed = await setup({ REGISTRATION: "closed" });
    const r = await closed.call("POST", "/api/register", { body: { username: "dave", password: PASSWORD, email: "d@example.test" } });
    expect(r.status).toBe(403);
    expect(r.json.error.message).toBe("Registration is closed on this server. Ask the administrator for an account.");
    expect(await closed.count("users")).toBe(0);
  });
});

describe("POST /api/login", () => {
  test("signs in with username + password, ignoring the placeholder email", async () => {
    const r = await t.call("POST", "/api/login", { body: { username: "Alice", password: PASSWORD, email: "placeholder@x.invalid" } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, message: "Logged in", user: { username: "alice" } });
    expect(r.headers.get("set-cookie")).toMatch(/^tl_session=/);
  });

  test("wrong username and wrong password give the same answer", async () => {
    const wrongPw = await t.call("POST", "/api/login", { body: { username: "alice", password: "nope-nope" } });
    const noUser = await t.call("POST", "/api/login", { body: { username: "nobody_here", password: "nope-nope" } });
    expect(wrongPw.status).toBe(401);
    expect(noUser.status).toBe(401);
    expect(wrongPw.json).toEqual(noUser.json);
    expect(wrongPw.json.error.message).toBe("Invalid username or password");
    expect(wrongPw.headers.get("set-cookie")).toBeNull();
  });

  const invalid: Scenario[] = [
    { name: "missing username", body: { password: PASSWORD }, status: 400, message: "Username is required" },
    { name: "missing password", body: { username: "alice" }, status: 400, message: "Password is required" },
    { name: "number password", body: { username: "alice", password: 12345678 }, status: 400, message: "Password must be text" },
    { name: "malformed JSON", raw: "{{", status: 400, message: "The request body is not valid JSON" },
    { name: "10 kB username", body: { username: HOSTILE.huge, password: PASSWORD }, status: 400, message: "Username is too long" },
    { name: "SQL-looking username", body: { username: `alice' OR '1'='1`, password: PASSWORD }, status: 401, message: "Invalid username or password" },
    // PostgreSQL cannot hold U+0000 in text: still the same answer as for any unknown name.
    { name: "a username with U+0000", body: { username: "alice\u0000", password: PASSWORD }, status: 401, message: "Invalid username or password" },
  ];
  for (const s of invalid) {
    test(`refuses ${s.name}`, async () => {
      const sessions = await t.count("sessions");
      const r = await t.call("POST", "/api/login", { body: s.body as never, raw: s.raw });
      expectError(r, s);
      expect(await t.count("sessions")).toBe(sessions);
    });
  }

  // Limits per address and per browser are tested through a real socket in limits.test.ts;
  // an in-process call has no address, so only the account-wide ceiling applies here.
  test("wrong passwords stop at the account's ceiling (429), the right one too from a browser it never used", async () => {
    await t.signUp("victim");
    for (let i = 0; i < LIMITS.loginPerAccount.max; i++) {
      const r = await t.call("POST", "/api/login", { body: { username: "victim", password: `guess-${i}-xx` } });
      expect(r.status).toBe(401);
    }
    const blocked = await t.call("POST", "/api/login", { body: { username: "victim", password: PASSWORD } });
    expect(blocked.status).toBe(429);
    expect(blocked.json.error.message).toMatch(/^Too many failed sign-in attempts\. Please try again in \d+ minutes?\.$/);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    // Other accounts are unaffected by one account's lock.
    const other = await t.call("POST", "/api/login", { body: { username: "alice", password: PASSWORD } });
    expect(other.status).toBe(200);
  }, 60_000); // 20 argon2 verifications: slow on a loaded 2-core machine
});

describe("GET /api/user, sessions and logout", () => {
  test("401 without a session, the user with one", async () => {
    const anon = await t.call("GET", "/api/user");
    expect(anon.status).toBe(401);
    expect(anon.json.error.code).toBe("UNAUTHORIZED");
    const me = await t.call("GET", "/api/user", { cookie: alice.cookie });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ username: "alice", subscriptionType: "free", isOwner: true });
    expect(Object.keys(me.json)).not.toContain("password");
    expect(Object.keys(me.json)).not.toContain("passwordHash");
  });

  test("a forged or malformed cookie is just signed out", async () => {
    for (const cookie of ["tl_session=not-a-real-token-at-all-xxxxxxxx", "tl_session=", `tl_session=${"a".repeat(500)}`, "tl_session=%zz%"]) {
      const r = await t.call("GET", "/api/user", { cookie });
      expect(r.status).toBe(401);
    }
  });

  test("an expired session is refused", async () => {
    const { cookie } = await t.signUp("expiring");
    const token = cookie.split("=")[1]!;
    await t.database.run("UPDATE sessions SET expires_at = ? WHERE id = ?", new Date(Date.now() - 1000).toISOString(), hashToken(token));
    expect((await t.call("GET", "/api/user", { cookie })).status).toBe(401);
  });

  test("the session rolls forward once a day has passed", async () => {
    const { cookie } = await t.signUp("rolling");
    const id = hashToken(cookie.split("=")[1]!);
    const soon = new Date(Date.now() + SESSION_TTL_MS / 2).toISOString();
    await t.database.run("UPDATE sessions SET expires_at = ? WHERE id = ?", soon, id);
    const r = await t.call("GET", "/api/user", { cookie });
    expect(r.status).toBe(200);
    expect(r.headers.get("set-cookie")).toMatch(/Max-Age=2592000/);
    const row = await t.database.get<{ expires_at: string }>("SELECT expires_at FROM sessions WHERE id = ?", id);
    expect(Date.parse(row!.expires_at)).toBeGreaterThan(Date.now() + SESSION_TTL_MS - 60_000);
  });

  test("logout deletes the session server-side", async () => {
    const { cookie } = await t.signUp("leaver");
    const r = await t.call("POST", "/api/logout", { cookie });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
    expect(r.headers.get("set-cookie")).toMatch(/^tl_session=; .*Max-Age=0/);
    // Replaying the old cookie no longer works.
    expect((await t.call("GET", "/api/user", { cookie })).status).toBe(401);
  });

  test("expired premium reads as free", async () => {
    const { cookie, user } = await t.signUp("lapsed");
    await t.database.run("UPDATE users SET subscription_type = 'premium', subscription_expires_at = ? WHERE id = ?", new Date(Date.now() - 1000).toISOString(), user.id);
    expect((await t.call("GET", "/api/user", { cookie })).json.subscriptionType).toBe("free");
    await t.database.run("UPDATE users SET subscription_expires_at = ? WHERE id = ?", new Date(Date.now() + 86_400_000).toISOString(), user.id);
    expect((await t.call("GET", "/api/user", { cookie })).json.subscriptionType).toBe("premium");
  });

  test("Secure cookies when PUBLIC_URL is https", async () => {
    const s = await setup({ PUBLIC_URL: "https://links.example.test" });
    const r = await s.call("POST", "/api/register", {
      body: { username: "secure", password: PASSWORD, email: "s@example.test" },
      headers: { host: "links.example.test" },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("set-cookie")).toContain("Secure");
  });
});

describe("Origin checks on state-changing requests", () => {
  const cases = [
    { name: "another site", origin: "https://evil.example", status: 403 },
    { name: "a look-alike of the app", origin: "http://localhost:3000.evil.example", status: 403 },
    { name: "the literal null origin", origin: "null", status: 403 },
    { name: "the app's own origin", origin: ORIGIN, status: 200 },
  ];
  for (const c of cases) {
    test(`login from ${c.name} → ${c.status}`, async () => {
      const r = await t.call("POST", "/api/login", { body: { username: "alice", password: PASSWORD }, headers: { origin: c.origin } });
      expect(r.status).toBe(c.status);
      if (c.status === 403) {
        expect(r.json.error.message).toBe("Cross-site request refused");
        expect(r.headers.get("set-cookie")).toBeNull();
      }
    });
  }

  test("DNS rebinding (Origin and Host both a foreign name) is refused", async () => {
    const before = await t.count("users");
    const r = await t.call("POST", "/api/register", {
      body: { username: "rebind", password: PASSWORD, email: "rebind@example.test" },
      headers: { origin: "http://evil.example", host: "evil.example" },
    });
    expect(r.status).toBe(403);
    expect(await t.count("users")).toBe(before);
  });

  test("loopback access with a matching Origin is allowed (local use)", async () => {
    const r = await t.call("POST", "/api/login", {
      body: { username: "alice", password: PASSWORD },
      headers: { origin: "http://127.0.0.1:3000", host: "127.0.0.1:3000" },
    });
    expect(r.status).toBe(200);
  });

  test("a cross-site register adds nobody", async () => {
    const before = await t.count("users");
    const r = await t.call("POST", "/api/register", {
      body: { username: "csrf_user", password: PASSWORD, email: "csrf@example.test" },
      headers: { origin: "https://evil.example" },
    });
    expect(r.status).toBe(403);
    expect(await t.count("users")).toBe(before);
  });

  test("a cross-site logout keeps the session", async () => {
    const r = await t.call("POST", "/api/logout", { cookie: alice.cookie, headers: { origin: "https://evil.example" } });
    expect(r.status).toBe(403);
    expect((await t.call("GET", "/api/user", { cookie: alice.cookie })).status).toBe(200);
  });
});

describe("health and unknown API paths", () => {
  test("GET /api/health reports the database", async () => {
    const r = await t.call("GET", "/api/health");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: "ok", db: "ok", redirects: "ok" });
    expect(r.json.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("GET /api/health reports a database that does not answer: degraded, still 200 (redirects are served from the map)", async () => {
    const s = await setup();
    await s.database.close();
    const r = await s.call("GET", "/api/health");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: "degraded", db: "unavailable" });
  });

  test("unknown API paths are JSON 404s, not the web app", async () => {
    for (const [m, p] of [["GET", "/api/nope"], ["POST", "/api/nope/deeper"], ["DELETE", "/api/user/1"]] as const) {
      const r = await t.call(m, p);
      expect(r.status).toBe(404);
      expect(r.json.error.code).toBe("NOT_FOUND");
    }
  });

  test("a known API path asked with a method it does not serve is a 405 with Allow; nothing changes", async () => {
    const u = await t.signUp("method-tester");
    const made = await t.call("POST", "/api/links", { cookie: u.cookie, body: { originalUrl: "https://example.com/m", title: "Method" }, headers: { origin: "http://localhost:3000" } });
    expect(made.status).toBe(201);
    const before = await t.database.all("SELECT * FROM short_links ORDER BY id");
    for (const [m, p, allow] of [
      // A link takes GET, PATCH, PUT and DELETE (issue 23), not POST.
      ["POST", `/api/links/${made.json.id}`, "DELETE, GET, HEAD, PATCH, PUT"],
      ["OPTIONS", "/api/links", "GET, HEAD, POST"],
      ["PUT", "/api/health", "GET, HEAD"],
      ["DELETE", "/api/topics", "GET, HEAD, POST"],
    ] as const) {
      const r = await t.call(m, p, { cookie: u.cookie, headers: { origin: "http://localhost:3000" }, body: m === "POST" ? { title: "changed" } : undefined });
      expect(r.status, `${m} ${p}`).toBe(405);
      expect(r.json.error.code).toBe("METHOD_NOT_ALLOWED");
      expect(r.headers.get("allow")).toBe(allow);
    }
    expect(await t.database.all("SELECT * FROM short_links ORDER BY id")).toEqual(before);
  });

  test("GET /api/config exposes names and domains but nothing secret", async () => {
    const r = await t.call("GET", "/api/config");
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ appName: "Threadlink", brandName: "Pic Drift", shortBaseUrl: "http://localhost:3000" });
    expect(r.text).not.toMatch(/password|secret|dataDir/i);
  });
});
