// Events benchmark (issue 26): the redirect path with and without subscribers. Loopback only,
// bounded, prints figures; not part of `npm test`. The lead runs it on a quiet machine.
//
//   node_modules/.bin/bun run scripts/bench/events.ts        # builds dist/threadlink if missing
//   BENCH_BINARY=.tmp/x/threadlink BENCH_SECONDS=10 BENCH_ROUNDS=3 bun run scripts/bench/events.ts
//   knobs: BENCH_PORT (3393), BENCH_LINKS (2000), BENCH_HOOKS (10), BENCH_STREAMS (20), BENCH_C (64),
//   BENCH_STREAM_LINKS: "page" (default) opens each stream as the Link Tracker does, naming the
//   cards of its first page (`?links=`, the newest 100 links); "all" names none (every link's
//   clicks, as an API client without `links` gets them)
//
// 1. Starts the compiled binary on a fresh data dir (SQLite), signs up one user and makes
//    BENCH_LINKS links through the bulk API.
// 2. Drives GET /{random code} with wrk (scripts/lib/wrk.ts, as the redirect benchmark does) in
//    BENCH_ROUNDS rounds of a, b, a': (a) no subscribers; (b) BENCH_HOOKS webhook endpoints
//    subscribed to clicks.recorded (a Bun receiver on loopback answering 200) and BENCH_STREAMS
//    open live update streams (GET /api/events/stream, read as they come) for the same user;
//    (a') none again. A round's b/a is b over the mean of its a and a'; a'/a is the noise. The
//    median round is the verdict, "within noise" when it is no further from 1 than the largest
//    |a'/a − 1| of the run (this VM shares its host).
// 3. Prints req/s, p50/p99 of each, b/a (subscribers over none), and the webhook delivery
//    latency p50/p99 under load: the receiver's arrival time minus the event's createdAt (the
//    click writer's commit), and the events the streams received.
import { $ } from "bun";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureWrk, parseWrk, writeRandomCodesScript } from "../lib/wrk";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PORT = Number(process.env.BENCH_PORT ?? 3393);
const LINKS = Number(process.env.BENCH_LINKS ?? 2_000);
const HOOKS = Number(process.env.BENCH_HOOKS ?? 10);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 20);
const STREAM_LINKS = process.env.BENCH_STREAM_LINKS ?? "page";
if (STREAM_LINKS !== "page" && STREAM_LINKS !== "all") throw new Error("BENCH_STREAM_LINKS is page or all");
const C = Number(process.env.BENCH_C ?? 64);
const HOST = "127.0.0.1";
const BASE = `http://${HOST}:${PORT}`;

const binary = process.env.BENCH_BINARY ?? "dist/threadlink";
if (!existsSync(binary)) {
  console.log(`${binary} not found: building it (scripts/build.ts)…`);
  await $`${process.execPath} run scripts/build.ts`;
}
await ensureWrk();

const dir = mkdtempSync(join(tmpdir(), "threadlink-bench-events-"));
const proc = Bun.spawn([binary, "serve"], {
  env: {
    ...process.env,
    PORT: String(PORT),
    HOST,
    DATA_DIR: join(dir, "data"),
    PUBLIC_URL: BASE,
    LOG_LEVEL: "warn",
    WEBHOOK_ALLOW_PRIVATE: "true",
    API_ANON_RATE_LIMIT: "0",
    API_RATE_LIMIT: "0",
    HEAVY_RATE_LIMIT: "0",
    LIVE_STREAMS_PER_USER: String(Math.max(STREAMS, 1)),
  },
  stdout: "inherit",
  stderr: "inherit",
});

const stop = async () => {
  proc.kill("SIGTERM");
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
};

