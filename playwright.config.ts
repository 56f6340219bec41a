// Browser tests: Debian's Chromium drives the compiled binary, started fresh on 127.0.0.1
// with an empty data dir. `npm test` builds the binary first.
import { defineConfig } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const port = Number(process.env.E2E_PORT ?? 3917);
export const baseURL = `http://127.0.0.1:${port}`;
// Reused by every worker: the config file is evaluated once per process, so the data dir is
// passed down through the environment instead of made anew each time. Empty counts as unset
// (scripts/test.sh clears it to get a fresh one): the server would read "" as its ./data.
const dataDir = (process.env.E2E_DATA_DIR ||= mkdtempSync(join(tmpdir(), "threadlink-e2e-")));
const binary = process.env.E2E_BINARY ?? "./dist/threadlink";
// E2E_BACKEND=postgres: the main flows (tests tagged @main-flow) against the same binary with
// DATABASE_URL on a throwaway PostgreSQL cluster (scripts/e2e-postgres.ts starts and removes it).
const backend = process.env.E2E_BACKEND || "sqlite";
if (backend !== "sqlite" && backend !== "postgres") throw new Error(`E2E_BACKEND must be sqlite or postgres, not ${backend}`);
const onPostgres = backend === "postgres";

export default defineConfig({
  testDir: "web/e2e",
  timeout: 60_000,
  expect: {
    timeout: 10_000,
    // Screenshot comparisons (web/e2e/visual.spec.ts): room for stray anti-aliased pixels
    // (0.1 %), too little for a box moved by a few pixels; animations stopped and the caret
    // hidden so two runs draw the same pixels.
    toHaveScreenshot: { maxDiffPixelRatio: 0.001, animations: "disabled", caret: "hide", scale: "css" },
  },
  // Baselines are committed, in one folder, with no platform suffix: CI runs on this same
  // Debian Chromium, and under CI=true Playwright fails on a missing baseline instead of writing it.
  snapshotPathTemplate: "{testDir}/__screenshots__/{testFilePath}/{arg}{ext}",
  grep: onPostgres ? /@main-flow/ : undefined,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  outputDir: process.env.E2E_OUTPUT_DIR ?? "test-results",
  reporter: [["list"], ["json", { outputFile: process.env.E2E_RESULTS ?? ".tmp/e2e-results.json" }]],
  use: {
    baseURL,
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run"],
    },
    trace: "off",
    screenshot: "only-on-failure",
  },
  webServer: {
    command: onPostgres ? `node_modules/.bin/bun run scripts/e2e-postgres.ts ${binary}` : `${binary} serve`,
    url: `${baseURL}/api/health`,
    reuseExistingServer: false,
    // initdb and the cluster's start come first on PostgreSQL.
    timeout: onPostgres ? 90_000 : 30_000,
    // SIGTERM so the launcher outlives the binary's own shutdown and then removes the cluster
    // (without it Playwright kills the process group at once; pgcluster's watcher still cleans up).
    gracefulShutdown: onPostgres ? { signal: "SIGTERM", timeout: 20_000 } : undefined,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      PUBLIC_URL: baseURL,
      // A second name for loopback, so the brand tracker's own host can be exercised.
      BRAND_DOMAIN: `localhost:${port}`,
      FREE_TOPIC_LIMIT: "5",
      // The instance owner (sees the brand root link); tests register this name when needed.
      OWNER_USERNAME: "e2eowner",
      // Every page of every spec calls /api from loopback, many anonymously: counted, never refused.
      API_ANON_RATE_LIMIT: "1000000",
      LOG_LEVEL: "warn",
    },
  },
});
