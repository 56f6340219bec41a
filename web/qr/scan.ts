// Scannability check: decode the image we are about to offer and compare with the URL.
import jsQR from "jsqr";

/** Decoding size: what a phone sees is far smaller than 1500 px, and jsQR is 4x faster here. */
const CHECK_SIZE = 750;

/** The text a scanner reads from `source`, or null when it does not decode. */
export function decodeCanvas(source: HTMLCanvasElement): string | null {
  const c = document.createElement("canvas");
  c.width = CHECK_SIZE;
  c.height = CHECK_SIZE;
  const g = c.getContext("2d", { willReadFrequently: true });
  if (!g) return null;
  g.imageSmoothingEnabled = true;
  g.imageSmoothingQuality = "high";
  g.drawImage(source, 0, 0, CHECK_SIZE, CHECK_SIZE);
  const { data } = g.getImageData(0, 0, CHECK_SIZE, CHECK_SIZE);
  return jsQR(data, CHECK_SIZE, CHECK_SIZE, { inversionAttempts: "dontInvert" })?.data ?? null;
}

/** True when the image reads back to exactly `expected`. */
export function scansTo(source: HTMLCanvasElement, expected: string): boolean {
  return decodeCanvas(source) === expected;
}
