// The QR image of spec §9 'QR output', shared by /qr and the brand tracker's QR dialog.
// Pure at import time (no DOM access) so bun test can import the maths and names.
// The symbol encoder only: qrcode's "main" pulls in Node renderers (fs) that cannot go in the web bundle.
import { create as createQr } from "qrcode/lib/core/qrcode.js";

/** Spec §9: the exported image is 1500x1500 px. */
export const QR_SIZE = 1500;
/** Spec §9: 1-module quiet zone around the symbol. */
export const QR_MARGIN_MODULES = 1;
/** Spec §9: logo box 525 px with 20 px padding, both at the 1500 px reference size. */
export const LOGO_BOX = 525;
export const LOGO_PADDING = 20;
export const ERROR_CORRECTION = "H" as const;

export const VIDEO_FILE_NAME = "qr-code-animation.mp4";
export const ZIP_FILE_NAME = "qr-code-package.zip";
export const ZIP_PNG_NAME = "qr-code.png";
export const ZIP_VIDEO_NAME = "animation.mp4";

/** qr-code-{timestamp}.png (timestamp = epoch milliseconds). */
export function pngFileName(now: number = Date.now()): string {
  return `qr-code-${now}.png`;
}

export type Box = { x: number; y: number; size: number };
export type QrLayout = {
  size: number;
  /** Modules per side of the symbol itself (without the quiet zone). */
  moduleCount: number;
  /** Pixels per module; fractional when size is not a multiple of moduleCount + 2 margins. */
  moduleSize: number;
  /** Quiet zone in pixels (one module). */
  margin: number;
  /** The white box behind the logo, centred. */
  logoBox: Box;
  /** The area the logo itself is fitted into (box minus padding). */
  logoArea: Box;
};

/**
 * Layout for a symbol of `moduleCount` modules drawn into a `size` px square. The logo box and
 * padding scale with the canvas so a 300 px preview looks like the 1500 px export.
 */
export function qrLayout(moduleCount: number, size: number = QR_SIZE): QrLayout {
  if (!Number.isInteger(moduleCount) || moduleCount < 21) throw new Error("Invalid QR module count");
  if (!(size > 0)) throw new Error("Invalid QR size");
  const moduleSize = size / (moduleCount + 2 * QR_MARGIN_MODULES);
  const boxSize = Math.round((LOGO_BOX * size) / QR_SIZE);
  const padding = Math.round((LOGO_PADDING * size) / QR_SIZE);
  const boxStart = Math.round((size - boxSize) / 2);
  return {
    size,
    moduleCount,
    moduleSize,
    margin: moduleSize * QR_MARGIN_MODULES,
    logoBox: { x: boxStart, y: boxStart, size: boxSize },
    logoArea: { x: boxStart + padding, y: boxStart + padding, size: boxSize - 2 * padding },
  };
}

/** Fits a width x height image inside `area` keeping its aspect ratio, centred. */
export function fitInside(width: number, height: number, area: Box) {
  const scale = Math.min(area.size / width, area.size / height);
  const w = width * scale;
  const h = height * scale;
  return { x: area.x + (area.size - w) / 2, y: area.y + (area.size - h) / 2, width: w, height: h };
}

export type QrMatrix = { size: number; data: Uint8Array };

/** The symbol for `text` at error-correction level H, from the qrcode package (throws if too long). */
export function qrMatrix(text: string): QrMatrix {
  const { modules } = createQr(text, { errorCorrectionLevel: ERROR_CORRECTION });
  return { size: modules.size, data: modules.data };
}

/** Modules per side for `text` at level H. */
export function moduleCountFor(text: string): number {
  return qrMatrix(text).size;
}

/** Which module (row or column, -1 or moduleCount for the quiet zone) pixel `p` falls in. */
export function moduleIndexAt(layout: QrLayout, p: number): number {
  return Math.floor((p + 0.5) / layout.moduleSize) - QR_MARGIN_MODULES;
}

/** #rrggbb → [r, g, b]. */
const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];

