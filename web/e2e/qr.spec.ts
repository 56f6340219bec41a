// /qr against the compiled binary: PNG (with and without logo), a short link's QR with the scan
// marker, MP4 and ZIP exports checked byte-wise, Cancel, and no request leaving 127.0.0.1.
import { expect, test, type Download, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { PNG } from "pngjs";
import jsQR from "jsqr";
import JSZip from "jszip";
import { registerViaApi, trackOutsideRequests } from "./helpers";


/** A 400x400 logo: a red disc on blue, so the centre of the code is clearly covered. */
function logoPng(): Buffer {
  const png = new PNG({ width: 400, height: 400 });
  for (let y = 0; y < 400; y++)
    for (let x = 0; x < 400; x++) {
      const o = (y * 400 + x) * 4;
      const inDisc = (x - 200) ** 2 + (y - 200) ** 2 < 150 ** 2;
      png.data[o] = inDisc ? 220 : 30;
      png.data[o + 1] = inDisc ? 40 : 80;
      png.data[o + 2] = inDisc ? 40 : 200;
      png.data[o + 3] = 255;
    }
  return PNG.sync.write(png);
}

function decodePng(bytes: Buffer) {
  const png = PNG.sync.read(bytes);
  const code = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
  return { width: png.width, height: png.height, text: code?.data ?? null };
}

// ---- A minimal MP4 box reader: enough to check codec, frame size and sample count. ----
type Box = { type: string; start: number; end: number; body: number };
function boxes(buf: Buffer, start: number, end: number): Box[] {
  const out: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = buf.readUInt32BE(at);
    const type = buf.toString("latin1", at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      size = Number(buf.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = end - at;
    if (size < header || at + size > end) throw new Error(`bad box ${type} at ${at}`);
    out.push({ type, start: at, end: at + size, body: at + header });
    at += size;
  }
  return out;
}
function child(buf: Buffer, parent: Box, type: string): Box {
  const b = boxes(buf, parent.body, parent.end).find((x) => x.type === type);
  if (!b) throw new Error(`no ${type} in ${parent.type}`);
  return b;
}
function inspectMp4(buf: Buffer) {
  const top = boxes(buf, 0, buf.length);
  const ftyp = top.find((b) => b.type === "ftyp");
  const moov = top.find((b) => b.type === "moov");
  if (!ftyp || !moov) throw new Error("missing ftyp or moov");
  const traks = boxes(buf, moov.body, moov.end).filter((b) => b.type === "trak");
  const videos = traks.map((trak) => {
    const tkhd = child(buf, trak, "tkhd");
    const v1 = buf[tkhd.body] === 1;
    // tkhd ends with width and height as 16.16 fixed point.
    const wAt = tkhd.body + (v1 ? 88 : 76);
    const stbl = child(buf, child(buf, child(buf, trak, "mdia"), "minf"), "stbl");
    const stsd = child(buf, stbl, "stsd");
    // stsd: version/flags (4), entry count (4), then the first sample entry box.
    const codec = buf.toString("latin1", stsd.body + 12, stsd.body + 16);
    const stsz = child(buf, stbl, "stsz");
    return {
      codec,
      width: buf.readUInt32BE(wAt) / 65536,
      height: buf.readUInt32BE(wAt + 4) / 65536,
      samples: buf.readUInt32BE(stsz.body + 8),
    };
  });
  return { brand: buf.toString("latin1", ftyp.body, ftyp.body + 4), tracks: videos };
}

async function saved(d: Download) {
  const path = await d.path();
  return readFileSync(path);
}

async function download(page: Page, timeout = 30_000) {
  const wait = page.waitForEvent("download", { timeout });
  await page.getByRole("button", { name: "Download", exact: true }).click();
  return wait;
}

let outside: string[] = [];

test.beforeEach(async ({ page }) => {
  outside = trackOutsideRequests(page);
  await registerViaApi(page.request);
});

test.afterEach(() => {
  // PRODUCT.md: the app, its video engine included, must work with no internet.
  expect(outside).toEqual([]);
});

test("PNG for a custom URL, without and with a logo, reads back to the exact URL", async ({ page }) => {
  await page.goto("/qr");
  await expect(page.getByRole("heading", { name: "QR Code Generator" })).toBeVisible();
  await expect(page.getByText("For best results, use a square image")).toBeVisible();
  await expect(page.getByLabel("Custom URL")).toBeChecked();

  // Spec §5: a URL is required.
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("Please enter a URL")).toBeVisible();
  await page.getByRole("button", { name: "Download", exact: true }).click();
  await expect(page.getByText("No QR code to download")).toBeVisible();

  const url = "https://example.com/spring-sale?utm_source=qr&x=1";
  await page.getByLabel("URL", { exact: true }).fill(url);
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("QR code generated successfully")).toBeVisible();
  await expect(page.getByText(`Checked: scans to ${url}`)).toBeVisible();
  // The 380 px preview.
  const box = await page.getByRole("img", { name: `QR code for ${url}` }).boundingBox();
  expect(Math.round(box!.width)).toBe(380);

  let d = await download(page);
  expect(d.suggestedFilename()).toMatch(/^qr-code-\d{13}\.png$/);
  expect(decodePng(await saved(d))).toEqual({ width: 1500, height: 1500, text: url });
  await expect(page.getByText("QR code downloaded successfully")).toBeVisible();

  // With a logo: Download regenerates from the current inputs, and it still scans.
  await page.getByLabel("Logo (optional)").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logoPng() });
  await expect(page.getByRole("button", { name: "Remove logo" })).toBeVisible();
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText(`Checked: scans to ${url}`)).toBeVisible();
  d = await download(page);
  const png = await saved(d);
  expect(decodePng(png)).toEqual({ width: 1500, height: 1500, text: url });
  // The logo box is white at its edge and the logo (red) sits in the centre.
  const img = PNG.sync.read(png);
  const px = (x: number, y: number) => [...img.data.subarray((y * 1500 + x) * 4, (y * 1500 + x) * 4 + 3)];
  expect(px(750, 750)).toEqual([220, 40, 40]);
  expect(px(495, 750)).toEqual([255, 255, 255]);
});

