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
