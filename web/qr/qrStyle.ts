// Styled QR codes (issue 25): colours, dot and corner (finder pattern) shapes and an optional
// frame with a call to action, drawn from qrcode's module matrix. One geometry (SVG path data)
// feeds both outputs: Path2D on the canvas for PNG, <path> in the SVG, so the two look alike.
// Pure at import time (no DOM access) so bun test can check the geometry and the SVG text.
import { DEFAULT_QR_STYLE, type QrStyleInput } from "../../src/qrstyles/schema";
import { drawLogo, qrLayout, qrMatrix, QR_SIZE, rasterize, type Box, type LogoSource, type QrLayout, type QrMatrix } from "./qrImage";

export type QrStyle = QrStyleInput;
export { DEFAULT_QR_STYLE };

/** Where the frame's parts go, in px of the whole image. */
export type FrameLayout = { stroke: number; radius: number; band: Box & { height: number }; fontSize: number };

export type StyledLayout = {
  /** The whole image (the QR square, plus the frame when there is one). */
  width: number;
  height: number;
  /** The QR square inside the image. */
  qrBox: Box;
  /** The QR square's own layout (modules, logo box), relative to qrBox. */
  qr: QrLayout;
  frame: FrameLayout | null;
};

/** The spec's default look: drawn pixel-exact as before (qrImage.rasterize), never as paths. */
export const isPlainStyle = (s: QrStyle) => s.dots === "square" && s.corners === "square" && s.frameText === "";
export const isDefaultStyle = (s: QrStyle) =>
  isPlainStyle(s) && s.foreground === DEFAULT_QR_STYLE.foreground && s.background === DEFAULT_QR_STYLE.background;

/**
 * The image's layout. Without a frame it is the spec's size x size square. A frame keeps the
 * code itself at `size` (its modules as large as the unframed code's) and adds around it a
 * rounded outline and, below, a band (18 %) that holds the text. Between the code and the
 * outline or band lies 3 modules of background, so with the code's own 1-module margin a
 * scanner sees the standard 4-module quiet zone on every side: with only the code's margin
 * between it and the band, jsQR did not read some framed codes at full size.
 */
export function styledLayout(moduleCount: number, style: QrStyle, size: number = QR_SIZE): StyledLayout {
  const qr = qrLayout(moduleCount, size);
  if (style.frameText === "") return { width: size, height: size, qrBox: { x: 0, y: 0, size }, qr, frame: null };
  const stroke = Math.max(1, Math.round(size * 0.016));
  const quiet = Math.round(3 * qr.moduleSize);
  const pad = stroke + quiet;
  const bandHeight = Math.round(size * 0.18);
  const width = size + 2 * pad;
  const height = pad + size + quiet + bandHeight;
  return {
    width,
    height,
    qrBox: { x: pad, y: pad, size },
    qr,
    frame: {
      stroke,
      radius: Math.round(size * 0.04),
      band: { x: 0, y: pad + size + quiet, size: width, height: bandHeight },
      fontSize: Math.round(bandHeight * 0.45),
    },
  };
}

const FINDER = 7;
/** Whether module (r, c) belongs to one of the three finder patterns (drawn by cornerPath). */
export function inFinder(n: number, r: number, c: number) {
  return (r < FINDER && c < FINDER) || (r < FINDER && c >= n - FINDER) || (r >= n - FINDER && c < FINDER);
}

/**
 * Centres of the alignment patterns (rows = columns, ISO/IEC 18004 table E.1 as the qrcode
 * package computes it), minus the three that would overlap the finders.
 */
export function alignmentCentres(moduleCount: number): [number, number][] {
  const version = (moduleCount - 17) / 4;
  if (version < 2) return [];
  const count = Math.floor(version / 7) + 2;
  const step = moduleCount === 145 ? 26 : Math.ceil((moduleCount - 13) / (2 * count - 2)) * 2;
  const coords = [moduleCount - 7];
  for (let i = 1; i < count - 1; i++) coords[i] = coords[i - 1]! - step;
  coords.push(6);
  coords.reverse();
  const last = coords.length - 1;
  const out: [number, number][] = [];
  for (let i = 0; i <= last; i++)
    for (let j = 0; j <= last; j++) if (!((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0))) out.push([coords[i]!, coords[j]!]);
  return out;
}

const f = (x: number) => String(Math.round(x * 100) / 100);

/** A clockwise rectangle with its own radius per corner (tl, tr, br, bl). */
function roundedRect(x: number, y: number, w: number, h: number, [tl, tr, br, bl]: [number, number, number, number]) {
  const arc = (r: number, ex: number, ey: number) => (r > 0 ? `A${f(r)} ${f(r)} 0 0 1 ${f(ex)} ${f(ey)}` : `L${f(ex)} ${f(ey)}`);
  return (
    `M${f(x + tl)} ${f(y)}H${f(x + w - tr)}${arc(tr, x + w, y + tr)}V${f(y + h - br)}${arc(br, x + w - br, y + h)}` +
    `H${f(x + bl)}${arc(bl, x, y + h - bl)}V${f(y + tl)}${arc(tl, x + tl, y)}Z`
  );
}

