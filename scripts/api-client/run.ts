// A client generated from the served document, run against the compiled binary (issues 23 and
// 24, "Done when"), in `npm test` on SQLite and on PostgreSQL:
//   1. start the binary on a fresh data dir (API_CLIENT_BACKEND=postgres: DATABASE_URL on a
//      throwaway cluster, scripts/lib/pgcluster.ts);
//   2. fetch /api/openapi.json and generate its types with openapi-typescript
//      (.tmp/api-client/schema.d.ts, git-ignored);
//   3. type-check ./flows.ts against them (tsc -p scripts/api-client, while 4 runs): a field or
//      parameter the document does not declare, or declares otherwise, fails here;
//   4. run ./flows.ts through openapi-fetch: every answer checked against the document's
//      schemas (src/openapi/conformance.ts, the contract test's own check).
// Prints one line per check and ends with "api-client: N passed, M failed"; exits non-zero on
// any failure.
//
//   BINARY=dist/threadlink API_CLIENT_PORT=4310 [API_CLIENT_BACKEND=postgres] bun run scripts/api-client/run.ts
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Papa from "papaparse";
import { documentChecker, type OpenApiDoc } from "../../src/openapi/conformance";
import { type PgCluster, startCluster } from "../lib/pgcluster";

const root = resolve(import.meta.dir, "../..");
const binary = resolve(process.env.BINARY ?? join(root, "dist/threadlink"));
const port = Number(process.env.API_CLIENT_PORT ?? 4310);
const BRAND_HOST = "brand.test";
const base = `http://127.0.0.1:${port}`;
const out = join(root, ".tmp/api-client");
/** The real tools' exports the import must keep (the fixtures the import's own tests use). */
const FIXTURES = ["yourls.csv", "yourls-phpmyadmin.csv", "shlink.csv", "shlink-cli.csv", "shlink-web-client.csv"];

let passed = 0;
let failed = 0;
const fail = (what: string) => {
  failed++;
  console.log(`  ✗ ${what}`);
};
async function step(name: string, fn: () => Promise<void> | void) {
  try {
    await fn();
    passed++;
    console.log(`  ✓ ${name}`);
  } catch (e) {
    fail(`${name}: ${e instanceof Error ? e.message : e}`);
  }
}
function finish(): never {
  console.log(`api-client: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

if (!existsSync(binary)) {
  fail(`no binary at ${binary} (build it first)`);
  finish();
}
if (await fetch(`${base}/api/health`).then(() => true, () => false)) {
  fail(`something already answers on port ${port} (API_CLIENT_PORT); stop it first`);
  finish();
}

const onPostgres = process.env.API_CLIENT_BACKEND === "postgres";
let cluster: PgCluster | null = null;
const backend: Record<string, string> = {};
if (onPostgres) {
  try {
    cluster = await startCluster();
    backend.DATABASE_URL = await cluster.createDatabase("threadlink_api_client");
  } catch (e) {
    fail(`a PostgreSQL cluster to run on: ${e instanceof Error ? e.message : e}`);
    await cluster?.stop();
    finish();
  }
}

const dir = mkdtempSync(join(tmpdir(), "threadlink-api-client-"));
const server = Bun.spawn([binary, "serve"], {
  cwd: dir,
  env: {
    PATH: process.env.PATH ?? "",
    DATA_DIR: join(dir, "data"),
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: base,
    // A host of its own for the brand tracker: each tracker then keeps its own codes (issue 23).
    BRAND_DOMAIN: BRAND_HOST,
    LOG_LEVEL: "warn",
    // One client makes a few hundred calls a minute from one address: never refused here
    // (the limits have tests of their own).
    API_RATE_LIMIT: "1000000",
    API_ANON_RATE_LIMIT: "1000000",
    ...backend,
  },
  stdout: "inherit",
  stderr: "inherit",
});

async function stop() {
  server.kill("SIGTERM");
  await Promise.race([server.exited, Bun.sleep(10_000)]);
  if (server.exitCode === null) server.kill("SIGKILL");
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
}

const run = (cmd: string[]) => Bun.spawnSync(cmd, { cwd: root, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }, stdout: "pipe", stderr: "pipe" });

let tsc: ReturnType<typeof Bun.spawn> | null = null;
try {
  let doc: OpenApiDoc | null = null;
  await step(`the binary starts${onPostgres ? " on PostgreSQL" : ""} and serves /api/openapi.json`, async () => {
    for (let i = 0; i < 150 && !(await fetch(`${base}/api/health`).then((r) => r.ok, () => false)); i++) await Bun.sleep(100);
    const r = await fetch(`${base}/api/openapi.json`);
    if (r.status !== 200) throw new Error(`GET /api/openapi.json: ${r.status}`);
    const text = await r.text();
    doc = JSON.parse(text) as OpenApiDoc;
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "openapi.json"), text);
  });
  if (!doc) throw new Error("no document");

  await step("openapi-typescript generates the client's types from the served document", () => {
    const r = run([join(root, "node_modules/.bin/openapi-typescript"), join(out, "openapi.json"), "-o", join(out, "schema.d.ts")]);
    if (r.exitCode !== 0) throw new Error(r.stderr.toString().slice(0, 2000));
  });

  // No type errors: the client uses nothing the document does not declare, and everything it
  // reads is of the declared type. tsc takes ~15 s: it checks while the flows run, and its
  // verdict is counted after them.
  tsc = Bun.spawn([join(root, "node_modules/.bin/tsc"), "-p", join(root, "scripts/api-client/tsconfig.json")], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const typeCheck = Promise.all([tsc.exited, new Response(tsc.stdout as ReadableStream).text(), new Response(tsc.stderr as ReadableStream).text()]);

  const checker = documentChecker(doc);
  const fixtures = Object.fromEntries(
    FIXTURES.map((name) => {
      const text = readFileSync(join(root, "src/links/fixtures", name), "utf8");
      const rows = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ""), { header: true, skipEmptyLines: true }).data;
      return [name, { text, rows }];
    }),
  );
  // A path tsc does not follow: ./flows.ts imports the generated types, which a fresh clone
  // has only once this script has run (the project's own typecheck leaves it out).
  const flowsFile = join(import.meta.dir, "flows.ts");
  const { flows } = (await import(flowsFile)) as { flows: (h: unknown) => Promise<number> };
  const checked = await flows({ baseUrl: base, brandHost: BRAND_HOST, check: checker.problems, fixtures, step, fail });
  console.log(`api-client: ${checked} answers checked against the document`);
  await step("the client type-checks against the generated types (tsc)", async () => {
    const [code, stdout, stderr] = await typeCheck;
    if (code !== 0) throw new Error(`\n${(stdout + stderr).slice(0, 4000)}`);
  });
} catch (e) {
  fail(`the run stopped: ${e instanceof Error ? e.stack : e}`);
} finally {
  if (tsc && tsc.exitCode === null) tsc.kill();
  await stop();
}
finish();
