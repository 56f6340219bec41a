// Scannability check: decode the image we are about to offer and compare with the URL. Every
// styled image passes through here before it can be downloaded: the PNG's canvas, and the SVG
// rasterised by the browser itself (what an SVG viewer would show).
import jsQR from "jsqr";

/** Decoding size: what a phone sees is far smaller than 1500 px, and jsQR is 4x faster here. */
const CHECK_SIZE = 750;

/** The text a scanner reads from `source` (any aspect: a framed code is taller), or null. */
function decodeCanvas(source: HTMLCanvasElement | HTMLImageElement): string | null {
  const w0 = "naturalWidth" in source ? source.naturalWidth : source.width;
  const h0 = "naturalHeight" in source ? source.naturalHeight : source.height;
  if (!(w0 > 0 && h0 > 0)) return null;
  const scale = CHECK_SIZE / Math.max(w0, h0);
  const w = Math.round(w0 * scale);
  const h = Math.round(h0 * scale);
  const c = document.createElement("canvas");
  c.width = w;
  c.height = h;
  const g = c.getContext("2d", { willReadFrequently: true });
  if (!g) return null;
  g.imageSmoothingEnabled = true;
  g.imageSmoothingQuality = "high";
  g.drawImage(source, 0, 0, w, h);
  const { data } = g.getImageData(0, 0, w, h);
  // No inverted attempt: light dots on a dark ground are what many phone scanners cannot read,
  // so a code only an inverting decoder reads is refused (docs/decisions.md, "QR colours").
  return jsQR(data, w, h, { inversionAttempts: "dontInvert" })?.data ?? null;
}

/**
 * True when the image reads back to exactly `expected`, at the size a phone sees and at the
 * file's own size (a decoder reading the downloaded file gets the full pixels: shapes that read
 * at one size may not at the other).
 */
export function scansTo(source: HTMLCanvasElement | HTMLImageElement, expected: string): boolean {
  return decodeCanvas(source) === expected && decodeFull(source) === expected;
}

function decodeFull(source: HTMLCanvasElement | HTMLImageElement): string | null {
  const w = "naturalWidth" in source ? source.naturalWidth : source.width;
  const h = "naturalHeight" in source ? source.naturalHeight : source.height;
  const c = document.createElement("canvas");
  c.width = w;
  c.height = h;
  const g = c.getContext("2d", { willReadFrequently: true });
  if (!g || !(w > 0 && h > 0)) return null;
  g.drawImage(source, 0, 0);
  return jsQR(g.getImageData(0, 0, w, h).data, w, h, { inversionAttempts: "dontInvert" })?.data ?? null;
}

/** True when the SVG document, drawn by this browser, reads back to exactly `expected`. */
export async function svgScansTo(svg: string, expected: string): Promise<boolean> {
  const src = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  try {
    const img = new Image();
    img.src = src;
    await img.decode();
    return scansTo(img, expected);
  } catch {
    return false;
  } finally {
    URL.revokeObjectURL(src);
  }
}
