import { describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import { qrLayout, qrMatrix, rasterize } from "./qrImage";
import { alignmentCentres, cornersPath, DEFAULT_QR_STYLE, inFinder, isDefaultStyle, modulesPath, qrSvg, styledLayout, type QrStyle } from "./qrStyle";

const URL_ = "https://example.com/spring-sale?qr=1";
const style = (over: Partial<QrStyle> = {}): QrStyle => ({ ...DEFAULT_QR_STYLE, ...over });

describe("styledLayout", () => {
  test("without a frame: the spec's 1500 px square, the code filling it", () => {
    const l = styledLayout(33, style());
    expect([l.width, l.height]).toEqual([1500, 1500]);
    expect(l.qrBox).toEqual({ x: 0, y: 0, size: 1500 });
    expect(l.frame).toBeNull();
    expect(l.qr).toEqual(qrLayout(33, 1500));
  });
  test("with a frame: the code keeps 1500 px; 3 modules of background, then the outline; the band below", () => {
    // 33 modules: 1500/35 px each, 3 of them = 129 px; outline 24 px; band 270 px.
    const l = styledLayout(33, style({ frameText: "Scan me" }));
    expect([l.width, l.height]).toEqual([1500 + 2 * 153, 153 + 1500 + 129 + 270]);
    expect(l.qrBox).toEqual({ x: 153, y: 153, size: 1500 });
    expect(l.frame!.band).toEqual({ x: 0, y: 153 + 1500 + 129, size: 1806, height: 270 });
    // The logo box is the spec's 525 px, whatever the frame.
    expect(l.qr.logoBox.size).toBe(525);
  });
  test("the smallest symbol gives the tallest frame (version 1: 1940 x 2186, the video test's case)", () => {
    const l = styledLayout(21, style({ frameText: "Scan me" }));
    expect([l.width, l.height]).toEqual([1940, 2186]);
  });
  test("the default style is the spec's", () => {
    expect(isDefaultStyle(style())).toBe(true);
    expect(isDefaultStyle(style({ dots: "dots" }))).toBe(false);
    expect(DEFAULT_QR_STYLE).toEqual({ foreground: "#000000", background: "#ffffff", dots: "square", corners: "square", frameText: "" });
  });
});

describe("geometry", () => {
  const m = qrMatrix(URL_);
  const l = qrLayout(m.size, 1500);
  test("finder patterns are the three 7x7 corners", () => {
    expect(inFinder(m.size, 0, 0)).toBe(true);
    expect(inFinder(m.size, 6, m.size - 1)).toBe(true);
    expect(inFinder(m.size, m.size - 1, 6)).toBe(true);
    expect(inFinder(m.size, m.size - 1, m.size - 1)).toBe(false);
    expect(inFinder(m.size, 7, 7)).toBe(false);
  });
  test("one sub-path per dark data module, for every dot shape", () => {
    let dark = 0;
    for (let r = 0; r < m.size; r++) for (let c = 0; c < m.size; c++) if (m.data[r * m.size + c] && !inFinder(m.size, r, c)) dark++;
    for (const dots of ["square", "rounded", "dots"] as const) expect(modulesPath(m, l, dots).split("M").length - 1).toBe(dark);
  });
  test("each finder is a ring, a hole and a centre (three sub-paths each)", () => {
    for (const corners of ["square", "rounded", "dots"] as const) expect(cornersPath(m.size, l, corners).split("M").length - 1).toBe(9);
  });
  test("light on dark is not read by the check's decoder (no inversion), though an inverting one would", () => {
    const px = rasterize(m, 600, "#ffffff", "#000000");
    expect(jsQR(px, 600, 600, { inversionAttempts: "dontInvert" })).toBeNull();
    expect(jsQR(px, 600, 600, { inversionAttempts: "attemptBoth" })?.data).toBe(URL_);
  });
  test("coloured modules still decode (pixel raster of the square style)", () => {
    const px = rasterize(m, 600, "#0b3d91", "#fff8dc");
    expect(Array.from(px.slice(0, 3))).toEqual([0xff, 0xf8, 0xdc]);
    expect(jsQR(px, 600, 600, { inversionAttempts: "dontInvert" })?.data).toBe(URL_);
  });
});

describe("qrSvg", () => {
  test("the whole image at its pixel size, in the style's colours", () => {
    const svg = qrSvg(URL_, style({ foreground: "#0b3d91", background: "#fff8dc", dots: "dots", corners: "rounded" }));
    expect(svg.startsWith(`<svg xmlns="http://www.w3.org/2000/svg" width="1500" height="1500" viewBox="0 0 1500 1500">`)).toBe(true);
    expect(svg).toContain(`fill="#fff8dc"`);
    expect(svg).toContain(`fill="#0b3d91"`);
    expect(svg).not.toContain("<text");
  });
  test("frame text is escaped: hostile text stays text", () => {
    const svg = qrSvg(URL_, style({ frameText: `<script>alert("x")</script>&` }));
    expect(svg).toContain("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#38;</text>");
    expect(svg).not.toContain("<script");
    const l = styledLayout(qrMatrix(URL_).size, style({ frameText: "x" }));
    expect(svg).toContain(`width="${l.width}" height="${l.height}"`);
  });
  test("colours that are not #rrggbb never reach an attribute", () => {
    expect(() => qrSvg(URL_, style({ foreground: `#000" onload="alert(1)` }))).toThrow("Invalid colour");
    expect(() => qrSvg(URL_, style({ background: "red" }))).toThrow("Invalid colour");
  });
  test("a logo goes in the spec's white box, its URL escaped", () => {
    const svg = qrSvg(URL_, style(), { logo: { dataUrl: `data:image/png;base64,AAAA"x`, width: 200, height: 100 } });
    expect(svg).toContain(`<rect x="488" y="488" width="525" height="525" fill="#ffffff"/>`);
    expect(svg).toContain(`href="data:image/png;base64,AAAA&#34;x"`);
    // 200x100 fitted into the 485 px area: 485 x 242.5, centred.
    expect(svg).toContain(`width="485" height="242.5"`);
  });
});

describe("alignment patterns", () => {
  test("centres as ISO 18004 lists them, without the finders' corners", () => {
    expect(alignmentCentres(21)).toEqual([]);
    expect(alignmentCentres(25)).toEqual([[18, 18]]);
    // Version 7: rows/columns 6, 22, 38 → 9 places minus 3 under the finders.
    expect(alignmentCentres(45)).toEqual([[6, 22], [22, 6], [22, 22], [22, 38], [38, 22], [38, 38]]);
    // Version 32 (145 modules) is the table's one irregular step (26).
    expect(alignmentCentres(145).map(([r]) => r).filter((v, i, a) => a.indexOf(v) === i)).toEqual([6, 34, 60, 86, 112, 138]);
  });
});
