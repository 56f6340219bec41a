// Sign-in, sign-up and invite limits through a real listening socket: the peer is 127.0.0.1
// (a trusted proxy by default), so X-Forwarded-For plays the part of many client addresses.
import { describe, expect, test } from "bun:test";
import { PASSWORD, setup } from "../test/helpers";
import { LIMITS } from "../http/rateLimit";
import { hashToken } from "../http/auth";
import { DEVICE_COOKIE } from "./routes";

async function listening(env: Record<string, string> = {}) {
  const t = await setup(env);
  const server = t.app.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${server.server!.port}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const login = (username: string, password: string, headers: Record<string, string> = {}) => post("/api/login", { username, password }, headers);
  return { t, base, post, login, stop: () => server.stop(true) };
}

const cookieOf = (r: Response, name: string) =>
  r.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(";")[0];
const statuses = (rs: Response[]) => {
  const by: Record<number, number> = {};
  for (const r of rs) by[r.status] = (by[r.status] ?? 0) + 1;
  return by;
};
const from = (ip: string) => ({ "x-forwarded-for": ip });

describe("sign-in attempts are counted before the password is checked", () => {
  test("60 parallel wrong passwords for one account from one address: only the limit is checked, the rest get 429", async () => {
    const s = await listening();
    await s.t.signUp("target");
    const rs = await Promise.all(Array.from({ length: 60 }, (_, i) => s.login("target", `wrong-${i}-guess`, from("198.51.100.7"))));
    expect(statuses(rs)).toEqual({ 401: LIMITS.loginPerAccountAddress.max, 429: 60 - LIMITS.loginPerAccountAddress.max });
    const limited = rs.find((r) => r.status === 429)!;
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(LIMITS.loginPerAccountAddress.windowMs / 1000);
    expect((await limited.json()).error).toMatchObject({ code: "RATE_LIMITED", message: expect.stringMatching(/^Too many failed sign-in attempts\. Please try again in 15 minutes\.$/) });
    // The right password from that address waits too: nothing told it apart from the guesses.
    expect((await s.login("target", PASSWORD, from("198.51.100.7"))).status).toBe(429);
    // Another address is not held back by this one's misses.
    expect((await s.login("target", PASSWORD, from("198.51.100.8"))).status).toBe(200);
    s.stop();
  }, 60_000);

  test("60 parallel guesses from 60 addresses: at most the per-account ceiling is checked", async () => {
    const s = await listening();
    await s.t.signUp("spread");
    const rs = await Promise.all(Array.from({ length: 60 }, (_, i) => s.login("spread", `wrong-${i}-guess`, from(`203.0.113.${i + 1}`))));
    expect(statuses(rs)).toEqual({ 401: LIMITS.loginPerAccount.max, 429: 60 - LIMITS.loginPerAccount.max });
    s.stop();
  }, 60_000);

  test("the owner's browser keeps signing in while the account is attacked from other addresses", async () => {
    const s = await listening();
    await s.t.signUp("owner");
    // The owner signed in from this browser before: it holds the device cookie.
    const first = await s.login("owner", PASSWORD, from("192.0.2.10"));
    expect(first.status).toBe(200);
    const device = cookieOf(first, DEVICE_COOKIE)!;
    expect(device).toMatch(new RegExp(`^${DEVICE_COOKIE}=[A-Za-z0-9_-]{43}$`));
    const line = first.headers.getSetCookie().find((c) => c.startsWith(`${DEVICE_COOKIE}=`))!;
    expect(line).toContain("HttpOnly");
    expect(line).toContain("Path=/api/login");
    // Only its hash is stored.
    const token = device.split("=")[1]!;
    expect(await s.t.database.get("SELECT COUNT(*) AS n FROM login_devices WHERE token_hash = ?", hashToken(token))).toEqual({ n: 1 });
    expect(JSON.stringify(await s.t.database.all("SELECT * FROM login_devices"))).not.toContain(token);

    // The attack: 40 wrong passwords, from 40 addresses, 10 at a time.
    const attack: Response[] = [];
    for (let round = 0; round < 4; round++) {
      attack.push(...(await Promise.all(Array.from({ length: 10 }, (_, i) => s.login("owner", `guess-${round}-${i}`, from(`203.0.113.${round * 10 + i + 1}`))))));
    }
    expect(statuses(attack)).toEqual({ 401: LIMITS.loginPerAccount.max, 429: 40 - LIMITS.loginPerAccount.max });
    // A browser the account has never used is locked out, even with the right password...
    expect((await s.login("owner", PASSWORD, from("192.0.2.99"))).status).toBe(429);
    // ...but the owner's own browser, from the same address as before or a new one, gets in.
    const again = await s.login("owner", PASSWORD, { ...from("192.0.2.10"), cookie: device });
    expect(again.status).toBe(200);
    // Each sign-in replaces the browser's token: the old one (planted or copied) is now worthless.
    const rotated = cookieOf(again, DEVICE_COOKIE)!;
    expect(rotated).not.toBe(device);
    expect((await s.login("owner", PASSWORD, { ...from("198.51.100.50"), cookie: rotated })).status).toBe(200);
    expect((await s.login("owner", PASSWORD, { ...from("198.51.100.51"), cookie: device })).status).toBe(429);
    // A device cookie earned on another account buys nothing here.
    await s.t.signUp("mallory");
    const mal = await s.login("mallory", PASSWORD, from("203.0.113.200"));
    const malDevice = cookieOf(mal, DEVICE_COOKIE)!;
    expect((await s.login("owner", PASSWORD, { ...from("203.0.113.200"), cookie: malDevice })).status).toBe(429);
    // A forged cookie neither.
    expect((await s.login("owner", PASSWORD, { ...from("203.0.113.201"), cookie: `${DEVICE_COOKIE}=${"A".repeat(43)}` })).status).toBe(429);
    s.stop();
  }, 60_000);

  test("one browser signed in to two accounts stays known to both as its token is replaced", async () => {
    const s = await listening();
    await s.t.signUp("first");
    await s.t.signUp("second");
    let cookie = cookieOf(await s.login("first", PASSWORD, from("192.0.2.30")), DEVICE_COOKIE)!;
    cookie = cookieOf(await s.login("second", PASSWORD, { ...from("192.0.2.30"), cookie }), DEVICE_COOKIE)!;
    // The first account, whose token was replaced when the browser signed in to the second,
    // is locked for strangers...
    await Promise.all(Array.from({ length: LIMITS.loginPerAccount.max }, (_, i) => s.login("first", `guess-${i}-xx`, from(`203.0.113.${i + 1}`))));
    expect((await s.login("first", PASSWORD, from("203.0.113.250"))).status).toBe(429);
    // ...and still open to this browser, as is the second.
    const a = await s.login("first", PASSWORD, { ...from("192.0.2.30"), cookie });
    expect(a.status).toBe(200);
    cookie = cookieOf(a, DEVICE_COOKIE)!;
    expect((await s.login("second", PASSWORD, { ...from("192.0.2.30"), cookie })).status).toBe(200);
    s.stop();
  }, 60_000);

  test("a known browser has its own limit: wrong passwords from it stop after loginPerDevice", async () => {
    const s = await listening();
    await s.t.signUp("devlimit");
    const device = cookieOf(await s.login("devlimit", PASSWORD, from("192.0.2.20")), DEVICE_COOKIE)!;
    const rs = await Promise.all(Array.from({ length: 25 }, (_, i) => s.login("devlimit", `wrong-${i}-guess`, { ...from(`198.51.100.${i + 1}`), cookie: device })));
    expect(statuses(rs)).toEqual({ 401: LIMITS.loginPerDevice.max, 429: 25 - LIMITS.loginPerDevice.max });
    s.stop();
  }, 60_000);
});

