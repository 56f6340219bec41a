// Styled QR codes (issue 25) against the compiled binary: every styled PNG and SVG the app
// offers reads back with jsQR to its exact URL (the SVG rasterised by the browser itself),
// colour pairs that cannot scan are refused with the reason, saved styles, keyboard only,
// 360 px, the Tools menu's screens starting at their heading, and the main tracker's referrers.
import { expect, test, type Download, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { PNG } from "pngjs";
import jsQR from "jsqr";
import JSZip from "jszip";
import { expectNoHorizontalOverflow, registerViaApi, trackOutsideRequests } from "./helpers";

type Style = { foreground: string; background: string; dots: "Square" | "Rounded" | "Dots"; corners: "Square" | "Rounded" | "Circles"; frame: string };

function decodePngBytes(bytes: Buffer) {
  const png = PNG.sync.read(bytes);
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  return { width: png.width, height: png.height, text: code?.data ?? null };
}

/** The SVG drawn by the browser (as a viewer would show it) at its own size, then read by jsQR here. */
async function decodeSvg(page: Page, svg: string) {
  const dataUrl = await page.evaluate(async (text) => {
    const src = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    const img = new Image();
    img.src = src;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.naturalWidth;
    c.height = img.naturalHeight;
    c.getContext("2d")!.drawImage(img, 0, 0);
    URL.revokeObjectURL(src);
    return c.toDataURL("image/png");
  }, svg);
  return decodePngBytes(Buffer.from(dataUrl.split(",")[1]!, "base64"));
}

/** A framed code is wider than 1500 px (the code itself stays 1500) and taller than wide (the band); else the spec's square. */
function expectSize(img: { width: number; height: number }, framed: boolean) {
  if (!framed) return expect([img.width, img.height]).toEqual([1500, 1500]);
  expect(img.width).toBeGreaterThan(1500);
  expect(img.height).toBeGreaterThan(img.width);
}

const bytes = async (d: Download) => readFileSync((await d.path())!);

async function downloadBy(page: Page, name: string) {
  const wait = page.waitForEvent("download", { timeout: 30_000 });
  await page.getByRole("button", { name, exact: true }).click();
  return wait;
}

async function setStyle(page: Page, s: Style) {
  await page.getByLabel("Foreground colour", { exact: true }).fill(s.foreground);
  await page.getByLabel("Background colour", { exact: true }).fill(s.background);
  await page.getByLabel("Dot shape").selectOption({ label: s.dots });
  await page.getByLabel("Corner shape").selectOption({ label: s.corners });
  await page.getByLabel("Frame text (optional)").fill(s.frame);
}

let outside: string[] = [];
test.beforeEach(async ({ page }) => {
  outside = trackOutsideRequests(page);
  await registerViaApi(page.request);
});
test.afterEach(() => expect(outside).toEqual([]));

const STYLES: Style[] = [
  { foreground: "#000000", background: "#ffffff", dots: "Square", corners: "Square", frame: "" },
  { foreground: "#0b3d91", background: "#fff8dc", dots: "Rounded", corners: "Rounded", frame: "Scan me" },
  { foreground: "#1b5e20", background: "#ffffff", dots: "Dots", corners: "Circles", frame: "" },
  { foreground: "#4a148c", background: "#f3e5f5", dots: "Dots", corners: "Square", frame: "Menu 🍝 inside" },
  { foreground: "#7f1d1d", background: "#fefce8", dots: "Square", corners: "Circles", frame: "" },
  { foreground: "#222222", background: "#e0f7fa", dots: "Rounded", corners: "Circles", frame: "Tickets" },
  // Read only at 750 px, not at full size, while the band sat one module under the code.
  { foreground: "#0b3d91", background: "#ffffff", dots: "Rounded", corners: "Square", frame: "Scan for the menu" },
];

test("every styled PNG and SVG reads back to its URL; framed codes are taller; the default is the spec's", async ({ page }) => {
  const url = "https://example.com/spring-sale?utm_source=poster";
  await page.goto("/qr");
  await page.getByLabel("URL", { exact: true }).fill(url);
  for (const s of STYLES) {
    await setStyle(page, s);
    await page.getByRole("button", { name: "Generate" }).click();
    await expect(page.getByText(`Checked: scans to ${url}`)).toBeVisible();
    const png = decodePngBytes(await bytes(await downloadBy(page, "Download")));
    expect(png.text, JSON.stringify(s)).toBe(url);
    expectSize(png, s.frame !== "");
    const svgDownload = await downloadBy(page, "Download SVG");
    expect(svgDownload.suggestedFilename()).toMatch(/^qr-code-\d+\.svg$/);
    const svg = (await bytes(svgDownload)).toString("utf8");
    expect(svg).toContain(`fill="${s.foreground}"`);
    if (s.frame) expect(svg).toContain(`>${s.frame}</text>`);
    // The SVG is the PNG's size, and reads back too.
    expect(await decodeSvg(page, svg), JSON.stringify(s)).toEqual(png);
  }
  // The default PNG is the spec's: black on white, pixel-exact modules (no grey edges).
  await setStyle(page, STYLES[0]!);
  await page.getByRole("button", { name: "Generate" }).click();
  const plain = PNG.sync.read(await bytes(await downloadBy(page, "Download")));
  const colours = new Set<string>();
  for (let i = 0; i < plain.data.length; i += 4 * 97) colours.add(`${plain.data[i]},${plain.data[i + 1]},${plain.data[i + 2]}`);
  expect([...colours].sort()).toEqual(["0,0,0", "255,255,255"]);
});

test("a styled, framed code with a logo: PNG and SVG (logo embedded) read back", async ({ page }) => {
  const logo = new PNG({ width: 120, height: 120 });
  for (let i = 0; i < logo.data.length; i += 4) logo.data.set([200, 30, 30, 255], i);
  const url = "https://example.com/logo";
  await page.goto("/qr");
  await page.getByLabel("Logo (optional)").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PNG.sync.write(logo) });
  await page.getByLabel("URL", { exact: true }).fill(url);
  await setStyle(page, { foreground: "#0b3d91", background: "#ffffff", dots: "Dots", corners: "Rounded", frame: "Scan for the menu" });
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText(`Checked: scans to ${url}`)).toBeVisible();
  expect(decodePngBytes(await bytes(await downloadBy(page, "Download"))).text).toBe(url);
  const svg = (await bytes(await downloadBy(page, "Download SVG"))).toString("utf8");
  expect(svg).toContain(`<image `);
  expect((await decodeSvg(page, svg)).text).toBe(url);
});