const circle = (cx: number, cy: number, r: number) => `M${f(cx - r)} ${f(cy)}A${f(r)} ${f(r)} 0 1 1 ${f(cx + r)} ${f(cy)}A${f(r)} ${f(r)} 0 1 1 ${f(cx - r)} ${f(cy)}Z`;

/**
 * The data modules (finders excluded) as one path, in px of the QR square. All sub-paths run
 * clockwise and are filled with the nonzero rule, so touching modules merge without seams.
 */
export function modulesPath(m: QrMatrix, layout: QrLayout, dots: QrStyle["dots"]): string {
  const n = m.size;
  const s = layout.moduleSize;
  const on = (r: number, c: number) => r >= 0 && c >= 0 && r < n && c < n && m.data[r * n + c] === 1;
  // Decoders find the alignment patterns by their solid ring, as they find the finders: drawn
  // as separate dots the ring is a row of gaps and jsQR misreads the code. They stay square.
  const solid = new Uint8Array(n * n);
  if (dots === "dots") for (const [ar, ac] of alignmentCentres(n)) for (let r = ar - 2; r <= ar + 2; r++) for (let c = ac - 2; c <= ac + 2; c++) solid[r * n + c] = 1;
  const parts: string[] = [];
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (!on(r, c) || inFinder(n, r, c)) continue;
      const x = layout.margin + c * s;
      const y = layout.margin + r * s;
      if (dots === "square" || solid[r * n + c]) parts.push(`M${f(x)} ${f(y)}H${f(x + s)}V${f(y + s)}H${f(x)}Z`);
      // A dot of 90 % of the module: neighbours stay apart, and the centre a scanner samples is dark.
      else if (dots === "dots") parts.push(circle(x + s / 2, y + s / 2, s * 0.45));
      else {
        // Rounded: a corner is rounded only where neither neighbour beside it is dark, so runs
        // of modules read as smooth strokes and a lone module as a circle.
        const up = on(r - 1, c), down = on(r + 1, c), left = on(r, c - 1), right = on(r, c + 1);
        const k = s / 2;
        parts.push(roundedRect(x, y, s, s, [!up && !left ? k : 0, !up && !right ? k : 0, !down && !right ? k : 0, !down && !left ? k : 0]));
      }
    }
  }
  return parts.join("");
}

/** The three finder patterns as one path, filled with the even-odd rule (ring, hole, centre). */
export function cornersPath(moduleCount: number, layout: QrLayout, corners: QrStyle["corners"]): string {
  const s = layout.moduleSize;
  const origins = [
    [0, 0],
    [0, moduleCount - FINDER],
    [moduleCount - FINDER, 0],
  ] as const;
  return origins
    .map(([r, c]) => {
      const x = layout.margin + c * s;
      const y = layout.margin + r * s;
      if (corners === "dots") {
        const cx = x + 3.5 * s;
        const cy = y + 3.5 * s;
        return circle(cx, cy, 3.5 * s) + circle(cx, cy, 2.5 * s) + circle(cx, cy, 1.5 * s);
      }
      const [outer, hole, centre] = corners === "rounded" ? [2 * s, 1.2 * s, 0.9 * s] : [0, 0, 0];
      const all = (k: number) => [k, k, k, k] as [number, number, number, number];
      return roundedRect(x, y, 7 * s, 7 * s, all(outer)) + roundedRect(x + s, y + s, 5 * s, 5 * s, all(hole)) + roundedRect(x + 2 * s, y + 2 * s, 3 * s, 3 * s, all(centre));
    })
    .join("");
}

/** The frame's outline as a path (an even-odd ring of the stroke's width), in px of the image. */
function frameOutline(l: StyledLayout) {
  const fr = l.frame!;
  const all = (k: number) => [k, k, k, k] as [number, number, number, number];
  return roundedRect(0, 0, l.width, l.height, all(fr.radius)) + roundedRect(fr.stroke, fr.stroke, l.width - 2 * fr.stroke, l.height - 2 * fr.stroke, all(Math.max(0, fr.radius - fr.stroke)));
}
/** The band under the code, which holds the call to action, rounded at the bottom. */
function frameBand(l: StyledLayout) {
  const { band, radius } = l.frame!;
  return roundedRect(band.x, band.y, band.size, band.height, [0, 0, radius, radius]);
}

/** The text's font: the system's sans-serif, bold, so the call to action reads at a glance. */
export const FRAME_FONT_FAMILY = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif";

