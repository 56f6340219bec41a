import { describe, expect, test } from "bun:test";
import { ExportProgress, SHARES } from "./videoProgress";

describe("MP4 export progress", () => {
  test("every phase moves the bar, which never goes back and reaches 1 only when the file is in hand", () => {
    const p = new ExportProgress(30);
    const seen: number[] = [];
    let now = 0;
    const look = () => seen.push(p.value(now));
    for (let i = 1; i <= 30; i++) (p.framesDrawn(i), (now += 100), look());
    expect(seen.at(-1)).toBeCloseTo(SHARES.draw);
    for (let i = 1; i <= 30; i++) (p.framesWritten(i), (now += 10), look());
    expect(seen.at(-1)).toBeCloseTo(SHARES.draw + SHARES.write);
    // ffmpeg reads frames; output starts after x264's lookahead, then flows.
    for (let i = 1; i <= 30; i++) {
      p.framesRead(i);
      if (i > 13) p.outputWritten((i - 13) / 30, now);
      now += 300;
      look();
    }
    const afterRead = seen.at(-1)!;
    // The silent flush: no report for several seconds, and the bar keeps moving.
    for (let i = 0; i < 20; i++) (now += 200, look());
    expect(seen.at(-1)!).toBeGreaterThan(afterRead + 0.05);
    expect(seen.at(-1)!).toBeLessThan(1 - SHARES.finish);
    p.encodeDone();
    look();
    expect(seen.at(-1)).toBeCloseTo(1 - SHARES.finish);
    expect(Math.max(...seen)).toBeLessThan(1);
    p.done();
    look();
    expect(seen.at(-1)).toBe(1);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
  });

  test("a guess never passes the last report by more than the cap allows, and a later report wins", () => {
    const p = new ExportProgress(30);
    p.framesRead(30);
    p.outputWritten(0.1, 0);
    p.outputWritten(0.5, 1000);
    // At the measured rate the guess would pass 1 after 2 s; it stays below the encode's end.
    const late = p.value(60_000);
    expect(late).toBeLessThan(SHARES.draw * 0 + SHARES.write * 0 + SHARES.encode);
    p.outputWritten(0.9, 61_000);
    expect(p.value(61_000)).toBeGreaterThanOrEqual(late);
    // Reports that are not real progress change nothing.
    const before = p.value(61_000);
    p.outputWritten(Number.NaN, 62_000);
    p.outputWritten(-1, 62_000);
    p.outputWritten(0.2, 62_000);
    expect(p.value(62_000)).toBe(before);
  });

  test("with a single report there is no rate to extrapolate: the bar holds", () => {
    const p = new ExportProgress(30);
    p.framesRead(30);
    p.outputWritten(0.4, 0);
    expect(p.value(10_000)).toBe(p.value(0));
  });
});