try {
  for (let i = 0; ; i++) {
    if ((await fetch(`${BASE}/api/health`).catch(() => null))?.ok) break;
    if (i > 300) throw new Error("the binary did not start");
    await Bun.sleep(100);
  }
  const reg = await fetch(`${BASE}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "bencher", password: "correct horse battery", email: "bench@example.test" }),
  });
  if (reg.status !== 201) throw new Error(`sign-up: ${reg.status} ${await reg.text()}`);
  const cookie = reg.headers.get("set-cookie")!.split(";")[0]!;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${BASE}${path}`, { method, headers: { cookie, "content-type": "application/json", origin: BASE }, body: body === undefined ? undefined : JSON.stringify(body) });

  const codes: string[] = [];
  const ids: number[] = [];
  for (let made = 0; made < LINKS; made += 1000) {
    const n = Math.min(1000, LINKS - made);
    const links = [...Array(n)].map((_, i) => ({ originalUrl: `https://example.com/${made + i}`, title: `bench ${made + i}`, shortCode: `ev${made + i}` }));
    const r = await api("POST", "/api/links/bulk", { links });
    if (r.status !== 200) throw new Error(`bulk: ${r.status} ${await r.text()}`);
    codes.push(...links.map((l) => l.shortCode));
    ids.push(...((await r.json()) as { results: { link: { id: number } }[] }).results.map((x) => x.link.id));
  }
  const codesFile = join(dir, "codes.txt");
  writeFileSync(codesFile, `${codes.join("\n")}\n`);
  const script = join(dir, "random.lua");
  writeRandomCodesScript(script, codesFile);

  // The consumers below (the webhook receiver, the streams' readers) run on the server's two
  // cores, which real ones do not: they scan the bytes they get for what they count instead of
  // decoding and parsing ~20 MB/s of JSON (which cost this process 2-3 µs a request, session 15).
  const LINK = Buffer.from('"linkId":');
  const FRAME = Buffer.from("event: clicks.recorded");
  /** Occurrences of `needle` in `hay` (native search, nothing decoded). */
  const countIn = (hay: Buffer, needle: Buffer) => {
    let n = 0;
    for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
    return n;
  };
  /** Counts `needle` across a stream's chunks: the last bytes of one are kept for the next. */
  const counter = (needle: Buffer) => {
    let carry = Buffer.alloc(0);
    let n = 0;
    return {
      add(chunk: Uint8Array) {
        const buf = Buffer.concat([carry, chunk]);
        n += countIn(buf, needle);
        // Shorter than the needle, so no occurrence is counted twice.
        carry = Buffer.from(buf.subarray(Math.max(0, buf.length - (needle.length - 1))));
      },
      get n() {
        return n;
      },
    };
  };

  // The webhook receiver: answers 200 at once and notes when each delivery arrived.
  const latencies: number[] = [];
  let deliveries = 0;
  // A clicks.recorded delivery carries a batch's links (README "Webhooks"): the summaries they held.
  let summaries = 0;
  const receiver = Bun.serve({
    hostname: HOST,
    port: 0,
    async fetch(req) {
      const body = Buffer.from(await req.arrayBuffer());
      deliveries++;
      if (recording) {
        // The body starts {"id":…,"type":…,"createdAt":"…": the time is in its first bytes.
        const createdAt = /"createdAt":"([^"]+)"/.exec(body.subarray(0, 200).toString())?.[1] ?? "";
        latencies.push(Date.now() - Date.parse(createdAt));
        summaries += countIn(body, LINK);
      }
      return new Response("ok");
    },
  });
  let recording = false;

  type Run = { rps: number; p50: number; p99: number; errors: number };
  /** CPU ticks per thread name of the server (the request thread, "Worker" threads, GC helpers…). */
  const threadTicks = () => {
    const by = new Map<string, number>();
    for (const tid of readdirSync(`/proc/${proc.pid}/task`)) {
      try {
        const name = readFileSync(`/proc/${proc.pid}/task/${tid}/comm`, "utf8").trim();
        const f = readFileSync(`/proc/${proc.pid}/task/${tid}/stat`, "utf8");
        const x = f.slice(f.lastIndexOf(")") + 2).split(" ");
        by.set(name, (by.get(name) ?? 0) + Number(x[11]) + Number(x[12]));
      } catch {
        /* the thread ended */
      }
    }
    return by;
  };
  /**
   * Waits for the click writer's backlog to empty (/api/health), so every run starts from the
   * same state: a flood fills the backlog past its bound, and a run that began with it full would
   * keep fewer detail rows (cheaper clicks) than one that began with it empty.
   */
  const drained = async () => {
    for (let waited = 0; waited < 120_000; waited += 200) {
      const h = (await (await fetch(`${BASE}/api/health`)).json()) as { details: { clicks: { backlog: number } } };
      if (h.details.clicks.backlog === 0) return;
      await Bun.sleep(200);
    }
    throw new Error("the click writer did not catch up within 2 minutes");
  };
  const runWrk = async (label: string): Promise<Run> => {
    await drained();
    const ticks0 = threadTicks();
    const own0 = process.cpuUsage();
    const out = await $`wrk -t2 -c${C} -d${SECONDS}s --timeout 5s -s ${script} ${BASE}/`.quiet().text();
    const own = process.cpuUsage(own0);
    const ticks = threadTicks();
    const j = parseWrk(out);
    const r = { rps: j.requests / (j.duration / 1e6), p50: j.p50 / 1000, p99: j.p99 / 1000, errors: j.connect + j.read + j.write + j.timeout + j.status };
    console.log(`${label.padEnd(26)} c=${C}  ${r.rps.toFixed(0).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  errors ${r.errors}`);
    // CPU µs per request: the server's threads (10 ms ticks), and this process (the receiver and the streams' readers share the cores).
    const per = (ticks: number) => ((ticks * 10_000) / j.requests).toFixed(1);
    const threads = [...ticks].map(([name, t]) => [name, t - (ticks0.get(name) ?? 0)] as const).filter(([, t]) => t > 0).sort((x, y) => y[1] - x[1]);
    console.log(`${"".padEnd(26)} CPU µs/req: ${threads.map(([name, t]) => `${name} ${per(t)}`).join(", ")}; bench process ${(((own.user + own.system) / j.requests)).toFixed(1)}`);
    return r;
  };

  // Subscribers, added and removed per round so round (a) really has none.
  const subscribe = async () => {
    const hooks: number[] = [];
    for (let i = 0; i < HOOKS; i++) {
      const r = await api("POST", "/api/webhooks", { url: `http://${HOST}:${receiver.port}/hook${i}`, events: ["clicks.recorded"] });
      if (r.status !== 201) throw new Error(`webhook: ${r.status} ${await r.text()}`);
      hooks.push(((await r.json()) as { id: number }).id);
    }
    const counted: { ev: ReturnType<typeof counter>; fr: ReturnType<typeof counter> }[] = [];
    const aborts: AbortController[] = [];
    const reading: Promise<void>[] = [];
    for (let i = 0; i < STREAMS; i++) {
      const abort = new AbortController();
      aborts.push(abort);
      const query = STREAM_LINKS === "page" ? `?links=${ids.toSorted((x, y) => y - x).slice(0, 100).join(",")}` : "";
      const res = await fetch(`${BASE}/api/events/stream${query}`, { headers: { cookie }, signal: abort.signal });
      if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
      reading.push(
        (async () => {
          const reader = res.body!.getReader();
          // Per stream: a needle cut between two chunks is found in the next one.
          const ev = counter(LINK);
          const fr = counter(FRAME);
          counted.push({ ev, fr });
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              // Frames, and the link summaries they carry (one per frame before session 14, a batch's since).
              ev.add(value);
              fr.add(value);
            }
          } catch {
            /* aborted */
          }
        })(),
      );
    }
    return {
      events: () => counted.reduce((n, c) => n + c.ev.n, 0),
      frames: () => counted.reduce((n, c) => n + c.fr.n, 0),
      async remove() {
        for (const a of aborts) a.abort();
        await Promise.all(reading);
        for (const id of hooks) await api("DELETE", `/api/webhooks/${id}`);
      },
    };
  };

  // Each round runs (a), (b), then (a) again: the data grows with every run (every click is
  // stored), so (b) is judged against the mean of the (a) runs on either side of it, and the two
  // (a) runs' ratio is the bench's own noise: how far apart two runs of the same thing come.
  const none: Run[] = [];
  const again: Run[] = [];
  const subs: Run[] = [];
  let streamEvents = 0;
  let streamFrames = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}/${ROUNDS}`);
    none.push(await runWrk("(a) no subscribers"));
    const s = await subscribe();
    recording = true;
    subs.push(await runWrk(`(b) ${HOOKS} hooks + ${STREAMS} SSE${STREAM_LINKS === "page" ? " (100 links each)" : ""}`));
    // Deliveries still queued when wrk stops are sent now; their latency counts too.
    for (let waited = 0; waited < 30_000; waited += 200) {
      const before = deliveries;
      await Bun.sleep(200);
      if (deliveries === before) break;
    }
    recording = false;
    streamEvents += s.events();
    streamFrames += s.frames();
    await s.remove();
    again.push(await runWrk("(a') no subscribers again"));
  }
  receiver.stop(true);

  const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const pct = (xs: number[], p: number) => (xs.length ? xs.toSorted((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]! : NaN);
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(", ");
  const ratios = subs.map((b, i) => b.rps / ((none[i]!.rps + again[i]!.rps) / 2));
  const noise = again.map((a2, i) => a2.rps / none[i]!.rps);
  const a = { rps: median([...none, ...again].map((r) => r.rps)), p99: median([...none, ...again].map((r) => r.p99)) };
  const b = { rps: median(subs.map((r) => r.rps)), p99: median(subs.map((r) => r.p99)) };
  const spread = Math.max(...noise.map((x) => Math.abs(x - 1)));
  const m = median(ratios);
  console.log("\nmedian of rounds");
  console.log(`  no subscribers        ${a.rps.toFixed(0)} req/s  p99 ${a.p99.toFixed(2)} ms  (a and a' runs)`);
  console.log(`  hooks + streams       ${b.rps.toFixed(0)} req/s  p99 ${b.p99.toFixed(2)} ms`);
  console.log(`  b/a per round         ${fmt(ratios)}  (b over the mean of the round's a and a')`);
  console.log(`  a'/a per round        ${fmt(noise)}  (the same build and load twice: the bench's noise)`);
  console.log(`  b/a                   ${m.toFixed(3)} median; noise ±${spread.toFixed(3)} (the largest |a'/a − 1|): ${Math.abs(m - 1) <= spread ? "within" : "outside"} the noise  (target: within noise of 1; p99 ≤ 10 ms)`);
  console.log(`  webhook deliveries    ${latencies.length.toLocaleString("en-US")} under load (${summaries.toLocaleString("en-US")} link summaries); latency from commit p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms`);
  console.log(`  stream events         ${streamEvents.toLocaleString("en-US")} link summaries in ${streamFrames.toLocaleString("en-US")} clicks.recorded frames received over ${STREAMS} streams`);
} finally {
  await stop();
}
