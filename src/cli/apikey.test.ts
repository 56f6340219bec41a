// threadlink api-key create|revoke, against the same database the app serves (SQLite, or PostgreSQL
// with TEST_BACKEND=postgres: the command opens it from DATABASE_URL as the binary does).
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { apiKeyCommand } from "./apikey";

const t = await setup();
const dana = await t.signUp("dana");
const use = (key: string, method = "GET", body?: Record<string, unknown>) => t.call(method, "/api/links", { body, headers: { authorization: `Bearer ${key}` } });

describe("threadlink api-key", () => {
  test("create prints the key once (last line); it works with its scope; revoke by prefix stops it", async () => {
    const out = await apiKeyCommand(t.config, ["create", "Dana", "deploy bot", "--scope", "read", "--only", "links"]);
    const key = out.split("\n").at(-1)!;
    expect(key).toMatch(/^tl_[A-Za-z0-9_-]{43}$/);
    expect(out).toContain(`Created API key ${key.slice(0, 11)}… "deploy bot" for dana (read, only links)`);
    const row = await t.database.get("SELECT * FROM api_keys WHERE user_id = ?", dana.user.id);
    expect(row).toMatchObject({ name: "deploy bot", scope: "read", only_area: "links", prefix: key.slice(0, 11) });
    expect((await use(key)).status).toBe(200);
    expect((await use(key, "POST", { originalUrl: "https://example.com/", title: "x" })).status).toBe(403);
    expect(await apiKeyCommand(t.config, ["revoke", "dana", key.slice(0, 11)])).toBe(`Revoked API key ${key.slice(0, 11)} "deploy bot" of dana`);
    expect((await use(key)).status).toBe(401);
  });

  test("list shows a user's keys, one a line, and never the key itself; another user's keys are not listed", async () => {
    const eve = await t.signUp("eve");
    const mine = (await apiKeyCommand(t.config, ["create", "dana", "report job", "--scope", "read-write"])).split("\n").at(-1)!;
    const theirs = (await apiKeyCommand(t.config, ["create", "eve", "eve's bot", "--scope", "read"])).split("\n").at(-1)!;
    await use(mine);
    const out = await apiKeyCommand(t.config, ["list", "dana"]);
    const lines = out.split("\n");
    expect(lines[0]).toBe("prefix\tscope\tonly\tcreated\tlast used\tname");
    const row = lines.find((l) => l.startsWith(mine.slice(0, 11)))!.split("\t");
    expect(row[1]).toBe("read-write");
    expect(row[2]).toBe("-");
    expect(row[3]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(row[4]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(row[5]).toBe("report job");
    expect(out).not.toContain(mine);
    expect(out).not.toContain(theirs.slice(0, 11));
    expect(await apiKeyCommand(t.config, ["list", "nobody-here"]).catch((e: Error) => e.message)).toBe("No user named nobody-here");
    const fresh = await t.signUp("fresh-user");
    expect(await apiKeyCommand(t.config, ["list", "fresh-user"])).toBe("fresh-user has no API keys");
    expect(eve.user.id).not.toBe(fresh.user.id);
  });

  const refused: { name: string; args: string[]; message: RegExp }[] = [
    { name: "list with an extra argument", args: ["list", "dana", "x"], message: /Usage/ },
    { name: "list with an option", args: ["list", "dana", "--scope", "read"], message: /Usage/ },
    { name: "no scope", args: ["create", "dana", "x"], message: /Scope must be read or read-write/ },
    { name: "a wrong scope", args: ["create", "dana", "x", "--scope", "admin"], message: /Scope must be read or read-write/ },
    { name: "a wrong limit", args: ["create", "dana", "x", "--scope", "read", "--only", "users"], message: /Limit must be links or topics/ },
    { name: "an unknown option", args: ["create", "dana", "x", "--scope", "read", "--forever"], message: /Unknown option --forever/ },
    { name: "an unknown user", args: ["create", "nobody", "x", "--scope", "read"], message: /No user named nobody/ },
    { name: "a name too long", args: ["create", "dana", "n".repeat(51), "--scope", "read"], message: /at most 50/ },
    { name: "a missing name", args: ["create", "dana"], message: /Usage/ },
    { name: "revoking an unknown prefix", args: ["revoke", "dana", "tl_nothing"], message: /no API key with the prefix tl_nothing/ },
    { name: "an unknown subcommand", args: ["rotate", "dana", "x"], message: /Usage/ },
  ];
  for (const r of refused) {
    test(`refuses ${r.name}, and makes no key`, async () => {
      const before = await t.count("api_keys");
      await expect(apiKeyCommand(t.config, r.args)).rejects.toThrow(r.message);
      expect(await t.count("api_keys")).toBe(before);
    });
  }
});