test("a short link's QR carries the scan marker and scanning it is recorded as 'qr'", async ({ page }) => {
  const created = await page.request.post("/api/links", {
    data: { originalUrl: "https://example.org/landing", title: "Spring flyer", description: "Printed" },
  });
  expect(created.status(), await created.text()).toBe(201);
  const link = (await created.json()) as { id: number; shortCode: string; shortUrl?: string };

  await page.goto("/qr");
  await page.getByLabel("My Short Links").check();
  await page.getByLabel("Short link", { exact: true }).selectOption({ label: `Spring flyer (${link.shortCode})` });
  await expect(page.getByText("This QR code will redirect to:")).toBeVisible();
  await expect(page.getByRole("link", { name: "https://example.org/landing" })).toBeVisible();
  const urlInput = page.getByLabel("URL", { exact: true });
  await expect(urlInput).toBeDisabled();
  const shortUrl = await urlInput.inputValue();
  expect(shortUrl).toMatch(new RegExp(`/${link.shortCode}$`));

  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("QR code generated successfully")).toBeVisible();
  const d = await download(page);
  const decoded = decodePng(await saved(d));
  expect(decoded).toEqual({ width: 1500, height: 1500, text: `${shortUrl}?qr=1` });

  // "Scanning": request what the code holds, as a phone would.
  const scan = await page.request.get(decoded.text!, { maxRedirects: 0 });
  expect(scan.status()).toBe(302);
  expect(scan.headers()["location"]).toBe("https://example.org/landing");
  const csv = await page.request.get(`/api/links/${link.id}/clicks.csv`);
  expect(csv.status()).toBe(200);
  const [header, ...rows] = (await csv.text()).trim().split("\n");
  const col = header!.split(",").indexOf("source");
  expect(rows).toHaveLength(1);
  expect(rows[0]!.split(",")[col]).toBe("qr");

  // Switching back to custom clears the URL and the chosen link.
  await page.getByLabel("Custom URL").check();
  await expect(urlInput).toBeEnabled();
  await expect(urlInput).toHaveValue("");
  await expect(page.getByText("This QR code will redirect to:")).toHaveCount(0);
});

test("Video and Both (ZIP) with a logo: 30 frames of 1080x1350 H.264; the ZIP holds exactly the PNG and the MP4", async ({ page }) => {
  test.setTimeout(240_000);
  const url = "https://example.com/video";
  const seen: string[] = [];
  page.on("request", (r) => seen.push(r.url()));
  await page.goto("/qr");
  expect(seen.filter((u) => u.includes("/vendor/"))).toEqual([]);
  await page.getByLabel("URL", { exact: true }).fill(url);
  await page.getByLabel("Logo (optional)").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: logoPng() });
  await page.getByLabel("Export Type").selectOption({ label: "Video Animation" });
  // The engine comes from this server's /vendor/ only once video is chosen.
  await expect(page.getByText("Video engine ready.")).toBeVisible({ timeout: 60_000 });
  // The request log sees the engine's worker fetching from this server, so the "nothing
  // outside" check of afterEach covers the worker too.
  const base = "http://127.0.0.1:" + new URL(page.url()).port + "/vendor/ffmpeg-0.12.10/";
  for (const f of ["worker.js", "const.js", "errors.js", "ffmpeg-core.js", "ffmpeg-core.wasm"]) expect(seen).toContain(base + f);
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("QR code generated successfully")).toBeVisible();

  // Cancel stops the render: no download, the form is usable again.
  await page.getByRole("button", { name: "Download", exact: true }).click();
  await expect(page.getByRole("button", { name: "Processing..." })).toBeDisabled();
  const bar = page.getByRole("progressbar");
  await expect(bar).toBeVisible();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(bar).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Download", exact: true })).toBeEnabled();

  let d = await download(page, 180_000);
  expect(d.suggestedFilename()).toBe("qr-code-animation.mp4");
  const mp4 = inspectMp4(await saved(d));
  expect(mp4.tracks).toEqual([{ codec: "avc1", width: 1080, height: 1350, samples: 30 }]);
  await expect(page.getByText("QR code generated and downloaded successfully")).toBeVisible();

  await page.getByLabel("Export Type").selectOption({ label: "Both (ZIP)" });
  d = await download(page, 180_000);
  expect(d.suggestedFilename()).toBe("qr-code-package.zip");
  const zip = await JSZip.loadAsync(await saved(d));
  expect(Object.keys(zip.files).sort()).toEqual(["animation.mp4", "qr-code.png"]);
  const inner = inspectMp4(await zip.file("animation.mp4")!.async("nodebuffer"));
  expect(inner.tracks).toEqual([{ codec: "avc1", width: 1080, height: 1350, samples: 30 }]);
  expect(decodePng(await zip.file("qr-code.png")!.async("nodebuffer"))).toEqual({ width: 1500, height: 1500, text: url });
});

