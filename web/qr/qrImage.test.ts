import { describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import {
  fitInside,
  LOGO_BOX,
  moduleCountFor,
  moduleIndexAt,
  pngFileName,
  qrLayout,
  qrMatrix,
  qrText,
  rasterize,
  VIDEO_FILE_NAME,
  withScanMarker,
  ZIP_FILE_NAME,
  ZIP_PNG_NAME,
  ZIP_VIDEO_NAME,
} from "./qrImage";

describe("qrLayout", () => {
  const cases: { name: string; modules: number; size: number; moduleSize: number; box: number; boxAt: number; area: number; areaAt: number }[] = [
    // 1500 / (25 + 2) modules; box 525 centred at (1500-525)/2 = 487.5 -> 488; area 525-40.
    { name: "version 2 at 1500 px", modules: 25, size: 1500, moduleSize: 1500 / 27, box: 525, boxAt: 488, area: 485, areaAt: 508 },
    { name: "version 1 at 1500 px", modules: 21, size: 1500, moduleSize: 1500 / 23, box: 525, boxAt: 488, area: 485, areaAt: 508 },
    { name: "version 18 at 1500 px", modules: 89, size: 1500, moduleSize: 1500 / 91, box: 525, boxAt: 488, area: 485, areaAt: 508 },
    // The dialog preview scales the box: 300 * 525/1500 = 105, padding 4.
    { name: "300 px preview", modules: 25, size: 300, moduleSize: 300 / 27, box: 105, boxAt: 98, area: 97, areaAt: 102 },
    { name: "380 px preview", modules: 33, size: 380, moduleSize: 380 / 35, box: 133, boxAt: 124, area: 123, areaAt: 129 },
  ];
  for (const c of cases)
    test(c.name, () => {
      const l = qrLayout(c.modules, c.size);
      expect(l.moduleCount).toBe(c.modules);
      expect(l.moduleSize).toBeCloseTo(c.moduleSize, 10);
      expect(l.margin).toBeCloseTo(c.moduleSize, 10); // one module of quiet zone
      expect(l.logoBox).toEqual({ x: c.boxAt, y: c.boxAt, size: c.box });
      expect(l.logoArea).toEqual({ x: c.areaAt, y: c.areaAt, size: c.area });
    });

  test("the 1500 px box is the spec's 525 px with 20 px padding", () => {
    const l = qrLayout(25);
    expect(l.size).toBe(1500);
    expect(l.logoBox.size).toBe(LOGO_BOX);
    expect(l.logoArea.x - l.logoBox.x).toBe(20);
    expect(l.logoBox.x + l.logoBox.size - (l.logoArea.x + l.logoArea.size)).toBe(20);
  });

  test("rejects impossible inputs", () => {
    expect(() => qrLayout(0)).toThrow();
    expect(() => qrLayout(20)).toThrow();
    expect(() => qrLayout(25.5)).toThrow();
    expect(() => qrLayout(25, 0)).toThrow();
  });

  test("pixels map to modules with a one-module quiet zone on both sides", () => {
    const l = qrLayout(25, 1500);
    expect(moduleIndexAt(l, 0)).toBe(-1);
    expect(moduleIndexAt(l, Math.floor(l.moduleSize) - 1)).toBe(-1);
    expect(moduleIndexAt(l, Math.ceil(l.moduleSize))).toBe(0);
    expect(moduleIndexAt(l, 1499)).toBe(25);
    expect(moduleIndexAt(l, Math.floor(1500 - l.moduleSize) - 1)).toBe(24);
  });
});

describe("fitInside", () => {
  const area = { x: 10, y: 10, size: 100 };
  test("square fills the area", () => expect(fitInside(50, 50, area)).toEqual({ x: 10, y: 10, width: 100, height: 100 }));
  test("wide image is letterboxed vertically", () => expect(fitInside(200, 100, area)).toEqual({ x: 10, y: 35, width: 100, height: 50 }));
  test("tall image is pillarboxed", () => expect(fitInside(100, 400, area)).toEqual({ x: 47.5, y: 10, width: 25, height: 100 }));
});

describe("rasterize", () => {
  const urls = [
    "https://example.com/",
    "https://s.example/abc1234?qr=1",
    // Long enough for version 18 (89 modules), where a naive floor gives 1499 px.
    "https://example.com/" + "a".repeat(260),
  ];
  for (const url of urls)
    test(`exactly 1500x1500, decodes back to the URL (${url.length} chars)`, () => {
      const m = qrMatrix(url);
      const px = rasterize(m, 1500);
      expect(px.length).toBe(1500 * 1500 * 4);
      // corners are quiet zone (white), the finder pattern starts one module in (black)
      expect([px[0], px[1], px[2], px[3]]).toEqual([255, 255, 255, 255]);
      const first = Math.ceil(1500 / (m.size + 2)) + 1;
      expect(px[(first * 1500 + first) * 4]).toBe(0);
      expect(jsQR(px, 1500, 1500)?.data).toBe(url);
    });
  test("level H capacity: version 3 holds 24 bytes, the 25th needs version 4", () => {
    expect(moduleCountFor("https://example.com/abcd")).toBe(29);
    expect(moduleCountFor("https://example.com/abcde")).toBe(33);
  });
  test("a URL too long for level H throws", () => expect(() => qrMatrix("https://e.com/" + "a".repeat(1300))).toThrow());
});

describe("file names", () => {
  test("png carries the timestamp", () => expect(pngFileName(1763800000000)).toBe("qr-code-1763800000000.png"));
  test("png defaults to now", () => expect(pngFileName()).toMatch(/^qr-code-\d{13}\.png$/));
  test("video, zip and zip entries", () => {
    expect(VIDEO_FILE_NAME).toBe("qr-code-animation.mp4");
    expect(ZIP_FILE_NAME).toBe("qr-code-package.zip");
    expect(ZIP_PNG_NAME).toBe("qr-code.png");
    expect(ZIP_VIDEO_NAME).toBe("animation.mp4");
  });
});

describe("withScanMarker", () => {
  const cases: [string, string, string][] = [
    ["plain short URL", "https://s.example/abc1234", "https://s.example/abc1234?qr=1"],
    ["existing query kept verbatim", "https://s.example/abc?utm_source=a%20b&x=1+2", "https://s.example/abc?utm_source=a%20b&x=1+2&qr=1"],
    ["already marked stays single", "https://s.example/abc?qr=1", "https://s.example/abc?qr=1"],
    ["other qr value replaced", "https://s.example/abc?a=1&qr=0&b=2", "https://s.example/abc?a=1&b=2&qr=1"],
    ["fragment stays last", "https://s.example/abc?a=1#top", "https://s.example/abc?a=1&qr=1#top"],
    ["fragment without query", "https://s.example/abc#x?y", "https://s.example/abc?qr=1#x?y"],
    ["empty query", "https://s.example/abc?", "https://s.example/abc?qr=1"],
    ["similar key untouched", "https://s.example/abc?qrx=5", "https://s.example/abc?qrx=5&qr=1"],
  ];
  for (const [name, input, out] of cases) test(name, () => expect(withScanMarker(input)).toBe(out));
});

describe("qrText: the ASCII form every scanner reads the same (issue 13)", () => {
  const cases: [string, string][] = [
    ["https://example.com/spring-sale?utm_source=qr&x=1", "https://example.com/spring-sale?utm_source=qr&x=1"],
    ["https://bücher.example/café?q=é", "https://xn--bcher-kva.example/caf%C3%A9?q=%C3%A9"],
    ["https://example.com/日本#章", "https://example.com/%E6%97%A5%E6%9C%AC#%E7%AB%A0"],
  ];
  for (const [url, ascii] of cases)
    test(`${url} → ${ascii}, and the code decodes to it byte for byte`, () => {
      expect(qrText(url)).toBe(ascii);
      expect(/^[\x21-\x7e]+$/.test(qrText(url))).toBe(true);
      expect(jsQR(rasterize(qrMatrix(qrText(url)), 600), 600, 600)?.data).toBe(ascii);
    });
});
