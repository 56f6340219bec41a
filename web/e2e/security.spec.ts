// Security by default in the browser: the strict Content-Security-Policy is sent, and using the
// app's main pages (including the QR video engine's worker and wasm) never trips it.
import { expect, test, type Page } from "@playwright/test";
import { PNG } from "pngjs";
import { registerViaApi, uniqueName } from "./helpers";

/**
 * Every CSP violation the page reports, across navigations: the document's
 * 'securitypolicyviolation' events, and Chromium's console message for a refusal (which is
 * also how a violation inside a worker surfaces).
 */
async function watchViolations(page: Page) {
  const violations: string[] = [];
  await page.exposeFunction("__reportCspViolation", (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __reportCspViolation: (v: string) => void }).__reportCspViolation(
        `${location.pathname}: ${e.effectiveDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`,
      );
    });
  });
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(`console: ${m.text()}`);
  });
  return violations;
}

function logoPng(): Buffer {
  const png = new PNG({ width: 64, height: 64 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([200, 40, 40, 255], i);
  return PNG.sync.write(png);
}

test("the HTML is served with the strict policy and the security headers", async ({ page }) => {
  const res = await page.goto("/auth");
  const h = res!.headers();
  const csp = h["content-security-policy"] ?? "";
  for (const directive of [
    "default-src 'self'",
    "worker-src 'self' blob:",
    "style-src 'self';",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ])
    expect(csp).toContain(directive);
  expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/]{43}='(;|$)/);
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["x-frame-options"]).toBe("DENY");
});

test("the policy is enforced: injected inline script is refused and reported", async ({ page }) => {
  const violations = await watchViolations(page);
  await page.goto("/auth");
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  const ran = await page.evaluate(async () => {
    const s = document.createElement("script");
    s.textContent = "window.__injected = true";
    document.head.append(s);
    await new Promise((r) => setTimeout(r, 100));
    return (window as unknown as { __injected?: boolean }).__injected === true;
  });
  expect(ran).toBe(false);
  await expect.poll(() => violations.some((v) => v.includes("script-src"))).toBe(true);
});

test("using the main pages never violates the policy", async ({ page }) => {
  test.setTimeout(120_000);
  const violations = await watchViolations(page);

  // Signed out: the sign-in page, with the theme script (allowed by its hash) in dark mode.
  await page.goto("/auth");
  await page.evaluate(() => localStorage.setItem("theme", "dark"));
  await page.reload();
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  await expect(page.locator("html")).toHaveClass(/dark/);

  const user = await registerViaApi(page.request, uniqueName("csp"));
  const topic = await (await page.request.post("/api/topics", { data: { name: "Policy Checks" } })).json();
  const api = `/api/${user}/${topic.linkSlug}/titles`;
  expect((await page.request.post(api, { data: { name: "Links", notes: "see https://example.com/a and www.example.org", version: 1 } })).status()).toBe(201);
  const link = await page.request.post("/api/links", { data: { originalUrl: "https://example.com/csp", title: "Csp Card" } });
  expect(link.status(), await link.text()).toBe(201);

  await page.goto("/");
  await expect(page.getByText("Policy Checks").first()).toBeVisible();
  await page.getByRole("button", { name: "Add Topic" }).click();
  await page.keyboard.press("Escape");

  await page.goto(`/topic/${user}/${topic.linkSlug}`);
  await expect(page.getByText("Links").first()).toBeVisible();
  await page.goto(`/${user}/${topic.linkSlug}/links`);
  await expect(page.getByRole("heading", { name: "Links", level: 1 })).toBeVisible();

  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "Analytics for Csp Card" }).click();
  const analytics = page.getByRole("dialog", { name: "Analytics: Csp Card" });
  await expect(analytics).toBeVisible();
  await page.keyboard.press("Escape");

  for (const path of ["/pricing", "/notifications", "/about"]) {
    await page.goto(path);
    await expect(page.locator("#root *").first()).toBeVisible();
  }
  await page.goto("/this/path/does/not/exist/at-all");
  await expect(page.getByRole("heading", { name: "Page Not Found" })).toBeVisible();
  // An unknown short code: the redirect page.
  await page.goto("/zz9unknowncode");
  await expect(page.locator("#root *").first()).toBeVisible();

  // The QR page: a data:/blob: logo preview, the PNG preview, and the video engine, whose
  // module worker and wasm load under the policy ('wasm-unsafe-eval', worker-src).
  await page.goto("/qr");
  await page.getByLabel("URL", { exact: true }).fill("https://example.com/csp");
  await page.getByLabel("Logo (optional)").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logoPng() });
  await expect(page.getByRole("button", { name: "Remove logo" })).toBeVisible();
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("QR code generated successfully")).toBeVisible();
  await page.getByLabel("Export Type").selectOption({ label: "Video Animation" });
  await expect(page.getByText("Video engine ready.")).toBeVisible({ timeout: 60_000 });

  expect(violations).toEqual([]);
});
