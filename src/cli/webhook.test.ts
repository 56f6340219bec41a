// threadlink webhook list|add|remove|enable against the database the app serves (both backends).
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";
import { webhookCommand } from "./webhook";

const t = await setup();
const dana = await t.signUp("dana");
const eve = await t.signUp("eve");

describe("threadlink webhook", () => {
  test("add prints the secret last; list shows it; the API sees the same; enable clears failures; remove deletes", async () => {
    const out = await webhookCommand(t.config, ["add", "Dana", "https://hooks.example.com/in", "--events", "link.created,clicks.recorded"]);
    const secret = out.split("\n").at(-1)!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const id = Number(/Added webhook (\d+)/.exec(out)![1]);
    expect(await webhookCommand(t.config, ["list", "dana"])).toBe(`${id}\ton\thttps://hooks.example.com/in\tlink.created,clicks.recorded`);
    const api = (await t.call("GET", "/api/webhooks", { cookie: dana.cookie })).json;
    expect(api).toMatchObject([{ id, url: "https://hooks.example.com/in", events: ["link.created", "clicks.recorded"], secretHint: secret.slice(-4) }]);
    await t.database.run("UPDATE webhooks SET enabled = 0, failures = 20 WHERE id = ?", id);
    expect(await webhookCommand(t.config, ["list", "dana"])).toBe(`${id}\toff\thttps://hooks.example.com/in\tlink.created,clicks.recorded\t20 failures`);
    await webhookCommand(t.config, ["enable", "dana", String(id)]);
    expect(await t.database.get("SELECT enabled, failures FROM webhooks WHERE id = ?", id)).toEqual({ enabled: 1, failures: 0 });
    // Another user's webhook is not found by its id.
    await expect(webhookCommand(t.config, ["remove", "eve", String(id)])).rejects.toThrow(`eve has no webhook ${id}`);
    expect(await webhookCommand(t.config, ["remove", "dana", String(id)])).toBe(`Removed webhook ${id} (https://hooks.example.com/in) of dana`);
    expect(await t.count("webhooks")).toBe(0);
  });

  const refused: { name: string; args: string[]; message: RegExp }[] = [
    { name: "no events", args: ["add", "dana", "https://x.example/"], message: /Choose at least one event/ },
    { name: "an unknown event", args: ["add", "dana", "https://x.example/", "--events", "link.exploded"], message: /Unknown event type/ },
    { name: "a bad URL", args: ["add", "dana", "ftp://x.example/", "--events", "link.created"], message: /starting with https:\/\/ or http:\/\// },
    { name: "another user's link", args: ["add", "dana", "https://x.example/", "--events", "link.created", "--links", "999999"], message: /Choose links of your own/ },
    { name: "an unknown option", args: ["add", "dana", "https://x.example/", "--forever"], message: /Unknown option --forever/ },
    { name: "an unknown user", args: ["list", "nobody"], message: /No user named nobody/ },
    { name: "an unknown subcommand", args: ["rotate", "dana"], message: /Usage/ },
  ];
  for (const r of refused) {
    test(`refuses ${r.name}, and adds nothing`, async () => {
      await expect(webhookCommand(t.config, r.args)).rejects.toThrow(r.message);
      expect(await t.count("webhooks")).toBe(0);
    });
  }
  test("eve's list is her own", async () => {
    expect(await webhookCommand(t.config, ["list", "eve"])).toBe("eve has no webhooks");
    expect(eve.user.username).toBe("eve");
  });
});