test("Video without a logo falls back to the PNG", async ({ page }) => {
  const url = "https://example.com/no-logo";
  await page.goto("/qr");
  await page.getByLabel("URL", { exact: true }).fill(url);
  await page.getByLabel("Export Type").selectOption({ label: "Video Animation" });
  await expect(page.getByText("The video needs a logo; without one the QR code is saved as a PNG.")).toBeVisible();
  await page.getByRole("button", { name: "Generate" }).click();
  const d = await download(page);
  expect(d.suggestedFilename()).toMatch(/^qr-code-\d{13}\.png$/);
  expect(decodePng(await saved(d))).toEqual({ width: 1500, height: 1500, text: url });
});

test("scannability check: a logo that breaks the code is flagged and its download refused", async ({ page }) => {
  // A solid dark square filling the logo area: at this URL length (version 13, level H) too
  // much of the symbol is hidden for it to decode.
  const square = new PNG({ width: 200, height: 200 });
  for (let i = 0; i < square.data.length; i += 4) square.data.set([60, 60, 60, 255], i);
  const url = "https://example.com/" + "abcdefghij".repeat(15);
  await page.goto("/qr");
  await page.getByLabel("Logo (optional)").setInputFiles({ name: "square.png", mimeType: "image/png", buffer: PNG.sync.write(square) });
  await page.getByLabel("URL", { exact: true }).fill(url);
  await page.getByRole("button", { name: "Generate" }).click();
  const warning = `Warning: this QR code does not scan back to ${url}, so it cannot be downloaded. Try a smaller logo, a shorter URL or other shapes.`;
  await expect(page.getByRole("alert").filter({ hasText: warning })).toBeVisible();
  // Issue 25: nothing that does not read back is offered, as PNG or as SVG.
  let downloads = 0;
  page.on("download", () => downloads++);
  await page.getByRole("button", { name: "Download", exact: true }).click();
  await expect(page.getByText(warning)).toHaveCount(2); // the preview's alert and the toast
  await page.getByRole("button", { name: "Download SVG" }).click();
  await page.waitForTimeout(500);
  expect(downloads).toBe(0);

  // The same logo on a short URL is fine, and the warning goes away.
  await page.getByLabel("URL", { exact: true }).fill("https://example.com/");
  await page.getByRole("button", { name: "Generate" }).click();
  await expect(page.getByText("Checked: scans to https://example.com/")).toBeVisible();
  await expect(page.getByText(/^Warning: this QR code/)).toHaveCount(0);
});

test("an SVG logo is accepted; a file that is not an image is refused", async ({ page }) => {
  const url = "https://example.com/svg";
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><circle cx="32" cy="32" r="30" fill="#0a0"/></svg>`;
  await page.goto("/qr");
  await page.getByLabel("Logo (optional)").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
  await expect(page.getByText("This file could not be read as an image")).toBeVisible();
  await page.getByLabel("Logo (optional)").setInputFiles({ name: "logo.svg", mimeType: "image/svg+xml", buffer: Buffer.from(svg) });
  await expect(page.getByText("logo.svg")).toBeVisible();
  await expect(page.getByText("This file could not be read as an image")).toHaveCount(0);
  await page.getByLabel("URL", { exact: true }).fill(url);
  await page.getByRole("button", { name: "Generate" }).click();
  const d = await download(page);
  const png = await saved(d);
  expect(decodePng(png)).toEqual({ width: 1500, height: 1500, text: url });
  const img = PNG.sync.read(png);
  const o = (750 * 1500 + 750) * 4;
  expect([img.data[o], img.data[o + 1], img.data[o + 2]]).toEqual([0, 170, 0]);
});