/**
 * RGBA pixels of exactly size x size, dark modules on light (black on white by default). Drawn here rather than with
 * QRCode.toCanvas because that floors (modules + margin) * scale and yields 1499 px for some
 * versions (e.g. version 18 at 1500 px), and it overwrites the canvas's CSS size.
 */
export function rasterize(matrix: QrMatrix, size: number = QR_SIZE, foreground = "#000000", background = "#ffffff"): Uint8ClampedArray<ArrayBuffer> {
  const layout = qrLayout(matrix.size, size);
  const index = new Int32Array(size);
  for (let p = 0; p < size; p++) index[p] = moduleIndexAt(layout, p);
  const [fr, fg, fb] = rgb(foreground);
  const [br, bg, bb] = rgb(background);
  const px = new Uint8ClampedArray(size * size * 4).fill(255);
  if (br !== 255 || bg !== 255 || bb !== 255) {
    for (let o = 0; o < px.length; o += 4) {
      px[o] = br;
      px[o + 1] = bg;
      px[o + 2] = bb;
    }
  }
  for (let y = 0; y < size; y++) {
    const r = index[y]!;
    if (r < 0 || r >= matrix.size) continue;
    for (let x = 0; x < size; x++) {
      const c = index[x]!;
      if (c < 0 || c >= matrix.size || !matrix.data[r * matrix.size + c]) continue;
      const o = (y * size + x) * 4;
      px[o] = fr;
      px[o + 1] = fg;
      px[o + 2] = fb;
    }
  }
  return px;
}

/**
 * Adds the scan marker of PRODUCT.md ('?qr=1') so the redirect can record source 'qr'.
 * Existing query parameters are kept byte for byte (no re-encoding); an existing qr parameter
 * is replaced; the fragment stays last.
 */
export function withScanMarker(shortUrl: string): string {
  const hashAt = shortUrl.indexOf("#");
  const beforeHash = hashAt === -1 ? shortUrl : shortUrl.slice(0, hashAt);
  const hash = hashAt === -1 ? "" : shortUrl.slice(hashAt);
  const queryAt = beforeHash.indexOf("?");
  const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt === -1 ? "" : beforeHash.slice(queryAt + 1);
  const kept = query.split("&").filter((p) => p !== "" && p.split("=")[0] !== "qr");
  return `${base}?${[...kept, "qr=1"].join("&")}${hash}`;
}

export type LogoSource = HTMLImageElement | ImageBitmap | HTMLCanvasElement | OffscreenCanvas;
type Canvas2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

function sourceSize(logo: LogoSource) {
  if ("naturalWidth" in logo) return { width: logo.naturalWidth, height: logo.naturalHeight };
  return { width: logo.width, height: logo.height };
}

/** Draws the white padded box and the logo fitted inside it. */
export function drawLogo(g: Canvas2D, layout: QrLayout, logo: LogoSource) {
  const { logoBox, logoArea } = layout;
  g.fillStyle = "#ffffff";
  g.fillRect(logoBox.x, logoBox.y, logoBox.size, logoBox.size);
  const { width, height } = sourceSize(logo);
  if (width > 0 && height > 0) {
    const r = fitInside(width, height, logoArea);
    g.imageSmoothingEnabled = true;
    g.imageSmoothingQuality = "high";
    g.drawImage(logo, r.x, r.y, r.width, r.height);
  }
}

/** canvas.toBlob as a promise; rejects with the spec's message when the browser returns null. */
export function canvasBlob(canvas: HTMLCanvasElement, type = "image/png", quality?: number): Promise<Blob> {
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("Failed to create QR code blob"))), type, quality),
  );
}

/**
 * The text a QR code holds for a web address: its ASCII form (punycode host, percent-encoded
 * path, query and fragment), as `new URL().href` writes it. Raw UTF-8 in a QR code is read
 * differently by different scanners (ZBar reads 'é' as '矇'); the ASCII form reads the same in
 * every one, and a browser opens it exactly as the address typed.
 */
export function qrText(url: string): string {
  return new URL(url).href;
}

/** qr-code-{timestamp}.svg: the PNG's name pattern (spec §9) for the vector download. */
export function svgFileName(now: number = Date.now()): string {
  return `qr-code-${now}.svg`;
}
