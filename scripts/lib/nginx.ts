// deploy/nginx.conf, run for real on loopback (src/links/nginx.pg.test.ts, the scale benchmark):
// the shipped file with only its `listen` line and its upstream `server` lines replaced, and
// what a process without /etc/nginx or /var/log/nginx needs (its pid file, logs and temporary
// files in `dir`), so what is tested is what the README tells an operator to use. nginx from
// Debian: scripts/ensure-balancers.sh.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SHIPPED = join(import.meta.dir, "../../deploy/nginx.conf");

/**
 * Each request's upstream answers, in order ("503, 201": the first instance answered 503 and
 * the request was tried on the next), one line a request in `dir`/upstream.log.
 */
const UPSTREAM_LOG = "upstream.log";

/** deploy/nginx.conf listening on host:port in front of `servers` (loopback ports), its files in `dir`. */
export function nginxConfig(dir: string, port: number, servers: number[], host = "127.0.0.1") {
  const out: string[] = [];
  let upstream = false;
  let written = false;
  for (const line of readFileSync(SHIPPED, "utf8").split("\n")) {
    if (/^\s*upstream\s/.test(line)) upstream = true;
    if (upstream && /^\s*server\s/.test(line)) {
      // The shipped parameters (max_fails=0) kept: only the address changes.
      const params = line.trim().replace(/^server\s+\S+/, "").replace(/;$/, "");
      if (!written) out.push(...servers.map((p) => `    server ${host}:${p}${params};`));
      written = true;
      continue;
    }
    if (upstream && /^\s*}/.test(line)) upstream = false;
    if (/^\s*listen\s/.test(line)) out.push(`    listen ${host}:${port};`);
    else if (/^\s*http\s*{/.test(line)) {
      out.push(
        line,
        '  log_format upstreams "$request_method $uri $status [$upstream_status]";',
        `  access_log ${join(dir, UPSTREAM_LOG)} upstreams;`,
        ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${join(dir, t)};`),
      );
    } else out.push(line);
  }
  return out.join("\n");
}

/** Debian puts nginx in /usr/sbin, which a user's PATH may lack. */
const nginxBinary = () => Bun.which("nginx") ?? (existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx");

/** nginx in the foreground on `port`; resolves once it answers /api/health through an instance. */
export async function startNginx(dir: string, port: number, servers: number[]) {
  const conf = join(dir, `nginx-${port}.conf`);
  writeFileSync(conf, nginxConfig(dir, port, servers));
  const proc = Bun.spawn([nginxBinary(), "-p", dir, "-c", conf, "-e", join(dir, "error.log"), "-g", `daemon off; pid ${join(dir, `nginx-${port}.pid`)};`], {
    stdout: "ignore",
    stderr: "pipe",
  });
  for (let n = 0; ; n++) {
    if ((await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null))?.ok) return proc;
    if (proc.exitCode !== null) throw new Error(`nginx exited with ${proc.exitCode} (config ${conf}): ${await new Response(proc.stderr).text()}`);
    if (n > 300) throw new Error("nginx did not answer in 30 s");
    await Bun.sleep(100);
  }
}

/** The upstream answers of every request nginx has logged so far ("503, 201" …), by request line. */
export function upstreamLog(dir: string) {
  const file = join(dir, UPSTREAM_LOG);
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}
