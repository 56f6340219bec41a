// A throwaway PostgreSQL cluster for tests and benchmarks: Debian's own server binaries,
// `initdb` into a temp folder, `pg_ctl start` on a loopback port, databases made on demand,
// and everything stopped and removed afterwards (also when the process exits early).
// Nothing stands in for PostgreSQL: `bash scripts/ensure-postgres.sh` installs it.
import { SQL } from "bun";
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The user clusters run as when we are root: initdb and postgres refuse to run as root. */
const RUN_AS = "threadlink-test";
/** The role that owns the databases made here: not a superuser, as in a real deployment. */
const APP_ROLE = "threadlink";

export type PgCluster = {
  /** The loopback port the server listens on. */
  port: number;
  /**
   * A new database owned by a non-superuser role; its postgres:// URL. Empty, or a copy of
   * `template` (a database with no open connections: tests copy one migrated database).
   */
  createDatabase(name?: string, opts?: { template?: string }): Promise<string>;
  /** A superuser connection URL to a database (for checks a test makes behind the app's back). */
  adminUrl(database?: string): string;
  /** The app role's URL of a database that exists already (one in a cluster started `from` a saved one). */
  databaseUrl(name: string): string;
  /**
   * Stops the server, copies its data folder (and the passwords it needs) to `folder`, and
   * starts it again: `startCluster({ from: folder })` later starts a copy of it (the benchmarks
   * keep a seeded cluster so a later run need not seed for minutes).
   */
  saveTo(folder: string): Promise<void>;
  /** Stops the server and removes its folder. Safe to call more than once. */
  stop(): Promise<void>;
  /**
   * Fault tests: `pg_ctl restart -m fast`, or the server stopped (fast) and started again on
   * the same port and data; each resolves once pg_ctl reports it done.
   */
  restartServer(): Promise<void>;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
};

/** Where Debian keeps the server binaries: PG_BINDIR, else the newest /usr/lib/postgresql/N/bin. */
function binDir() {
  const given = process.env.PG_BINDIR;
  if (given) {
    if (!existsSync(join(given, "initdb"))) throw new Error(`PG_BINDIR (${given}) holds no initdb: run \`bash scripts/ensure-postgres.sh\` first`);
    return given;
  }
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`PostgreSQL's server binaries were not found in ${root}/*/bin: run \`bash scripts/ensure-postgres.sh\` first`);
  return join(root, newest, "bin");
}

