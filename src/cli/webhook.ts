import * as v from "valibot";
import type { Config } from "../config";
import { openDatabase } from "../db/connect";
import { accountsStore } from "../accounts/store";
import { webhooksStore } from "../webhooks/store";
import { CreateWebhookBody, MAX_WEBHOOKS, WEBHOOK_MSG } from "../webhooks/schema";
import { newSecret, webhookView } from "../webhooks/routes";
import { urlProblem } from "../webhooks/send";

const USAGE =
  "Usage: threadlink webhook list USERNAME | add USERNAME URL --events TYPE,TYPE [--links ID,ID] | remove USERNAME ID | enable USERNAME ID";

function flags(args: string[]) {
  const positional: string[] = [];
  const named: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith("--")) positional.push(a);
    else if (a === "--events" || a === "--links") named[a.slice(2)] = args[++i] ?? "";
    else throw new Error(`Unknown option ${a}\n${USAGE}`);
  }
  return { positional, named };
}

const split = (s: string) => s.split(",").map((x) => x.trim()).filter(Boolean);

/**
 * threadlink webhook list|add|remove|enable … — the Settings → Webhooks screen for a server
 * without a browser at hand. `add` prints the secret once, on its last line.
 */
export async function webhookCommand(config: Config, args: string[]) {
  const [sub, ...rest] = args;
  const { db } = await openDatabase(config);
  const hooks = webhooksStore(db);
  try {
    const { positional, named } = flags(rest);
    const [username, arg] = positional;
    if (!username || positional.length > 2) throw new Error(USAGE);
    const u = await accountsStore(db).findByUsername(username.toLowerCase());
    if (!u) throw new Error(`No user named ${username}`);
    const own = async () => {
      const w = arg && /^\d{1,9}$/.test(arg) ? await hooks.get(Number(arg), u.id) : null;
      if (!w) throw new Error(`${u.username} has no webhook ${arg ?? ""}`.trim());
      return w;
    };
    switch (sub) {
      case "list": {
        const rows = (await hooks.list(u.id)).map(webhookView);
        if (rows.length === 0) return `${u.username} has no webhooks`;
        return rows
          .map((w) => `${w.id}\t${w.enabled ? "on" : "off"}\t${w.url}\t${w.events.join(",")}${w.linkIds ? `\tlinks ${w.linkIds.join(",")}` : ""}${w.failures ? `\t${w.failures} failures` : ""}`)
          .join("\n");
      }
      case "add": {
        // The API's own schema and rules: the same event names, limits and messages.
        const linkIds = named.links ? split(named.links).map(Number) : null;
        const r = v.safeParse(CreateWebhookBody, { url: arg ?? "", events: split(named.events ?? ""), linkIds });
        if (!r.success) throw new Error(r.issues[0].message);
        const problem = urlProblem(r.output.url, config.webhookAllowPrivate);
        if (problem) throw new Error(problem);
        if (r.output.linkIds && (await hooks.ownLinkCount(u.id, r.output.linkIds)) !== new Set(r.output.linkIds).size) throw new Error(WEBHOOK_MSG.links);
        if ((await hooks.count(u.id)) >= MAX_WEBHOOKS) throw new Error(WEBHOOK_MSG.tooMany);
        const secret = newSecret();
        const w = await hooks.create(u.id, { url: r.output.url, secret, events: r.output.events, linkIds: r.output.linkIds });
        return `Added webhook ${w.id} for ${u.username} to ${w.url}. Its signing secret is shown once:\n${secret}`;
      }
      case "remove": {
        const w = await own();
        await hooks.remove(w.id, u.id);
        return `Removed webhook ${w.id} (${w.url}) of ${u.username}`;
      }
      case "enable": {
        const w = await own();
        const view = webhookView(w);
        await hooks.update(w.id, u.id, { url: w.url, events: view.events, linkIds: view.linkIds, enabled: true, secret: w.secret });
        return `Webhook ${w.id} of ${u.username} is on (failure count cleared)`;
      }
      default:
        throw new Error(USAGE);
    }
  } finally {
    await db.close();
  }
}