const xmlEscape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The whole image as an SVG document. `logoDataUrl` (a data: URL the caller made from the logo)
 * is placed in the spec's white logo box. Every user-given text is escaped; colours have passed
 * the schema (#rrggbb) before they get here, and are checked again so no other text can land
 * in an attribute.
 */
export function qrSvg(text: string, style: QrStyle, { size = QR_SIZE, logo }: { size?: number; logo?: { dataUrl: string; width: number; height: number } | null } = {}): string {
  for (const c of [style.foreground, style.background]) if (!/^#[0-9a-f]{6}$/i.test(c)) throw new Error("Invalid colour");
  const m = qrMatrix(text);
  const l = styledLayout(m.size, style, size);
  const q = l.qr;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}">`,
    `<rect width="${l.width}" height="${l.height}" fill="${style.background}"/>`,
  ];
  if (l.frame) {
    out.push(`<path d="${frameOutline(l)}" fill="${style.foreground}" fill-rule="evenodd"/>`, `<path d="${frameBand(l)}" fill="${style.foreground}"/>`);
    const { band, fontSize } = l.frame;
    out.push(
      `<text x="${f(band.x + band.size / 2)}" y="${f(band.y + band.height / 2)}" fill="${style.background}" font-family="${xmlEscape(FRAME_FONT_FAMILY)}" font-weight="700" font-size="${fontSize}" text-anchor="middle" dominant-baseline="central" textLength="${f(Math.min(band.size * 0.86, frameTextWidthGuess(style.frameText, fontSize)))}" lengthAdjust="spacingAndGlyphs">${xmlEscape(style.frameText)}</text>`,
    );
  }
  const crisp = style.dots === "square" ? ` shape-rendering="crispEdges"` : "";
  out.push(`<g transform="translate(${l.qrBox.x} ${l.qrBox.y})">`);
  out.push(`<path d="${modulesPath(m, q, style.dots)}" fill="${style.foreground}"${crisp}/>`);
  out.push(`<path d="${cornersPath(m.size, q, style.corners)}" fill="${style.foreground}" fill-rule="evenodd"${style.corners === "square" ? ` shape-rendering="crispEdges"` : ""}/>`);
  if (logo) {
    const { logoBox, logoArea } = q;
    const scale = Math.min(logoArea.size / logo.width, logoArea.size / logo.height);
    const w = logo.width * scale;
    const h = logo.height * scale;
    out.push(
      `<rect x="${logoBox.x}" y="${logoBox.y}" width="${logoBox.size}" height="${logoBox.size}" fill="#ffffff"/>`,
      `<image x="${f(logoArea.x + (logoArea.size - w) / 2)}" y="${f(logoArea.y + (logoArea.size - h) / 2)}" width="${f(w)}" height="${f(h)}" href="${xmlEscape(logo.dataUrl)}"/>`,
    );
  }
  out.push("</g></svg>");
  return out.join("");
}

/**
 * A width the SVG text is squeezed into only when it would overflow the band (textLength);
 * roughly 0.62 em a character for bold sans-serif, so short texts keep their natural width.
 */
function frameTextWidthGuess(text: string, fontSize: number) {
  return [...new Intl.Segmenter().segment(text)].length * fontSize * 0.62;
}

type Canvas2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** Writes the call to action centred in the band, shrunk to fit its width. */
function drawFrameText(g: Canvas2D, l: StyledLayout, style: QrStyle) {
  const { band, fontSize } = l.frame!;
  let px = fontSize;
  g.font = `700 ${px}px ${FRAME_FONT_FAMILY}`;
  const room = band.size * 0.86;
  const w = g.measureText(style.frameText).width;
  if (w > room) {
    px = Math.max(8, Math.floor((px * room) / w));
    g.font = `700 ${px}px ${FRAME_FONT_FAMILY}`;
  }
  g.fillStyle = style.background;
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.fillText(style.frameText, band.x + band.size / 2, band.y + band.height / 2);
}

/**
 * Renders the styled code for `text` into `canvas` (resized to the image): background, frame,
 * modules, finders, then the optional logo in the spec's white box. The spec's own look (square,
 * no frame) keeps the pixel-exact raster of qrImage.ts, in the chosen colours.
 */
export function drawStyledQr(
  canvas: HTMLCanvasElement | OffscreenCanvas,
  text: string,
  style: QrStyle,
  { size = QR_SIZE, logo }: { size?: number; logo?: LogoSource | null } = {},
): StyledLayout {
  const m = qrMatrix(text);
  const l = styledLayout(m.size, style, size);
  canvas.width = l.width;
  canvas.height = l.height;
  const g = canvas.getContext("2d") as Canvas2D | null;
  if (!g) throw new Error("Canvas not initialized");
  g.fillStyle = style.background;
  g.fillRect(0, 0, l.width, l.height);
  if (l.frame) {
    g.fillStyle = style.foreground;
    g.fill(new Path2D(frameOutline(l)), "evenodd");
    g.fill(new Path2D(frameBand(l)));
    drawFrameText(g, l, style);
  }
  g.save();
  g.translate(l.qrBox.x, l.qrBox.y);
  if (style.dots === "square" && style.corners === "square") {
    const px = rasterize(m, size, style.foreground, style.background);
    g.putImageData(new ImageData(px, size, size), l.qrBox.x, l.qrBox.y);
  } else {
    g.fillStyle = style.foreground;
    g.fill(new Path2D(modulesPath(m, l.qr, style.dots)));
    g.fill(new Path2D(cornersPath(m.size, l.qr, style.corners)), "evenodd");
  }
  if (logo) drawLogo(g, l.qr, logo);
  g.restore();
  return l;
}