describe("the client address behind proxies", () => {
  test("a forged leftmost X-Forwarded-For entry does not buy a new address", async () => {
    const s = await listening();
    // Password spraying: a new account name each time, a new forged address each time; the
    // proxy-appended (rightmost) address is the same, so the per-address limit holds.
    const rs: Response[] = [];
    for (let i = 0; i < LIMITS.loginPerAddress.max + 3; i++) rs.push(await s.login(`spray${i}`, "wrong-password", from(`10.${i}.0.1, 198.51.100.77`)));
    expect(rs.slice(0, LIMITS.loginPerAddress.max).every((r) => r.status === 401)).toBe(true);
    expect(rs.slice(LIMITS.loginPerAddress.max).map((r) => r.status)).toEqual([429, 429, 429]);
    // The next address along is not affected.
    expect((await s.login("spray99", "wrong-password", from("198.51.100.78"))).status).toBe(401);
    s.stop();
  }, 60_000);

  test("from a peer that is not a trusted proxy, X-Forwarded-For is ignored entirely", async () => {
    const s = await listening({ TRUSTED_PROXIES: "10.9.9.9" });
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => s.login(`nobody${i}`, "wrong-password", from(`203.0.113.${i + 1}`))));
    // Every attempt is 127.0.0.1's, whatever it claimed.
    expect(statuses(rs)).toEqual({ 401: LIMITS.loginPerAddress.max, 429: 30 - LIMITS.loginPerAddress.max });
    s.stop();
  }, 60_000);
});