test("Both (ZIP) in a style: the ZIP's PNG is the styled, framed code and reads back; the MP4 is beside it", async ({ page }) => {
  test.setTimeout(180_000);
  const logo = new PNG({ width: 100, height: 100 });
  for (let i = 0; i < logo.data.length; i += 4) logo.data.set([30, 80, 200, 255], i);
  const url = "https://example.com/zip";
  await page.goto("/qr");
  await page.getByLabel("Logo (optional)").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PNG.sync.write(logo) });
  await page.getByLabel("URL", { exact: true }).fill(url);
  await setStyle(page, { foreground: "#4a148c", background: "#f3e5f5", dots: "Dots", corners: "Rounded", frame: "Scan me" });
  await page.getByLabel("Export Type").selectOption({ label: "Both (ZIP)" });
  await expect(page.getByText("Video engine ready.")).toBeVisible({ timeout: 60_000 });
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText(`Checked: scans to ${url}`)).toBeVisible();
  const wait = page.waitForEvent("download", { timeout: 150_000 });
  await page.getByRole("button", { name: "Download", exact: true }).click();
  const zipFile = await wait;
  expect(zipFile.suggestedFilename()).toBe("qr-code-package.zip");
  const zip = await JSZip.loadAsync(await bytes(zipFile));
  expect(Object.keys(zip.files).sort()).toEqual(["animation.mp4", "qr-code.png"]);
  const png = decodePngBytes(await zip.file("qr-code.png")!.async("nodebuffer"));
  expect(png.text).toBe(url);
  expectSize(png, true);
  // The style's colours are in the PNG (its background between the outline and the code).
  const raw = PNG.sync.read(await zip.file("qr-code.png")!.async("nodebuffer"));
  const mid = (raw.width * 100 + Math.round(raw.width / 2)) * 4;
  expect([raw.data[mid], raw.data[mid + 1], raw.data[mid + 2]]).toEqual([0xf3, 0xe5, 0xf5]);
  const mp4 = await zip.file("animation.mp4")!.async("nodebuffer");
  expect(mp4.toString("latin1", 4, 8)).toBe("ftyp");
});

test("colours too close to scan, and light on dark, are refused with the reason; nothing is downloaded", async ({ page }) => {
  const url = "https://example.com/contrast";
  await page.goto("/qr");
  await page.getByLabel("URL", { exact: true }).fill(url);
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText(`Checked: scans to ${url}`)).toBeVisible();

  let downloads = 0;
  page.on("download", () => downloads++);
  const fg = page.getByLabel("Foreground colour", { exact: true });
  await fg.fill("#aaaaaa");
  const reason = /These colours are too close to scan reliably \(contrast 2\.3:1; at least 4\.5:1 is needed\)/;
  await expect(page.locator(".field-error").filter({ hasText: reason })).toBeVisible();
  await expect(fg).toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText(reason).nth(1)).toBeVisible(); // the toast says it too
  await page.getByRole("button", { name: "Download", exact: true }).click();
  await page.getByRole("button", { name: "Download SVG" }).click();

  await fg.fill("#ffffff");
  await page.getByLabel("Background colour", { exact: true }).fill("#000000");
  const inverted = "Light dots on a dark background cannot be read by many scanners (the decoder here cannot read it either). Make the foreground the darker colour.";
  await expect(page.locator(".field-error").filter({ hasText: inverted })).toBeVisible();
  await page.getByRole("button", { name: "Download", exact: true }).click();
  await expect(page.getByText(inverted).nth(1)).toBeVisible();
  // (web/qr/qrStyle.test.ts shows the check's decoder does not read an inverted code at all.)
  expect(downloads).toBe(0);

  // Back to a readable pair: the error goes and downloads work again.
  await page.getByRole("button", { name: "Reset to black on white" }).click();
  await expect(page.locator(".field-error")).toHaveCount(0);
  expect(decodePngBytes(await bytes(await downloadBy(page, "Download"))).text).toBe(url);
});

