// The web app's pages as the server answers them: status codes a browser or crawler reads.
import { describe, expect, test } from "bun:test";
import { setup } from "../test/helpers";

const t = await setup();

describe("a page route without its part is 'Page Not Found' with a 404 (issue 13)", () => {
  const cases: [string, number][] = [
    ["/share/", 404],
    ["/share", 404],
    ["/invite/", 404],
    ["/invite", 404],
    // With their part they are pages (the app itself reports an unknown user or code).
    ["/share/alice", 200],
    ["/invite/abc123", 200],
    ["/about", 200],
  ];
  for (const [path, status] of cases) {
    test(`GET ${path} → ${status}, the app's HTML`, async () => {
      const r = await t.call("GET", path);
      expect(r.status).toBe(status);
      expect(r.headers.get("content-type")).toContain("text/html");
      expect(r.text).toContain('<div id="root">');
    });
  }
});

describe("the dashboard's first data is preloaded while its script downloads", () => {
  test("signed out: /api/user only; other pages: no preload", async () => {
    const r = await t.call("GET", "/");
    expect(r.headers.get("link")).toBe("</api/user>; rel=preload; as=fetch; crossorigin=use-credentials");
    expect((await t.call("GET", "/about")).headers.get("link")).toBeNull();
  });

  test("with a session cookie: /api/user and /api/topics, as the app's own fetches ask for them", async () => {
    const { cookie } = await t.signUp("preloader");
    expect(cookie.startsWith("tl_session=")).toBe(true);
    const r = await t.call("GET", "/", { cookie });
    expect(r.headers.get("link")).toBe(
      "</api/user>; rel=preload; as=fetch; crossorigin=use-credentials, </api/topics>; rel=preload; as=fetch; crossorigin=use-credentials",
    );
  });
});

describe("the sign-in page's chunks download beside the entry, not after it (issue 13)", () => {
  test("GET /auth names the session check and its lazy chunks as module preloads, each served as a script", async () => {
    const link = (await t.call("GET", "/auth")).headers.get("link") ?? "";
    const [user, ...rest] = link.split(", ");
    expect(user).toBe("</api/user>; rel=preload; as=fetch; crossorigin=use-credentials");
    const chunks = rest.map((l) => /^<(\/chunk-[a-z0-9]+\.js)>; rel=modulepreload$/.exec(l)?.[1]);
    expect(chunks.length).toBeGreaterThan(0);
    let bodies = "";
    for (const c of chunks) {
      expect(c).toBeString();
      const r = await t.call("GET", c!);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain("javascript");
      bodies += r.text;
    }
    // The sign-in page itself is among them (its heading is a string literal in its chunk).
    expect(bodies).toContain("Welcome back");
  });
});