describe("sign-up and invite acceptance are limited per address", () => {
  test("parallel sign-ups from one address: at most the limit succeed; another address still can", async () => {
    const s = await listening();
    const n = LIMITS.signupPerAddress.max + 5;
    const rs = await Promise.all(
      Array.from({ length: n }, (_, i) => s.post("/api/register", { username: `bulk${i}`, password: PASSWORD, email: `bulk${i}@example.test` }, from("198.51.100.9"))),
    );
    expect(statuses(rs)).toEqual({ 201: LIMITS.signupPerAddress.max, 429: 5 });
    const limited = rs.find((r) => r.status === 429)!;
    expect((await limited.json()).error.message).toBe("Too many sign-ups from this network. Please try again in 60 minutes.");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(3000);
    expect(await s.t.count("users")).toBe(LIMITS.signupPerAddress.max);
    const other = await s.post("/api/register", { username: "elsewhere", password: PASSWORD, email: "elsewhere@example.test" }, from("198.51.100.10"));
    expect(other.status).toBe(201);
    s.stop();
  }, 60_000);

  test("IPv6 addresses are counted per /64", async () => {
    const s = await listening();
    const rs = await Promise.all(
      Array.from({ length: LIMITS.signupPerAddress.max + 2 }, (_, i) =>
        s.post("/api/register", { username: `six${i}`, password: PASSWORD, email: `six${i}@example.test` }, from(`2001:db8:1:2::${(i + 1).toString(16)}`)),
      ),
    );
    expect(statuses(rs)).toEqual({ 201: LIMITS.signupPerAddress.max, 429: 2 });
    s.stop();
  }, 60_000);

  test("invite acceptances from one address stop at the limit, whatever their outcome", async () => {
    const s = await listening();
    const bob = await s.t.signUp("bob");
    const codes = Array.from({ length: LIMITS.inviteAcceptPerAddress.max + 2 }, (_, i) => `${String(i).padStart(2, "0")}${"x".repeat(20)}`);
    const rs: Response[] = [];
    for (const code of codes) rs.push(await s.post(`/api/invites/${code}/accept`, {}, { ...from("198.51.100.11"), cookie: bob.cookie }));
    expect(statuses(rs)).toEqual({ 404: LIMITS.inviteAcceptPerAddress.max, 429: 2 });
    // A real invite from another address still works.
    const alice = await s.t.signUp("alice");
    const inv = await s.t.call("POST", "/api/invites", { cookie: alice.cookie });
    const ok = await s.post(`/api/invites/${inv.json.code}/accept`, {}, { ...from("198.51.100.12"), cookie: bob.cookie });
    expect(ok.status).toBe(200);
    s.stop();
  }, 60_000);
});

describe("password hashing cost", () => {
  test("new hashes use argon2id at OWASP's floor; an older, costlier hash still signs in and is replaced", async () => {
    const s = await listening();
    const fresh = await s.t.signUp("newhash");
    const stored = async () => (await s.t.database.get<{ h: string }>("SELECT password_hash AS h FROM users WHERE id = ?", fresh.user.id))!.h;
    expect(await stored()).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
    // An account made before this change: Bun's default parameters (m = 64 MiB).
    const old = await Bun.password.hash(PASSWORD, { algorithm: "argon2id" });
    expect(old).toStartWith("$argon2id$v=19$m=65536,t=2,p=1$");
    await s.t.database.run("UPDATE users SET password_hash = ? WHERE id = ?", old, fresh.user.id);
    expect((await s.login("newhash", "wrong-password", from("192.0.2.60"))).status).toBe(401);
    expect(await stored()).toBe(old);
    expect((await s.login("newhash", PASSWORD, from("192.0.2.60"))).status).toBe(200);
    const upgraded = await stored();
    expect(upgraded).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
    expect(await Bun.password.verify(PASSWORD, upgraded)).toBe(true);
    // The session made by sign-up survives the upgrade (same password, new parameters).
    expect((await s.t.call("GET", "/api/user", { cookie: fresh.cookie })).status).toBe(200);
    s.stop();
  }, 60_000);
});
