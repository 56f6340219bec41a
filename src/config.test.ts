import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "./config";

test("defaults make a working local instance", () => {
  const c = loadConfig({});
  expect(c).toMatchObject({
    port: 3000,
    dataDir: "./data",
    publicUrl: "http://localhost:3000",
    appHost: "localhost:3000",
    shortDomain: "localhost:3000",
    brandDomain: "localhost:3000",
    shortBaseUrl: "http://localhost:3000",
    appName: "Threadlink",
    brandName: "Pic Drift",
    registration: "open",
    freeTopicLimit: 5,
    allowSelfUpgrade: true,
    phonePrefix: "+1555",
    ipStorage: "truncated",
    secureCookies: false,
    rootRedirectUrl: "http://localhost:3000/",
  });
});

test("a bad configuration names every bad variable at once", () => {
  let err: ConfigError | null = null;
  try {
    loadConfig({ PORT: "eighty", PUBLIC_URL: "ftp://x", REGISTRATION: "maybe", IP_STORAGE: "all", FREE_TOPIC_LIMIT: "-1" });
  } catch (e) {
    err = e as ConfigError;
  }
  expect(err).toBeInstanceOf(ConfigError);
  const text = err!.message;
  for (const name of ["PORT", "PUBLIC_URL", "REGISTRATION", "IP_STORAGE", "FREE_TOPIC_LIMIT"]) expect(text).toContain(name);
  expect(err!.problems.length).toBe(5);
});

test("NAME_FILE reads a secret from a file; the plain variable wins", () => {
  const dir = mkdtempSync(join(tmpdir(), "threadlink-cfg-"));
  const file = join(dir, "url");
  writeFileSync(file, "https://links.example.test\n");
  expect(loadConfig({ PUBLIC_URL_FILE: file }).publicUrl).toBe("https://links.example.test");
  expect(loadConfig({ PUBLIC_URL_FILE: file }).secureCookies).toBe(true);
  expect(loadConfig({ PUBLIC_URL_FILE: file, PUBLIC_URL: "http://a.test" }).publicUrl).toBe("http://a.test");
  expect(() => loadConfig({ PUBLIC_URL_FILE: join(dir, "missing") })).toThrow(/PUBLIC_URL_FILE: cannot read/);
});

test("short domains follow PUBLIC_URL's scheme", () => {
  const c = loadConfig({ PUBLIC_URL: "https://app.example.test", SHORT_DOMAIN: "ex.io", BRAND_DOMAIN: "Pic.Drift" });
  expect(c.shortBaseUrl).toBe("https://ex.io");
  expect(c.brandBaseUrl).toBe("https://pic.drift");
  expect(() => loadConfig({ SHORT_DOMAIN: "http://ex.io/path" })).toThrow(/SHORT_DOMAIN/);
});

test("TRUSTED_PROXIES takes IP addresses and CIDR ranges, and refuses anything else by name", () => {
  expect(loadConfig({ TRUSTED_PROXIES: " 10.0.0.0/8, 192.0.2.7 ,::1, fd00::/8" }).trustedProxies).toEqual(["10.0.0.0/8", "192.0.2.7", "::1", "fd00::/8"]);
  for (const bad of ["10.0.0.0/33", "fd00::/129", "proxy.example", "10.0.0", "256.1.1.1", "10.0.0.1/", "::1::2"]) {
    expect(() => loadConfig({ TRUSTED_PROXIES: `127.0.0.1,${bad}` })).toThrow(`TRUSTED_PROXIES must list IP addresses or CIDR ranges (not ${bad})`);
  }
});

test("API rate limits: per minute, 0 turns one off, and a bad value stops start-up by name", () => {
  expect(loadConfig({})).toMatchObject({ apiRateLimit: 300, apiAnonRateLimit: 120 });
  expect(loadConfig({ API_RATE_LIMIT: "30", API_ANON_RATE_LIMIT: "0" })).toMatchObject({ apiRateLimit: 30, apiAnonRateLimit: 0 });
  const bad: [Record<string, string>, string][] = [
    [{ API_RATE_LIMIT: "fast" }, "API_RATE_LIMIT: API_RATE_LIMIT must be a whole number"],
    [{ API_RATE_LIMIT: "-5" }, "API_RATE_LIMIT: API_RATE_LIMIT must be a whole number"],
    [{ API_RATE_LIMIT: "1.5" }, "API_RATE_LIMIT: API_RATE_LIMIT must be a whole number"],
    [{ API_RATE_LIMIT: "1000001" }, "API_RATE_LIMIT: API_RATE_LIMIT must be at most 1000000"],
    [{ API_ANON_RATE_LIMIT: "lots" }, "API_ANON_RATE_LIMIT: API_ANON_RATE_LIMIT must be a whole number"],
  ];
  for (const [env, problem] of bad) {
    let err: ConfigError | null = null;
    try {
      loadConfig(env);
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.problems).toEqual([problem]);
  }
});
