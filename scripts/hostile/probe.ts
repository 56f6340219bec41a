// Worker: follows one short link over and over while the attack runs, in its own thread so
// the attacker's work (building 1 MiB bodies) never shows up as redirect latency.
// A module of its own: nothing here is global (the DOM lib declares `self` and `stop`).
export {};
const worker = globalThis as unknown as Worker;

let stopped = false;
const samples: number[] = [];
/** Absolute start times (ms since the epoch, sub-ms), to tell which attack a slow redirect met. */
const starts: number[] = [];
const statuses: Record<string, number> = {};

worker.onmessage = async (e: MessageEvent) => {
  const msg = e.data as { type: "start"; url: string; intervalMs: number } | { type: "stop" };
  if (msg.type === "stop") {
    stopped = true;
    return;
  }
  while (!stopped) {
    const t0 = performance.now();
    starts.push(performance.timeOrigin + t0);
    let key: string;
    try {
      const r = await fetch(msg.url, { redirect: "manual", headers: { "user-agent": "hostile-probe" } });
      await r.arrayBuffer();
      key = String(r.status);
    } catch (err) {
      key = `error: ${(err as Error).message}`;
    }
    samples.push(performance.now() - t0);
    statuses[key] = (statuses[key] ?? 0) + 1;
    await Bun.sleep(msg.intervalMs);
  }
  worker.postMessage({ samples, starts, statuses });
};
