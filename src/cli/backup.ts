import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../config";
import { openDb } from "../db/open";

/** A consistent copy while the server keeps running: VACUUM INTO reads one snapshot. */
export function backup(config: Config, file: string | undefined) {
  if (!file) throw new Error("Usage: threadlink backup FILE");
  const target = resolve(file);
  if (existsSync(target)) throw new Error(`Refusing to overwrite ${target}: choose a new file name.`);
  const db = openDb(config.dataDir);
  try {
    db.prepare("VACUUM INTO ?").run(target);
  } finally {
    db.close();
  }
  return target;
}
