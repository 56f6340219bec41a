// A real webhook receiver for the tests (issue 26): a Bun server on loopback that records each
// request and answers what the test asks for, in turn.
import { HEADER, sign } from "./send";

export type Received = { path: string; id: string; timestamp: number; signature: string; body: string; json: { id: string; type: string; createdAt: string; data: Record<string, any> }; at: number };

export function startReceiver() {
  const received: Received[] = [];
  // Status codes to answer, in order; then 200. A "hang" never answers (a receiver that died).
  const script: (number | "hang")[] = [];
  let delayMs = 0;
  const server: Bun.Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const body = await req.text();
      if (url.pathname === "/elsewhere") {
        received.push({ path: url.pathname, id: "", timestamp: 0, signature: "", body, json: JSON.parse(body || "{}"), at: Date.now() });
        return new Response("moved here");
      }
      const next = script.shift() ?? 200;
      received.push({
        path: url.pathname,
        id: req.headers.get(HEADER.id) ?? "",
        timestamp: Number(req.headers.get(HEADER.timestamp)),
        signature: req.headers.get(HEADER.signature) ?? "",
        body,
        json: JSON.parse(body),
        at: Date.now(),
      });
      if (next === "hang") return new Promise<Response>(() => {});
      if (delayMs) await Bun.sleep(delayMs);
      if (url.pathname === "/redirect") return new Response(null, { status: 302, headers: { location: `http://127.0.0.1:${server.port}/elsewhere` } });
      if (url.pathname === "/big") return new Response("x".repeat(1_000_000));
      return new Response(next === 200 ? "thanks" : `failed ${next}`, { status: next });
    },
  });
  return {
    url: (path = "/hook") => `http://127.0.0.1:${server.port}${path}`,
    received,
    script,
    setDelay: (ms: number) => (delayMs = ms),
    /** Whether a request's signature is right for `secret`, as the README's snippet checks it. */
    verify: (r: Received, secret: string) => r.signature === sign(secret, r.id, r.timestamp, r.body),
    /** Waits until `n` requests arrived (or fails after `ms`). */
    async waitFor(n: number, ms = 10_000) {
      const until = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`receiver: ${received.length} of ${n} requests after ${ms} ms`);
        await Bun.sleep(20);
      }
      return received;
    },
    stop: () => server.stop(true),
  };
}