test("saved styles: save, pick after a reload, update by name, use in the brand QR dialog, delete", async ({ page }) => {
  await page.goto("/qr");
  await expect(page.getByLabel("Saved styles")).toBeDisabled();
  await setStyle(page, { foreground: "#0b3d91", background: "#fff8dc", dots: "Rounded", corners: "Circles", frame: "Scan me" });
  await page.getByLabel("Style name").fill("Poster");
  await page.getByRole("button", { name: "Save style" }).click();
  await expect(page.getByText('Style "Poster" saved')).toBeVisible();
  // An empty name is refused on the form with the server's message.
  await page.getByLabel("Style name").fill("   ");
  await page.getByRole("button", { name: "Save style" }).click();
  await expect(page.getByText("Name is required")).toBeVisible();

  await page.reload();
  await page.getByLabel("Saved styles").selectOption({ label: "Poster" });
  await expect(page.getByLabel("Foreground colour", { exact: true })).toHaveValue("#0b3d91");
  await expect(page.getByLabel("Dot shape")).toHaveValue("rounded");
  await expect(page.getByLabel("Corner shape")).toHaveValue("dots");
  await expect(page.getByLabel("Frame text (optional)")).toHaveValue("Scan me");
  // Saving under the same name updates it.
  await page.getByLabel("Dot shape").selectOption({ label: "Dots" });
  await page.getByRole("button", { name: "Save style" }).click();
  await expect(page.getByText('Style "Poster" updated')).toBeVisible();
  const listed = (await (await page.request.get("/api/qr-styles")).json()) as { name: string; dots: string }[];
  expect(listed.map((s) => [s.name, s.dots])).toEqual([["Poster", "dots"]]);

  // The brand tracker's QR dialog offers it; both files read back to the short URL.
  const made = (await (await page.request.post("/api/pic-drift-links", { data: { originalUrl: "https://example.com/brand", title: "Brand poster" } })).json()) as { shortUrl: string };
  await page.goto("/pic-drift-link-tracker");
  await page.getByRole("button", { name: "More actions for Brand poster" }).click();
  await page.getByRole("menu").getByRole("menuitem", { name: "QR code" }).click();
  const dialog = page.getByRole("dialog", { name: "QR Code Generator" });
  await dialog.getByText("Style: colours, shapes and frame").click();
  await dialog.getByLabel("Saved styles").selectOption({ label: "Poster" });
  await expect(dialog.getByLabel("Frame text (optional)")).toHaveValue("Scan me");
  const pngDl = await (async () => {
    const w = page.waitForEvent("download");
    await dialog.getByRole("button", { name: "Download QR Code" }).click();
    return w;
  })();
  expect(pngDl.suggestedFilename()).toMatch(/\.png$/);
  const brandPng = decodePngBytes(await bytes(pngDl));
  expect(brandPng.text).toBe(`${made.shortUrl}?qr=1`);
  expectSize(brandPng, true);
  const svgDl = await (async () => {
    const w = page.waitForEvent("download");
    await dialog.getByRole("button", { name: "Download SVG" }).click();
    return w;
  })();
  expect(svgDl.suggestedFilename()).toMatch(/\.svg$/);
  expect((await decodeSvg(page, (await bytes(svgDl)).toString("utf8"))).text).toBe(`${made.shortUrl}?qr=1`);

  // Delete it from the dialog.
  await dialog.getByRole("button", { name: "Delete style" }).click();
  await expect(page.getByText('Style "Poster" deleted')).toBeVisible();
  expect(await (await page.request.get("/api/qr-styles")).json()).toEqual([]);
});

