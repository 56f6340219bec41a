// Writes the OpenAPI document the app serves to a file, built in-process (a real app on a
// throwaway SQLite file, asked for GET /api/openapi.json), so the linters in scripts/test.sh
// read exactly what a client downloads. Usage: bun run scripts/openapi.ts OUT.json
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/connect";

const out = process.argv[2];
if (!out) {
  console.error("usage: bun run scripts/openapi.ts OUT.json");
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "threadlink-openapi-"));
try {
  // The public address a deployment would set; the document's `servers` names it.
  const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: "https://links.threadlink.test" });
  const { db } = await openDatabase(config);
  const { app, ctx } = await createApp({ db, config });
  const res = await app.handle(new Request("https://links.threadlink.test/api/openapi.json"));
  if (res.status !== 200) throw new Error(`GET /api/openapi.json answered ${res.status}`);
  writeFileSync(out, `${JSON.stringify(await res.json(), null, 2)}\n`);
  for (const hook of ctx.shutdownHooks) await hook();
  await db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
