// An open-loop load generator (Debian has no wrk2): requests leave on a fixed schedule whatever
// the server does, and each latency is measured from the moment its request was DUE, so a server
// that stalls is charged for every request it held up (no coordinated omission, unlike wrk's
// closed loop, where a slow answer also delays the next request).
//
//   bun run scripts/bench/openloop.ts <url-base> <codes-file> <rate/s> <seconds> [method]
//
// Prints one line of JSON: offered and achieved rate, p50/p99/max in ms, errors, and how many
// requests could not even be sent on time because MAX_OUTSTANDING were already waiting (then the
// client, not the server, is the limit, and the line says so).
import { readFileSync } from "node:fs";

const [base, codesFile, rateArg, secondsArg, method = "GET"] = process.argv.slice(2);
if (!base || !codesFile || !rateArg || !secondsArg) throw new Error("usage: openloop.ts <url-base> <codes-file> <rate/s> <seconds> [method]");
const codes = readFileSync(codesFile, "utf8").trim().split("\n");
const rate = Number(rateArg);
const seconds = Number(secondsArg);
// Bun's fetch keeps at most 256 connections per host; more outstanding would queue inside the
// client and be charged to the server. Past this, a request is counted as not sent on time.
const MAX_OUTSTANDING = 256;
// The first second opens the connections and warms both sides up: sent, not measured.
const WARM_UP_MS = 1_000;
const TICK_MS = 1;

const latencies: number[] = [];
let outstanding = 0;
let errors = 0;
let late = 0;
let sent = 0;
const total = Math.round(rate * (seconds + WARM_UP_MS / 1000));
const start = performance.now();

function fire(due: number) {
  if (outstanding >= MAX_OUTSTANDING) {
    late++;
    return;
  }
  outstanding++;
  sent++;
  const code = codes[Math.floor(Math.random() * codes.length)]!;
  fetch(`${base}/${code}`, { method, redirect: "manual" })
    .then((r) => {
      if (r.status !== 302) errors++;
      if (due - start >= WARM_UP_MS) latencies.push(performance.now() - due);
    })
    .catch(() => errors++)
    .finally(() => outstanding--);
}

let next = 0;
await new Promise<void>((done) => {
  const tick = () => {
    const now = performance.now();
    // Every request whose due time has come leaves now; its latency counts from its due time.
    while (next < total && start + (next * 1000) / rate <= now) fire(start + (next++ * 1000) / rate);
    if (next < total) setTimeout(tick, TICK_MS);
    else done();
  };
  tick();
});
const drainUntil = performance.now() + 10_000;
while (outstanding > 0 && performance.now() < drainUntil) await Bun.sleep(5);
const elapsed = (performance.now() - start - WARM_UP_MS) / 1000;
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
console.log(
  `OPENLOOP${JSON.stringify({ offered: rate, achieved: latencies.length / elapsed, sent, answered: latencies.length, errors, late, p50: pct(50), p99: pct(99), max: latencies.at(-1) ?? NaN })}`,
);
