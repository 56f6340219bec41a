// Saved QR styles (issue 25): the style a QR code is drawn with, and the named styles a user
// keeps. Isomorphic: /qr and the brand QR dialog validate with these very schemas (and draw
// with QrStyle), the routes refuse the same input with the same messages.
import * as v from "valibot";
import { noControlChars } from "../shared/text";

export const QR_DOTS = ["square", "rounded", "dots"] as const;
export const QR_CORNERS = ["square", "rounded", "dots"] as const;
export type QrDots = (typeof QR_DOTS)[number];
export type QrCorners = (typeof QR_CORNERS)[number];

export const STYLE_NAME_MAX = 40;
export const FRAME_TEXT_MAX = 24;
/**
 * The least WCAG 2 contrast ratio between foreground and background (docs/decisions.md, "QR
 * colours"): 4.5:1, WCAG's level for normal text, as the frame's call to action is text drawn
 * in the same two colours, and it keeps dark-enough modules for phone cameras in poor light.
 */
export const MIN_CONTRAST = 4.5;

/** The spec's code (§9 'QR output'): black on white, square modules and finders, no frame. */
export const DEFAULT_QR_STYLE = { foreground: "#000000", background: "#ffffff", dots: "square", corners: "square", frameText: "" } as const satisfies QrStyleInput;

export const STYLE_MSG = {
  name: "Name is required",
  nameLength: `Name must be at most ${STYLE_NAME_MAX} characters`,
  colour: (what: string) => `${what} colour must be a hex colour like #1a2b3c`,
  dots: "Dot shape must be square, rounded or dots",
  corners: "Corner shape must be square, rounded or dots",
  frameLength: `Frame text must be at most ${FRAME_TEXT_MAX} characters`,
  contrast: (ratio: number) =>
    `These colours are too close to scan reliably (contrast ${ratio.toFixed(1)}:1; at least ${MIN_CONTRAST}:1 is needed). Choose a darker foreground or a lighter background.`,
  inverted:
    "Light dots on a dark background cannot be read by many scanners (the decoder here cannot read it either). Make the foreground the darker colour.",
} as const;

const HEX = /^#[0-9a-f]{6}$/;

/** #rgb or #rrggbb in any case → #rrggbb lower case; anything else unchanged (then refused). */
export function normalHex(s: string): string {
  const t = s.trim().toLowerCase();
  if (/^#[0-9a-f]{3}$/.test(t)) return `#${t[1]}${t[1]}${t[2]}${t[2]}${t[3]}${t[3]}`;
  return t;
}

/** WCAG 2 relative luminance of a #rrggbb colour. */
export function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio of two #rrggbb colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Why these colours cannot make a code that scans, or null when they can. */
export function colourProblem(foreground: string, background: string): string | null {
  const ratio = contrastRatio(foreground, background);
  if (ratio < MIN_CONTRAST) return STYLE_MSG.contrast(Math.floor(ratio * 10) / 10);
  if (luminance(foreground) > luminance(background)) return STYLE_MSG.inverted;
  return null;
}

const colour = (what: string) =>
  v.pipe(v.optional(v.string(STYLE_MSG.colour(what)), ""), v.transform(normalHex), v.regex(HEX, STYLE_MSG.colour(what)));

const styleEntries = {
  foreground: colour("Foreground"),
  background: colour("Background"),
  // Through optional first, so a missing shape gets the same message as a wrong one.
  dots: v.pipe(v.optional(v.string(STYLE_MSG.dots), ""), v.picklist(QR_DOTS, STYLE_MSG.dots)),
  corners: v.pipe(v.optional(v.string(STYLE_MSG.corners), ""), v.picklist(QR_CORNERS, STYLE_MSG.corners)),
  frameText: v.pipe(
    v.optional(v.string("Frame text must be text"), ""),
    v.trim(),
    noControlChars("Frame text"),
    // Counted in characters as people see them, so an emoji is one (issue 25 item 7).
    v.check((s: string) => [...new Intl.Segmenter().segment(s)].length <= FRAME_TEXT_MAX, STYLE_MSG.frameLength),
  ),
};

type Colours = { foreground: string; background: string };
/** The colour rule, reported on the foreground field (the one a user changes to fix it). */
const readableColours = <T extends Colours>() =>
  v.forward<T, v.CheckIssue<T>, ["foreground"]>(
    v.check<T, (issue: v.CheckIssue<T>) => string>(
      (s) => colourProblem(s.foreground, s.background) === null,
      (issue) => colourProblem((issue.input as T).foreground, (issue.input as T).background) ?? "",
    ),
    ["foreground"] as never,
  );

/** How a QR code is drawn. */
const QrStyleObject = v.object(styleEntries);
export const QrStyle = v.pipe(QrStyleObject, readableColours<v.InferOutput<typeof QrStyleObject>>());
export type QrStyle = v.InferOutput<typeof QrStyle>;
export type QrStyleInput = { foreground: string; background: string; dots: QrDots; corners: QrCorners; frameText: string };

/** Create and replace take a name and the whole style. */
const SaveObject = v.object({
  name: v.pipe(v.optional(v.string("Name must be text"), ""), v.trim(), v.nonEmpty(STYLE_MSG.name), noControlChars("Name"), v.maxLength(STYLE_NAME_MAX, STYLE_MSG.nameLength)),
  ...styleEntries,
});
export const SaveQrStyleBody = v.pipe(SaveObject, readableColours<v.InferOutput<typeof SaveObject>>());
export type SaveQrStyleBody = v.InferOutput<typeof SaveQrStyleBody>;

export const SavedQrStyle = v.object({
  id: v.number(),
  name: v.string(),
  foreground: v.string(),
  background: v.string(),
  dots: v.picklist(QR_DOTS),
  corners: v.picklist(QR_CORNERS),
  frameText: v.string(),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type SavedQrStyle = v.InferOutput<typeof SavedQrStyle>;
