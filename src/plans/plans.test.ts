import { describe, expect, test } from "bun:test";
import { onPostgres, setup, testCluster } from "../test/helpers";

// Each test sets up its own app; on PostgreSQL the cluster starts before them (a few seconds),
// not inside the first test's time limit.
if (onPostgres) await testCluster();

describe("POST /api/subscription/upgrade", () => {
  test("sets premium for 30 days and unlocks emoji and topics beyond the free limit", async () => {
    const t = await setup({ FREE_TOPIC_LIMIT: "1" });
    const u = await t.signUp("upgrader");
    await t.call("POST", "/api/topics", { cookie: u.cookie, body: { name: "First" } });
    expect((await t.call("POST", "/api/topics", { cookie: u.cookie, body: { name: "🚀 Second" } })).status).toBe(403);

    const r = await t.call("POST", "/api/subscription/upgrade", { cookie: u.cookie });
    expect(r.status).toBe(200);
    expect(r.json.user.subscriptionType).toBe("premium");
    const days = (Date.parse(r.json.user.subscriptionExpiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThanOrEqual(30);
    expect((await t.call("GET", "/api/user", { cookie: u.cookie })).json.subscriptionType).toBe("premium");
    expect((await t.call("POST", "/api/topics", { cookie: u.cookie, body: { name: "🚀 Second" } })).status).toBe(201);

    // Renewing while premium adds 30 days to the current end.
    const again = await t.call("POST", "/api/subscription/upgrade", { cookie: u.cookie });
    expect(Date.parse(again.json.user.subscriptionExpiresAt) - Date.parse(r.json.user.subscriptionExpiresAt)).toBe(30 * 86_400_000);
  });

  test("an expired premium reads as free and upgrading counts from now", async () => {
    const t = await setup();
    const u = await t.signUp("lapsed");
    await t.ctx.accounts.setPlan(u.user.id, "premium", new Date(Date.now() - 86_400_000).toISOString());
    expect((await t.call("GET", "/api/user", { cookie: u.cookie })).json).toMatchObject({ subscriptionType: "free", subscriptionExpiresAt: null });
    const r = await t.call("POST", "/api/subscription/upgrade", { cookie: u.cookie });
    const days = (Date.parse(r.json.user.subscriptionExpiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
  });

  test("ALLOW_SELF_UPGRADE=false refuses with 403 and changes nothing", async () => {
    const t = await setup({ ALLOW_SELF_UPGRADE: "false" });
    const u = await t.signUp("nope");
    const r = await t.call("POST", "/api/subscription/upgrade", { cookie: u.cookie });
    expect(r.status).toBe(403);
    expect(r.json.error.message).toBe("Upgrades are managed by the administrator");
    expect(await t.database.get("SELECT subscription_type FROM users WHERE id = ?", u.user.id)).toEqual({ subscription_type: "free" });
  });

  test("signed out is 401; a body is ignored", async () => {
    const t = await setup();
    expect((await t.call("POST", "/api/subscription/upgrade")).status).toBe(401);
    const u = await t.signUp("withbody");
    const r = await t.call("POST", "/api/subscription/upgrade", { cookie: u.cookie, body: { subscriptionType: "free", expires: "2099" } });
    expect(r.status).toBe(200);
    expect(r.json.user.subscriptionType).toBe("premium");
  });
});
