// Progress of an MP4 export, 0 → 1, for the QR page's bar. Pure (time is passed in), so it is
// unit-tested. Each phase has a share of the bar by the time it takes (measured in Chromium:
// drawing ~15 %, handing frames to the engine ~5 %, ffmpeg ~77 %, reading the file back ~3 %).
//
// ffmpeg reports two things while it runs: "frame=N" (frames read and handed to x264) and the
// progress event (output written, as a share of the 1 s clip). x264 holds frames back to plan
// ahead, so after the last frame is read it still encodes the last dozen or so without any
// report. In that silence the bar goes on at the encoding rate measured so far, capped below
// the end of the phase: it keeps moving, never claims a finished file, and jumps to the real
// value with the next report. 100 % only once the file's bytes are in hand (done()).

export const SHARES = { draw: 0.15, write: 0.05, encode: 0.77, finish: 0.03 } as const;
/** Inside the encode phase: reading frames (x264 analyses them as they come) vs. writing output. */
const READ_SHARE = 0.3;
/** The guessed part of the encode never goes past this: the last step is left for the report. */
const GUESS_CAP = 0.97;

export class ExportProgress {
  private drawn = 0;
  private written = 0;
  private read = 0;
  private encoded = 0;
  private firstReport: { at: number; value: number } | null = null;
  private lastReport: { at: number; value: number } | null = null;
  private encodedGuess = 0;
  private finished = false;
  private shown = 0;

  constructor(private readonly frames: number) {}

  framesDrawn(n: number) {
    this.drawn = Math.min(1, n / this.frames);
  }
  framesWritten(n: number) {
    this.written = Math.min(1, n / this.frames);
  }
  /** ffmpeg's "frame=N". */
  framesRead(n: number) {
    this.read = Math.max(this.read, Math.min(1, n / this.frames));
  }
  /** ffmpeg's progress event: the share of the clip written to the output. */
  outputWritten(share: number, now: number) {
    if (!Number.isFinite(share) || share <= 0) return;
    const value = Math.min(1, share);
    if (value <= this.encoded) return;
    this.encoded = value;
    this.firstReport ??= { at: now, value };
    this.lastReport = { at: now, value };
  }
  /** ffmpeg has exited: everything is encoded. */
  encodeDone() {
    this.read = 1;
    this.encoded = 1;
  }
  /** The file's bytes are in hand. */
  done() {
    this.finished = true;
  }

  /** The bar's value at `now` (ms): never goes back. */
  value(now: number): number {
    if (this.finished) return (this.shown = 1);
    let encoded = this.encoded;
    if (encoded < 1 && this.firstReport && this.lastReport && this.lastReport.at > this.firstReport.at) {
      // Extrapolate at the measured rate, only ever up to the cap.
      const rate = (this.lastReport.value - this.firstReport.value) / (this.lastReport.at - this.firstReport.at);
      const guess = Math.min(GUESS_CAP, this.lastReport.value + rate * (now - this.lastReport.at));
      this.encodedGuess = Math.max(this.encodedGuess, guess);
      encoded = Math.max(encoded, this.encodedGuess);
    }
    const encode = READ_SHARE * this.read + (1 - READ_SHARE) * encoded;
    const v = SHARES.draw * this.drawn + SHARES.write * this.written + SHARES.encode * encode;
    // Before done(), stop short of the finish share: reading the file back is still to come.
    this.shown = Math.max(this.shown, Math.min(v, 1 - SHARES.finish));
    return this.shown;
  }
}
