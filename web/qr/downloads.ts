// What /qr and the brand QR dialog share around a download: the refusal's words, and the logo
// as the SVG embeds it.

/** Said (and the download refused) when an image does not read back to its address. */
export const scanWarning = (text: string) =>
  `Warning: this QR code does not scan back to ${text}, so it cannot be downloaded. Try a smaller logo, a shorter URL or other shapes.`;

/** The logo as a PNG data: URL for the SVG, at most 1024 px a side (the box is 485 px at 1500). */
export function logoForSvg(logo: ImageBitmap | HTMLCanvasElement) {
  const scale = Math.min(1, 1024 / Math.max(logo.width, logo.height));
  const c = document.createElement("canvas");
  c.width = Math.max(1, Math.round(logo.width * scale));
  c.height = Math.max(1, Math.round(logo.height * scale));
  c.getContext("2d")?.drawImage(logo, 0, 0, c.width, c.height);
  return { dataUrl: c.toDataURL("image/png"), width: c.width, height: c.height };
}