function run(cmd: string[], what: string) {
  const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  if (r.exitCode !== 0) throw new Error(`${what} failed (exit ${r.exitCode}):\n${r.stdout.toString()}${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** A port nothing listens on right now (the server may still lose a race for it: start retries). */
function freePort() {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

const live = new Set<() => void>();
let hooked = false;
/** Clusters still running when the process exits normally are stopped at once and removed. */
function hookExit() {
  if (hooked) return;
  hooked = true;
  process.on("exit", () => {
    for (const stop of [...live]) stop();
  });
}

/**
 * A watcher in its own session that outlives this process: once it is gone (a test file that
 * threw before its afterAll, bun test exiting without an 'exit' event, Ctrl-C, kill -9), it
 * stops the server and removes the folder within a second.
 */
function watch(dir: string, stopCommand: string[]) {
  const quoted = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${stopCommand.map(quoted).join(" ")} >/dev/null 2>&1; rm -rf ${quoted(dir)}`;
  const watcher = Bun.spawn(["setsid", "sh", "-c", script], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  watcher.unref();
  return watcher;
}

/**
 * Starts a cluster. `durable: false` (the default, for tests) turns off fsync and full-page
 * writes: a cluster that is removed afterwards has nothing to protect from a power cut.
 */
export async function startCluster(opts: { port?: number; durable?: boolean; from?: string } = {}): Promise<PgCluster> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  if (asRoot && Bun.spawnSync(["id", "-u", RUN_AS], { stdout: "ignore", stderr: "ignore" }).exitCode !== 0) {
    throw new Error(`The user ${RUN_AS} does not exist: run \`bash scripts/ensure-postgres.sh\` first (as root)`);
  }
  const as = (cmd: string[]) => (asRoot ? ["runuser", "-u", RUN_AS, "--", ...cmd] : cmd);

  const dir = mkdtempSync(join(tmpdir(), "threadlink-pg-"));
  const data = join(dir, "data");
  const logFile = join(dir, "server.log");
  // A saved cluster (saveTo) comes with the passwords its roles were made with.
  const saved = opts.from ? (JSON.parse(readFileSync(join(opts.from, "cluster.json"), "utf8")) as { password: string; appPassword: string }) : null;
  const password = saved?.password ?? crypto.randomUUID().replaceAll("-", "");
  const appPassword = saved?.appPassword ?? crypto.randomUUID().replaceAll("-", "");
  let stopped = false;
  let port = 0;

  const stopNow = (mode: "fast" | "immediate") => {
    if (stopped) return;
    stopped = true;
    live.delete(stopSync);
    if (existsSync(join(data, "postmaster.pid"))) {
      Bun.spawnSync(as([join(bin, "pg_ctl"), "stop", "-D", data, "-m", mode, "-w", "-t", "30"]), { stdout: "ignore", stderr: "ignore", stdin: "ignore" });
    }
    rmSync(dir, { recursive: true, force: true });
    watcher.kill();
  };
  const stopSync = () => stopNow("immediate");
  live.add(stopSync);
  hookExit();
  const watcher = watch(dir, as([join(bin, "pg_ctl"), "stop", "-D", data, "-m", "immediate", "-w", "-t", "30"]));

  try {
    if (asRoot) {
      const uid = Number(run(["id", "-u", RUN_AS], "id").trim());
      const gid = Number(run(["id", "-g", RUN_AS], "id").trim());
      chownSync(dir, uid, gid);
    }
    if (opts.from) {
      // cp -a keeps the files' owner and modes, which the server checks.
      run(["cp", "-a", join(opts.from, "data"), data], "copying the saved cluster");
    } else {
      const pwfile = join(dir, "pw");
      writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
      if (asRoot) chownSync(pwfile, Number(run(["id", "-u", RUN_AS], "id").trim()), -1);
      // Locale C and UTF-8: text sorts by bytes, as SQLite's BINARY collation does.
      run(as([join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=scram-sha-256", `--pwfile=${pwfile}`, "--encoding=UTF8", "--locale=C", "--no-sync"]), "initdb");
      rmSync(pwfile);
    }

    for (let attempt = 1; ; attempt++) {
      port = opts.port ?? freePort();
      const settings = [
        "listen_addresses = '127.0.0.1'",
        `port = ${port}`,
        // The socket goes in our folder: the system's /var/run/postgresql is not ours to use.
        `unix_socket_directories = '${dir}'`,
        "max_connections = 200",
        ...(opts.durable ? [] : ["fsync = off", "synchronous_commit = off", "full_page_writes = off"]),
      ];
      appendFileSync(join(data, "postgresql.conf"), `\n# scripts/lib/pgcluster.ts\n${settings.join("\n")}\n`);
      const r = Bun.spawnSync(as([join(bin, "pg_ctl"), "start", "-D", data, "-l", logFile, "-w", "-t", "60"]), { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
      if (r.exitCode === 0) break;
      const log = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
      // Another process took the port between the probe and the start: try another one.
      if (opts.port === undefined && attempt < 3 && /could not bind|Address already in use/.test(log)) continue;
      throw new Error(`pg_ctl start failed (exit ${r.exitCode}):\n${r.stderr.toString()}\n${log}`);
    }

    const ctl = async (args: string[]) => {
      const p = Bun.spawn(as([join(bin, "pg_ctl"), ...args]), { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
      if ((await p.exited) !== 0) throw new Error(`pg_ctl ${args[0]} failed: ${await new Response(p.stderr).text()}`);
    };
    const adminUrl = (database = "postgres") => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
    if (!saved) {
      const admin = new SQL({ url: adminUrl(), max: 1 });
      try {
        await admin.unsafe(`CREATE ROLE ${APP_ROLE} LOGIN PASSWORD '${appPassword}'`);
      } finally {
        await admin.close();
      }
    }
    const databaseUrl = (name: string) => `postgres://${APP_ROLE}:${appPassword}@127.0.0.1:${port}/${name}`;
    let made = 0;
    return {
      port,
      adminUrl,
      databaseUrl,
      async saveTo(folder: string) {
        await ctl(["stop", "-D", data, "-m", "fast", "-w", "-t", "60"]);
        try {
          rmSync(folder, { recursive: true, force: true });
          mkdirSync(folder, { recursive: true });
          run(["cp", "-a", data, join(folder, "data")], "saving the cluster");
          rmSync(join(folder, "data", "postmaster.pid"), { force: true });
          writeFileSync(join(folder, "cluster.json"), JSON.stringify({ password, appPassword }), { mode: 0o600 });
        } finally {
          await ctl(["start", "-D", data, "-l", logFile, "-w", "-t", "60"]);
        }
      },
      async createDatabase(name = `t${++made}_${Math.random().toString(36).slice(2, 8)}`, { template }: { template?: string } = {}) {
        for (const n of [name, template ?? name]) if (!/^[a-z_][a-z0-9_]*$/.test(n)) throw new Error(`Not a plain database name: ${n}`);
        const sql = new SQL({ url: adminUrl(), max: 1 });
        try {
          await sql.unsafe(`CREATE DATABASE ${name} OWNER ${APP_ROLE}${template ? ` TEMPLATE ${template}` : ""}`);
        } finally {
          await sql.close();
        }
        return databaseUrl(name);
      },
      async stop() {
        stopNow("fast");
      },
      async restartServer() {
        await ctl(["restart", "-D", data, "-m", "fast", "-l", logFile, "-w", "-t", "60"]);
      },
      async stopServer() {
        await ctl(["stop", "-D", data, "-m", "fast", "-w", "-t", "60"]);
      },
      async startServer() {
        await ctl(["start", "-D", data, "-l", logFile, "-w", "-t", "60"]);
      },
    };
  } catch (e) {
    stopNow("immediate");
    throw e;
  }
}
