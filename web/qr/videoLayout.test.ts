import { describe, expect, test } from "bun:test";
import { ffmpegArgs, frameName, frameParams, frameImageRect, FRAME_PATTERN, VIDEO } from "./videoLayout";

describe("video constants (spec §9)", () => {
  test("30 frames at 30 fps, 1080x1350, JPEG 0.95, CRF 23, yuv420p, 100% → 60%, logo after 30%", () => {
    expect(VIDEO).toEqual({
      frames: 30,
      fps: 30,
      width: 1080,
      height: 1350,
      jpegQuality: 0.95,
      crf: 23,
      pixelFormat: "yuv420p",
      zoomFrom: 1,
      zoomTo: 0.6,
      logoFadeStart: 0.3,
    });
  });
});

describe("frameParams", () => {
  const cases: [string, number, { progress: number; zoom: number; logoAlpha: number }][] = [
    ["first frame: full size, no logo", 0, { progress: 0, zoom: 1, logoAlpha: 0 }],
    ["last frame: 60%, logo fully shown", 29, { progress: 1, zoom: 0.6, logoAlpha: 1 }],
    ["halfway through the frames", 14.5, { progress: 0.5, zoom: 0.8, logoAlpha: (0.5 - 0.3) / 0.7 }],
  ];
  for (const [name, i, want] of cases)
    test(name, () => {
      const p = frameParams(i);
      expect(p.progress).toBeCloseTo(want.progress, 10);
      expect(p.zoom).toBeCloseTo(want.zoom, 10);
      expect(p.logoAlpha).toBeCloseTo(want.logoAlpha, 10);
    });

  test("the logo stays hidden up to 30% of the progress and appears right after", () => {
    // 30% of 29 steps = frame 8.7: frames 0..8 hidden, frame 9 is the first with the logo.
    for (let i = 0; i <= 8; i++) expect(frameParams(i).logoAlpha).toBe(0);
    expect(frameParams(9).logoAlpha).toBeGreaterThan(0);
  });

  test("zoom falls and logo alpha rises monotonically, within bounds", () => {
    for (let i = 1; i < VIDEO.frames; i++) {
      const a = frameParams(i - 1);
      const b = frameParams(i);
      expect(b.zoom).toBeLessThan(a.zoom);
      expect(b.logoAlpha).toBeGreaterThanOrEqual(a.logoAlpha);
      expect(b.zoom).toBeGreaterThanOrEqual(0.6 - 1e-12);
      expect(b.logoAlpha).toBeLessThanOrEqual(1);
    }
  });

  test("out-of-range frames are clamped; a single frame is the end state", () => {
    expect(frameParams(-5).progress).toBe(0);
    expect(frameParams(99).progress).toBe(1);
    expect(frameParams(0, 1)).toEqual({ progress: 1, zoom: 0.6, logoAlpha: 1 });
  });
});

describe("frameImageRect", () => {
  test("100%: a square code spans the frame width, centred vertically", () => {
    expect(frameImageRect(1, 1500, 1500)).toEqual({ x: 0, y: 135, width: 1080, height: 1080 });
  });
  test("60%: 648 px, centred both ways", () => {
    const r = frameImageRect(0.6, 1500, 1500);
    expect(r.width).toBeCloseTo(648, 10);
    expect(r.height).toBeCloseTo(648, 10);
    expect(r.x).toBeCloseTo(216, 10);
    expect(r.y).toBeCloseTo(351, 10);
  });
  test("the tallest framed code (version 1: 1940 x 2186) keeps its aspect and fits the 1080 x 1350 frame", () => {
    const r = frameImageRect(1, 1940, 2186);
    expect(r.width).toBe(1080);
    expect(r.height).toBeCloseTo((1080 * 2186) / 1940, 10);
    expect(r.height).toBeLessThanOrEqual(1350);
    expect(r.y).toBeCloseTo((1350 - r.height) / 2, 10);
  });
});

describe("ffmpeg invocation", () => {
  test("frame names follow the input pattern", () => {
    expect(frameName(0)).toBe("frame000.jpg");
    expect(frameName(29)).toBe("frame029.jpg");
    expect(FRAME_PATTERN).toBe("frame%03d.jpg");
  });
  test("H.264 CRF 23 yuv420p at 30 fps, exactly 30 frames", () => {
    const a = ffmpegArgs("out.mp4");
    const opt = (name: string) => a[a.indexOf(name) + 1];
    expect(opt("-framerate")).toBe("30");
    expect(opt("-i")).toBe("frame%03d.jpg");
    expect(opt("-frames:v")).toBe("30");
    expect(opt("-c:v")).toBe("libx264");
    // Output flows while frames are read, so the progress bar has reports to follow.
    expect(opt("-rc-lookahead")).toBe("10");
    expect(opt("-crf")).toBe("23");
    expect(opt("-pix_fmt")).toBe("yuv420p");
    expect(a.at(-1)).toBe("out.mp4");
  });
});
