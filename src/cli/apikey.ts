import * as v from "valibot";
import type { Config } from "../config";
import { openDatabase } from "../db/connect";
import { accountsStore } from "../accounts/store";
import { hashToken } from "../http/auth";
import { apiKeysStore } from "../apikeys/store";
import { CreateApiKeyBody } from "../apikeys/schema";
import { newApiKey } from "../apikeys/access";

const USAGE = "Usage: threadlink api-key create USERNAME NAME --scope read|read-write [--only links|topics] | revoke USERNAME PREFIX | list USERNAME";

/** `--flag value` pairs after the positional arguments. */
function flags(args: string[]) {
  const positional: string[] = [];
  const named: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("--")) positional.push(a);
    else if (a === "--scope" || a === "--only") named[a.slice(2)] = args[++i] ?? "";
    else throw new Error(`Unknown option ${a}\n${USAGE}`);
  }
  return { positional, named };
}

/**
 * threadlink api-key create|revoke|list … — keys for scripts on a server without a browser at hand.
 * The created key is the command's only output line but one, so `| tail -1` captures it.
 */
export async function apiKeyCommand(config: Config, args: string[]) {
  const [sub, ...rest] = args;
  const { db } = await openDatabase(config);
  const accounts = accountsStore(db);
  const keys = apiKeysStore(db);
  try {
    const { positional, named } = flags(rest);
    const [username, arg] = positional;
    const wanted = sub === "list" ? 1 : 2;
    if (!username || positional.length !== wanted || (sub === "list" && Object.keys(named).length > 0)) throw new Error(USAGE);
    const u = await accounts.findByUsername(username.toLowerCase());
    if (!u) throw new Error(`No user named ${username}`);
    switch (sub) {
      case "list": {
        // One key a line, tab-separated (prefix, scope, area, created, last used, name): the name
        // last, since it is the only field that may hold spaces.
        const rows = await keys.list(u.id);
        if (rows.length === 0) return `${u.username} has no API keys`;
        const head = "prefix\tscope\tonly\tcreated\tlast used\tname";
        return [head, ...rows.map((k) => [k.prefix, k.scope, k.only_area ?? "-", k.created_at, k.last_used_at ?? "never", k.name].join("\t"))].join("\n");
      }
      case "create": {
        if (!arg) throw new Error(USAGE);
        // The web form's own schema: the same names, scopes and messages.
        const r = v.safeParse(CreateApiKeyBody, { name: arg, scope: named.scope ?? "", only: named.only ?? "" });
        if (!r.success) throw new Error(r.issues[0].message);
        const { key, prefix } = newApiKey();
        await keys.create(u.id, { name: r.output.name, prefix, hash: hashToken(key), scope: r.output.scope, only: r.output.only });
        const limit = r.output.only ? `, only ${r.output.only}` : "";
        return `Created API key ${prefix}… "${r.output.name}" for ${u.username} (${r.output.scope}${limit}). It is shown once:\n${key}`;
      }
      case "revoke": {
        const found = await keys.byPrefix(u.id, arg);
        if (found.length === 0) throw new Error(`${u.username} has no API key with the prefix ${arg}`);
        // Two keys sharing 8 random characters is a 1-in-2^48 event, but never revoke a guess.
        if (found.length > 1) throw new Error(`More than one key of ${u.username} starts with ${arg}; revoke it in the web app`);
        await keys.revoke(found[0]!.id, u.id);
        return `Revoked API key ${arg} "${found[0]!.name}" of ${u.username}`;
      }
      default:
        throw new Error(USAGE);
    }
  } finally {
    await db.close();
  }
}
