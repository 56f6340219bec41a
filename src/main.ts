// Entry point: parse CLI → load config → open db → migrate → createApp → listen.
import { ConfigError, loadConfig } from "./config";
import { setLogLevel } from "./http/log";
import { VERSION } from "./version";
import { serve } from "./cli/serve";
import { backup } from "./cli/backup";
import { userCommand } from "./cli/user";
import { apiKeyCommand } from "./cli/apikey";
import { webhookCommand } from "./cli/webhook";
import { openDb } from "./db/open";
import { migrate } from "./db/migrate";
import { migratePg, openPg } from "./db/pg";
import { migrateData, where } from "./cli/migrateData";

const HELP = `Threadlink ${VERSION} — short links, analytics, QR codes and message topics

Usage: threadlink [command]

Commands:
  serve                         Run the server (default)
  migrate                       Apply pending database migrations and exit
  backup FILE                   Write a consistent copy of the database to FILE (safe while serving)
  migrate-data POSTGRES_URL     Copy the SQLite database in DATA_DIR into an empty PostgreSQL database
  user create USERNAME EMAIL    Create an account (password from stdin or THREADLINK_PASSWORD)
  user set-plan USERNAME free|premium [DAYS]
  user reset-password USERNAME [--keep-keys]
                                New password (stdin or THREADLINK_PASSWORD); ends the user's
                                sessions and revokes their API keys unless --keep-keys
  api-key create USERNAME NAME --scope read|read-write [--only links|topics]
                                Create an API key and print it (shown once)
  api-key revoke USERNAME PREFIX  Revoke the key whose prefix (tl_ and 8 characters) is listed
  api-key list USERNAME         List a user's keys (prefix, scope, created, last used, name)
  webhook list USERNAME         List a user's webhooks (id, on/off, URL, events)
  webhook add USERNAME URL --events TYPE,TYPE [--links ID,ID]
                                Add a webhook and print its signing secret (shown once)
  webhook remove USERNAME ID    Delete a webhook
  webhook enable USERNAME ID    Turn a disabled webhook on again
  healthcheck                   Exit 0 when the local server answers /api/health (for Docker)
  --help, -h                    Show this help
  --version, -v                 Show the version

Configuration comes from environment variables; see README.md.`;

async function main(argv: string[]) {
  const [cmd = "serve", ...rest] = argv;
  if (cmd === "--help" || cmd === "-h" || cmd === "help") return console.log(HELP);
  if (cmd === "--version" || cmd === "-v") return console.log(VERSION);
  const config = loadConfig();
  setLogLevel(config.logLevel);
  if (config.databaseUrl) database = where(config.databaseUrl);
  switch (cmd) {
    case "serve":
      return serve(config);
    case "migrate": {
      let r: { applied: string[]; version: number };
      if (config.databaseUrl) {
        const sql = openPg(config.databaseUrl, { max: 1 });
        r = await migratePg(sql).finally(() => sql.close());
      } else {
        const db = openDb(config.dataDir);
        r = migrate(db);
        db.close();
      }
      return console.log(r.applied.length ? `Applied: ${r.applied.join(", ")}` : `Up to date (schema version ${r.version})`);
    }
    case "backup":
      return console.log(`Backup written to ${backup(config, rest[0])}`);
    case "migrate-data":
      return console.log(await migrateData(config, rest));
    case "user":
      return console.log(await userCommand(config, rest));
    case "api-key":
      return console.log(await apiKeyCommand(config, rest));
    case "webhook":
      return console.log(await webhookCommand(config, rest));
    case "healthcheck": {
      // The container image has no curl: the binary checks itself.
      const res = await fetch(`http://127.0.0.1:${config.port}/api/health`).catch(() => null);
      if (!res?.ok) process.exit(1);
      return console.log("ok");
    }
    default:
      console.error(`Unknown command: ${cmd}\n\n${HELP}`);
      process.exit(2);
  }
}

/** Where DATABASE_URL points (host:port/database, never the password), once the config is read. */
let database: string | null = null;

main(process.argv.slice(2)).catch((e) => {
  // Bun's PostgreSQL errors say "Failed to connect" and no more: name the server they concern.
  const server = database && e instanceof Error && e.name === "PostgresError" ? `PostgreSQL at ${database} (DATABASE_URL): ` : "";
  console.error(e instanceof ConfigError ? e.message : `Error: ${server}${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
