// deploy/haproxy.cfg, run for real on loopback (the fail-over test, the scale benchmark): the
// shipped file with only its `bind` line and its `server` lines replaced, so what is tested is
// what the README tells an operator to use. haproxy from Debian: scripts/ensure-balancers.sh.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SHIPPED = join(import.meta.dir, "../../deploy/haproxy.cfg");

/** deploy/haproxy.cfg listening on host:port, in front of `servers` (loopback ports). */
export function haproxyConfig(port: number, servers: number[], host = "127.0.0.1") {
  const out: string[] = [];
  for (const line of readFileSync(SHIPPED, "utf8").split("\n")) {
    if (/^\s*bind\s/.test(line)) out.push(`  bind ${host}:${port}`);
    else if (/^\s*server\s/.test(line)) continue;
    else out.push(line);
  }
  out.push(...servers.map((p, i) => `  server app${i + 1} ${host}:${p}`), "");
  return out.join("\n");
}

/** haproxy in the foreground on `port`; resolves once it answers /api/health through an instance. */
export async function startHaproxy(dir: string, port: number, servers: number[]) {
  const cfg = join(dir, `haproxy-${port}.cfg`);
  writeFileSync(cfg, haproxyConfig(port, servers));
  const proc = Bun.spawn(["haproxy", "-f", cfg, "-db"], { stdout: "ignore", stderr: "ignore" });
  for (let n = 0; ; n++) {
    if ((await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.ok) return proc;
    if (proc.exitCode !== null) throw new Error(`haproxy exited with ${proc.exitCode} (config ${cfg})`);
    if (n > 300) throw new Error("haproxy did not answer in 30 s");
    await Bun.sleep(100);
  }
}
