import type { Config } from "./config";
import type { Database } from "./db/database";
import { accountsStore } from "./accounts/store";

/** Everything a feature needs, built once per app and passed down (no globals). */
export function createContext(db: Database, config: Config) {
  return {
    db,
    config,
    accounts: accountsStore(db),
    /** Distinguishes plugin instances when several apps live in one process (tests). */
    instanceId: crypto.randomUUID(),
    /** Run, in order, on graceful shutdown before the database closes (e.g. flush buffers). */
    shutdownHooks: [] as (() => void | Promise<void>)[],
  };
}

export type AppContext = ReturnType<typeof createContext>;
