import type { Config } from "../config";
import { openDatabase } from "../db/connect";
import { accountsStore } from "../accounts/store";
import { hashPassword } from "../accounts/password";
import * as v from "valibot";
import { Email, Password, Username } from "../accounts/schema";
import { DAY_MS } from "../shared/time";

async function readPassword(): Promise<string> {
  if (process.env.THREADLINK_PASSWORD) return process.env.THREADLINK_PASSWORD;
  if (process.stdin.isTTY) return prompt("Password:") ?? "";
  const text = await new Response(Bun.stdin.stream()).text();
  return text.split(/\r?\n/)[0] ?? "";
}

function check<T>(schema: v.GenericSchema<unknown, T>, value: unknown): T {
  const r = v.safeParse(schema, value);
  if (!r.success) throw new Error(r.issues[0].message);
  return r.output;
}

const USAGE = "Usage: threadlink user create USERNAME EMAIL | set-plan USERNAME free|premium [DAYS] | reset-password USERNAME [--keep-keys]";

/** threadlink user create|set-plan|reset-password … — for closed-registration instances and support. */
export async function userCommand(config: Config, args: string[]) {
  const [sub, ...rest] = args;
  const { db } = await openDatabase(config);
  const accounts = accountsStore(db);
  try {
    switch (sub) {
      case "create": {
        const [name, mail] = rest;
        const username = check(Username, name ?? "");
        const email = check(Email, mail ?? "");
        const clash = await accounts.takenConflict(username, email);
        if (clash) throw new Error(clash.message);
        const password = check(Password, await readPassword());
        const hash = await hashPassword(password);
        const u = await accounts.createUser(username, hash, email);
        return `Created user ${u.username} (id ${u.id})`;
      }
      case "set-plan": {
        const [name, plan, daysArg] = rest;
        const u = await accounts.findByUsername((name ?? "").toLowerCase());
        if (!u) throw new Error(`No user named ${name}`);
        if (plan !== "free" && plan !== "premium") throw new Error("Plan must be free or premium");
        const days = daysArg === undefined ? null : Number(daysArg);
        if (days !== null && (!Number.isInteger(days) || days < 1)) throw new Error("Days must be a whole number of at least 1");
        const expires = plan === "premium" && days ? new Date(Date.now() + days * DAY_MS).toISOString() : null;
        await accounts.setPlan(u.id, plan, expires);
        return `${u.username} is now on the ${plan} plan${expires ? ` until ${expires}` : ""}`;
      }
      case "reset-password": {
        const keepKeys = rest.includes("--keep-keys");
        const positional = rest.filter((a) => a !== "--keep-keys");
        const unknown = positional.find((a) => a.startsWith("--"));
        if (unknown) throw new Error(`Unknown option ${unknown}\n${USAGE}`);
        const [name] = positional;
        const u = await accounts.findByUsername((name ?? "").toLowerCase());
        if (!u) throw new Error(`No user named ${name}`);
        const password = check(Password, await readPassword());
        const revoked = await accounts.setPassword(u.id, await hashPassword(password), { keepKeys });
        const keys = keepKeys ? "their API keys were kept" : `${revoked} API key${revoked === 1 ? " was" : "s were"} revoked`;
        return `Password changed for ${u.username}; their sessions were signed out and ${keys}`;
      }
      default:
        throw new Error(USAGE);
    }
  } finally {
    await db.close();
  }
}
