// threadlink user create|set-plan|reset-password, against the same database the app serves
// (SQLite, or PostgreSQL with TEST_BACKEND=postgres: the command opens it from DATABASE_URL as
// the binary does). The password comes from THREADLINK_PASSWORD, as in a script.
import { afterEach, describe, expect, test } from "bun:test";
import { PASSWORD, setup } from "../test/helpers";
import { apiKeyCommand } from "./apikey";
import { userCommand } from "./user";

const t = await setup();
const NEW_PASSWORD = "another long passphrase";
const login = (username: string, password: string) => t.call("POST", "/api/login", { body: { username, password } });
const withPassword = async <T>(password: string, fn: () => Promise<T>) => {
  process.env.THREADLINK_PASSWORD = password;
  try {
    return await fn();
  } finally {
    delete process.env.THREADLINK_PASSWORD;
  }
};
afterEach(() => {
  delete process.env.THREADLINK_PASSWORD;
});

describe("threadlink user", () => {
  test("create makes an account that signs in on the app", async () => {
    const out = await withPassword(PASSWORD, () => userCommand(t.config, ["create", "Erin", "erin@example.test"]));
    const row = await t.database.get<{ id: number; username: string; email: string; subscription_type: string }>("SELECT id, username, email, subscription_type FROM users WHERE username = ?", "erin");
    expect(row).toMatchObject({ username: "erin", email: "erin@example.test", subscription_type: "free" });
    expect(out).toBe(`Created user erin (id ${row!.id})`);
    expect((await login("erin", PASSWORD)).status).toBe(200);
  });

  test("set-plan gives premium for a number of days, and back to free", async () => {
    const before = Date.now();
    const out = await userCommand(t.config, ["set-plan", "erin", "premium", "30"]);
    const row = await t.database.get<{ subscription_type: string; subscription_expires_at: string | null }>("SELECT subscription_type, subscription_expires_at FROM users WHERE username = ?", "erin");
    expect(row!.subscription_type).toBe("premium");
    const expires = Date.parse(row!.subscription_expires_at!);
    expect(expires - before).toBeGreaterThanOrEqual(30 * 86_400_000 - 1000);
    expect(expires - before).toBeLessThan(30 * 86_400_000 + 60_000);
    expect(out).toBe(`erin is now on the premium plan until ${row!.subscription_expires_at}`);
    expect(await userCommand(t.config, ["set-plan", "erin", "free"])).toBe("erin is now on the free plan");
    expect(await t.database.get("SELECT subscription_type, subscription_expires_at FROM users WHERE username = ?", "erin")).toEqual({
      subscription_type: "free",
      subscription_expires_at: null,
    });
  });

  test("reset-password changes the password and signs out every session", async () => {
    const session = (await login("erin", PASSWORD)).headers.get("set-cookie")!.split(";")[0]!;
    expect((await t.call("GET", "/api/user", { cookie: session })).status).toBe(200);
    expect(await withPassword(NEW_PASSWORD, () => userCommand(t.config, ["reset-password", "erin"]))).toBe(
      "Password changed for erin; their sessions were signed out and 0 API keys were revoked",
    );
    expect((await t.call("GET", "/api/user", { cookie: session })).status).toBe(401);
    expect((await login("erin", PASSWORD)).status).toBe(401);
    expect((await login("erin", NEW_PASSWORD)).status).toBe(200);
  });

  test("reset-password revokes the user's API keys (not another user's); --keep-keys keeps them", async () => {
    const mint = async (user: string) => (await apiKeyCommand(t.config, ["create", user, "bot", "--scope", "read-write"])).split("\n").at(-1)!;
    const withKey = (key: string) => t.call("POST", "/api/links", { body: { originalUrl: "https://example.com/", title: "by key" }, headers: { authorization: `Bearer ${key}` } });
    await t.signUp("gina");
    const [first, second, other] = [await mint("erin"), await mint("erin"), await mint("gina")];
    expect((await withKey(first)).status).toBe(201);
    expect(await withPassword(PASSWORD, () => userCommand(t.config, ["reset-password", "erin"]))).toBe(
      "Password changed for erin; their sessions were signed out and 2 API keys were revoked",
    );
    expect((await withKey(first)).status).toBe(401);
    expect((await withKey(second)).status).toBe(401);
    expect((await withKey(other)).status).toBe(201);
    const kept = await mint("erin");
    expect(await withPassword(NEW_PASSWORD, () => userCommand(t.config, ["reset-password", "erin", "--keep-keys"]))).toBe(
      "Password changed for erin; their sessions were signed out and their API keys were kept",
    );
    expect((await withKey(kept)).status).toBe(201);
    await expect(withPassword(NEW_PASSWORD, () => userCommand(t.config, ["reset-password", "erin", "--keep-all"]))).rejects.toThrow(/Unknown option --keep-all/);
    expect((await withKey(kept)).status).toBe(201);
  });

  const refused: { name: string; args: string[]; password?: string; message: RegExp }[] = [
    { name: "a taken username", args: ["create", "erin", "other@example.test"], password: PASSWORD, message: /^That username is already taken$/ },
    { name: "a taken e-mail", args: ["create", "frank", "ERIN@example.test"], password: PASSWORD, message: /^An account with that email already exists$/ },
    { name: "an invalid username", args: ["create", "a b", "ab@example.test"], password: PASSWORD, message: /^Username must be 3 to 32 characters: letters, numbers, '-' or '_'$/ },
    { name: "an invalid e-mail", args: ["create", "frank", "not-an-address"], password: PASSWORD, message: /^Invalid email format$/ },
    { name: "a short password", args: ["create", "frank", "frank@example.test"], password: "short", message: /^Password must be at least 8 characters$/ },
    { name: "an unknown user's plan", args: ["set-plan", "nobody", "premium"], message: /No user named nobody/ },
    { name: "an unknown plan", args: ["set-plan", "erin", "gold"], message: /Plan must be free or premium/ },
    { name: "days that are not a whole number", args: ["set-plan", "erin", "premium", "1.5"], message: /Days must be a whole number of at least 1/ },
    { name: "an unknown user's password", args: ["reset-password", "nobody"], password: NEW_PASSWORD, message: /No user named nobody/ },
    { name: "an unknown subcommand", args: ["delete", "erin"], message: /Usage/ },
  ];
  for (const r of refused) {
    test(`refuses ${r.name}, and changes nothing`, async () => {
      const users = await t.database.all("SELECT * FROM users ORDER BY id");
      await expect(withPassword(r.password ?? PASSWORD, () => userCommand(t.config, r.args))).rejects.toThrow(r.message);
      expect(await t.database.all("SELECT * FROM users ORDER BY id")).toEqual(users);
    });
  }
});
