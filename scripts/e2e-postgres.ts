// The Playwright web server for the PostgreSQL run (E2E_BACKEND=postgres, playwright.config.ts):
// starts a throwaway PostgreSQL cluster (scripts/lib/pgcluster.ts), makes an empty database,
// and runs the compiled binary's `serve` on it with DATABASE_URL; the binary migrates it. The
// cluster is stopped and removed when the binary exits, whether it stopped on Playwright's
// SIGTERM or died by itself; if this launcher is killed outright, pgcluster's watcher does it.
//   bun run scripts/e2e-postgres.ts BINARY   (PORT, HOST, DATA_DIR… as for the binary itself)
import { startCluster } from "./lib/pgcluster";

const binary = process.argv[2];
if (!binary) {
  console.error("Usage: bun run scripts/e2e-postgres.ts BINARY");
  process.exit(2);
}

const cluster = await startCluster();
let code = 1;
try {
  const url = await cluster.createDatabase("threadlink_e2e");
  const server = Bun.spawn([binary, "serve"], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: ["ignore", "inherit", "inherit"],
  });
  // Playwright signals the whole process group, the binary included: this process only waits
  // for the binary to finish its own shutdown (drain the clicks) before the cluster goes.
  // Passed on as well, for a launcher signalled on its own.
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => server.kill(signal));
  code = await server.exited;
} finally {
  await cluster.stop();
}
process.exit(code);
