// Webhooks with two Threadlink processes on one PostgreSQL (issue 26): every delivery claimed and
// sent exactly once across the instances, in order per endpoint; and an instance killed with
// SIGKILL in the middle of a delivery loses nothing (its lease runs out, the other sends it).
// The two-instance harness (src/test/instances.ts: real processes on loopback), a real receiver.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Instance, signUp, startTwins, stopInstance, stopTwins, thirdInstance, type Twins } from "../test/instances";
import { startReceiver } from "./receiver";

setDefaultTimeout(60_000);

let twins: Twins;
let a: Instance;
let b: Instance;
const rx = startReceiver();

beforeAll(async () => {
  twins = await startTwins("webhooks", { env: { WEBHOOK_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_BASE_MS: "50", WEBHOOK_TIMEOUT_SECONDS: "1" } });
  ({ a, b } = twins);
}, 120_000);

afterAll(async () => {
  rx.stop();
  await stopTwins(twins);
});

const post = (on: Instance, path: string, body: unknown, cookie?: string) =>
  fetch(`${on.base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });

async function until<T>(what: () => T | Promise<T>, ok: (v: T) => boolean, ms = 30_000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting: ${JSON.stringify(v).slice(0, 300)}`);
    await Bun.sleep(50);
  }
}

describe("two instances on one database", () => {
  test("every delivery is claimed and sent exactly once, in order per endpoint", async () => {
    const cookie = await signUp(a, "twin");
    const paths = ["/one", "/two", "/three"];
    for (const p of paths) expect((await post(a, "/api/webhooks", { url: rx.url(p), events: ["link.created"] }, cookie)).status).toBe(201);
    // A slow receiver keeps both instances' loops busy at once.
    rx.setDelay(15);
    const N = 30;
    for (let i = 0; i < N; i++) {
      const on = i % 2 ? a : b;
      expect((await post(on, "/api/links", { originalUrl: `https://example.com/${i}`, title: `n${i}`, shortCode: `once-${i}` }, cookie)).status).toBe(201);
    }
    await until(() => rx.received.length, (n) => n >= N * paths.length);
    await Bun.sleep(1500);
    rx.setDelay(0);
    expect(rx.received).toHaveLength(N * paths.length);
    for (const p of paths) {
      const got = rx.received.filter((r) => r.path === p).map((r) => r.json.data.title);
      expect(got).toEqual([...Array(N)].map((_, i) => `n${i}`));
    }
  });

  test("a database restart: the instances' sender threads connect again and send what is queued after it", async () => {
    const cookie = await signUp(a, "restarted");
    expect((await post(a, "/api/webhooks", { url: rx.url("/restart"), events: ["link.created"] }, cookie)).status).toBe(201);
    expect((await post(a, "/api/links", { originalUrl: "https://example.com/r0", title: "r0", shortCode: "restart-0" }, cookie)).status).toBe(201);
    await until(() => rx.received.filter((r) => r.path === "/restart").length, (n) => n === 1);
    await twins.cluster.restartServer();
    // Writes come back within a few seconds of the database (the app's pool reconnects).
    const made = await until(async () => (await post(b, "/api/links", { originalUrl: "https://example.com/r1", title: "r1", shortCode: "restart-1" }, cookie)).status, (s) => s === 201 || s === 409);
    expect([201, 409]).toContain(made);
    const got = await until(() => rx.received.filter((r) => r.path === "/restart").map((r) => r.json.data.title as string), (t) => t.includes("r1"));
    expect(got).toEqual(["r0", "r1"]);
  });

  test("kill -9 mid-delivery: the lease runs out and the other instance sends it; nothing lost", async () => {
    rx.received.length = 0;
    const cookie = await signUp(a, "killed");
    expect((await post(a, "/api/webhooks", { url: rx.url("/kill"), events: ["link.created"] }, cookie)).status).toBe(201);
    // The first request is never answered: whichever instance claimed it is mid-send when killed.
    rx.script.push("hang");
    expect((await post(a, "/api/links", { originalUrl: "https://example.com/k1", title: "k1", shortCode: "kill-1" }, cookie)).status).toBe(201);
    expect((await post(a, "/api/links", { originalUrl: "https://example.com/k2", title: "k2", shortCode: "kill-2" }, cookie)).status).toBe(201);
    await until(() => rx.received.length, (n) => n >= 1);
    a.proc.kill("SIGKILL");
    b.proc.kill("SIGKILL");
    await Promise.all([a.proc.exited, b.proc.exited]);
    // Both gone: the outbox alone holds the deliveries. A new process picks them up.
    await Promise.all([stopInstance(a), stopInstance(b)]); // their folders
    [a, b] = await Promise.all([thirdInstance(twins), thirdInstance(twins)]);
    Object.assign(twins, { a, b }); // stopped by stopTwins
    const got = await until(() => rx.received.filter((r) => r.path === "/kill"), (r) => r.filter((x) => x.json.data.title === "k2").length >= 1);
    const titles = got.map((r) => r.json.data.title);
    // k1 first (the hung attempt, then at least once more), then k2: in order, none lost.
    expect(titles[0]).toBe("k1");
    expect(titles.filter((x) => x === "k1").length).toBeGreaterThanOrEqual(2);
    expect(titles.indexOf("k2")).toBe(titles.lastIndexOf("k1") + 1);
  });
});