test("keyboard only: style a code and download it without the mouse", async ({ page }) => {
  const url = "https://example.com/keys";
  await page.goto("/qr");
  await page.getByLabel("URL", { exact: true }).focus();
  await page.keyboard.type(url);
  /** Tab forward until `label`'s control has focus (at most 40 presses). */
  const tabTo = async (locator: import("@playwright/test").Locator) => {
    for (let i = 0; i < 40; i++) {
      if (await locator.evaluate((el) => el === document.activeElement)) return;
      await page.keyboard.press("Tab");
    }
    await expect(locator).toBeFocused();
  };
  await tabTo(page.getByLabel("Foreground colour", { exact: true }));
  await page.keyboard.press("Control+A");
  await page.keyboard.type("#1b5e20");
  await tabTo(page.getByLabel("Dot shape"));
  await page.keyboard.press("ArrowDown"); // Rounded
  await tabTo(page.getByLabel("Corner shape"));
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown"); // Circles
  await tabTo(page.getByLabel("Frame text (optional)"));
  await page.keyboard.type("Scan");
  await tabTo(page.getByRole("button", { name: "Generate" }));
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Checked: scans to ${url}`)).toBeVisible();
  await expect(page.getByLabel("Dot shape")).toHaveValue("rounded");
  await expect(page.getByLabel("Corner shape")).toHaveValue("dots");
  await tabTo(page.getByRole("button", { name: "Download SVG" }));
  const wait = page.waitForEvent("download");
  await page.keyboard.press("Enter");
  expect((await decodeSvg(page, (await bytes(await wait)).toString("utf8"))).text).toBe(url);
});

test("360 px: the style controls and a framed preview fit; the brand dialog too", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/qr");
  await page.getByLabel("URL", { exact: true }).fill("https://example.com/phone");
  await setStyle(page, { foreground: "#0b3d91", background: "#ffffff", dots: "Dots", corners: "Rounded", frame: "Scan for the menu" });
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("Checked: scans to https://example.com/phone")).toBeVisible();
  const preview = page.getByRole("img", { name: "QR code for https://example.com/phone" });
  const box = (await preview.boundingBox())!;
  // The framed canvas keeps its own aspect (taller than wide) inside the phone's width.
  const [w, h] = await preview.evaluate((c: HTMLCanvasElement) => [c.width, c.height]);
  expect(h).toBeGreaterThan(w!);
  expect(box.height / box.width).toBeCloseTo(h! / w!, 1);
  await expectNoHorizontalOverflow(page);

  await page.request.post("/api/pic-drift-links", { data: { originalUrl: "https://example.com/b", title: "Phone brand" } });
  await page.goto("/pic-drift-link-tracker");
  await page.getByRole("button", { name: "More actions for Phone brand" }).click();
  await page.getByRole("menu").getByRole("menuitem", { name: "QR code" }).click();
  const dialog = page.getByRole("dialog", { name: "QR Code Generator" });
  await dialog.getByText("Style: colours, shapes and frame").click();
  await dialog.getByLabel("Frame text (optional)").fill("Scan");
  await expect(dialog.getByLabel("Foreground colour", { exact: true })).toBeVisible();
  await expectNoHorizontalOverflow(page);
});

test("screens chosen from the Tools menu start at their heading", async ({ page }) => {
  await page.goto("/");
  for (const [item, heading] of [["QR Code Generator", "QR Code Generator"], ["Link Tracker", "Link Tracker"], ["Pic Drift Link Tracker", "Pic Drift Link Tracker"]] as const) {
    await page.getByRole("button", { name: "Tools" }).click();
    await page.getByRole("menu", { name: "Tools" }).getByRole("menuitem", { name: item, exact: true }).click();
    await expect(page.getByRole("heading", { level: 1, name: heading })).toBeFocused();
  }
  // By keyboard too: Enter on the menu item.
  await page.getByRole("button", { name: "Tools" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menu", { name: "Tools" })).toBeVisible();
  await page.keyboard.press("Home");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1, name: "QR Code Generator" })).toBeFocused();
});

test("the Link Tracker's analytics dialog tallies referrers by host, 'Direct' for none", async ({ page }) => {
  const link = (await (await page.request.post("/api/links", { data: { originalUrl: "https://example.com/ref", title: "Referred" } })).json()) as { id: number; shortUrl: string };
  for (const referer of ["https://news.example.org/story/1", "https://news.example.org/story/2", null]) {
    const res = await page.request.get(link.shortUrl, { maxRedirects: 0, headers: referer ? { referer } : {} });
    expect(res.status()).toBe(302);
  }
  // The click writer records off the request: wait for the three.
  await expect.poll(async () => ((await (await page.request.get(`/api/links/${link.id}/analytics`)).json()) as { clickCount: number }).clickCount).toBe(3);
  await page.goto("/link-tracker");
  await page.getByRole("button", { name: "Analytics for Referred" }).click();
  const referrers = page.getByRole("dialog", { name: "Analytics: Referred" }).getByRole("region", { name: "Referrers" });
  await expect(referrers.getByRole("listitem")).toHaveText([/news\.example\.org\s*2/, /Direct\s*1/]);
});
