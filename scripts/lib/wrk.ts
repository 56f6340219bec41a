// wrk (Debian's package) for the benchmarks that drive the server with random short codes:
// installed when missing, and one Lua script that requests a random code of a file per request
// and prints the run's figures as one JSON line (redirect.ts, scale.ts).
import { $ } from "bun";
import { writeFileSync } from "node:fs";

export async function ensureWrk() {
  if (Bun.which("wrk")) return;
  console.log("wrk not found: installing it from Debian (apt-get install wrk)…");
  const install = await $`apt-get install -y wrk`.nothrow().quiet();
  if (install.exitCode !== 0) {
    await $`apt-get update`.quiet();
    await $`apt-get install -y wrk`.quiet();
  }
}

/**
 * Writes to `script` a wrk script that requests a random code of `codesFile` (one a line) with
 * the method in BENCH_METHOD (GET when unset); `done` prints the figures as one JSON line after
 * BENCH_JSON (read back by parseWrk).
 */
export function writeRandomCodesScript(script: string, codesFile: string) {
  writeFileSync(
    script,
    `local codes = {}
for line in io.lines("${codesFile}") do codes[#codes + 1] = line end
math.randomseed(os.time())
local method = os.getenv("BENCH_METHOD") or "GET"
request = function() return wrk.format(method, "/" .. codes[math.random(#codes)]) end
done = function(s, latency, requests)
  io.write(string.format('BENCH_JSON{"requests":%d,"duration":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d,"p50":%d,"p99":%d}\\n',
    s.requests, s.duration, s.errors.connect, s.errors.read, s.errors.write, s.errors.timeout, s.errors.status, latency:percentile(50), latency:percentile(99)))
end
`,
  );
}

export type WrkFigures = { requests: number; duration: number; connect: number; read: number; write: number; timeout: number; status: number; p50: number; p99: number };

/** The BENCH_JSON line of a run's output (durations and latencies in µs, as wrk counts them). */
export const parseWrk = (out: string) => JSON.parse(out.slice(out.indexOf("BENCH_JSON") + 10).trim().split("\n")[0]!) as WrkFigures;
