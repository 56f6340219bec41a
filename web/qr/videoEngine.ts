// The in-browser video engine: @ffmpeg/ffmpeg, whose FFmpeg class runs the single-threaded
// @ffmpeg/core in its own Web Worker (the page stays responsive). Every file comes from this
// server under /vendor/ (see src/vendor/), never from a CDN, and only once video is asked for.
import type { FFmpeg } from "@ffmpeg/ffmpeg";
import { FFMPEG_CORE_URL, FFMPEG_WASM_URL, FFMPEG_WORKER_URL } from "../../src/shared/ffmpegPaths";
import { drawFrame, ffmpegArgs, frameName, frameParams, VIDEO, type VideoSource } from "./videoLayout";
import type { LogoSource } from "./qrImage";
import { ExportProgress } from "./videoProgress";

export class CancelledError extends Error {
  constructor() {
    super("Cancelled");
  }
}

export type EngineState = "idle" | "loading" | "ready" | "failed";

let ffmpeg: FFmpeg | null = null;
let loading: Promise<FFmpeg> | null = null;
let state: EngineState = "idle";
const listeners = new Set<(s: EngineState) => void>();

function setState(s: EngineState) {
  state = s;
  for (const l of listeners) l(s);
}

export const engineState = () => state;
export function onEngineState(l: (s: EngineState) => void) {
  listeners.add(l);
  return () => void listeners.delete(l);
}

/** Loads the engine once (later calls share the promise); a failed load can be retried. */
export function loadEngine(): Promise<FFmpeg> {
  if (loading) return loading;
  setState("loading");
  loading = (async () => {
    const { FFmpeg } = await import("@ffmpeg/ffmpeg");
    const f = new FFmpeg();
    await f.load({ coreURL: FFMPEG_CORE_URL, wasmURL: FFMPEG_WASM_URL, classWorkerURL: FFMPEG_WORKER_URL });
    ffmpeg = f;
    setState("ready");
    return f;
  })();
  loading.catch(() => {
    loading = null;
    ffmpeg = null;
    setState("failed");
  });
  return loading;
}

/** Stops the worker mid-encode (Cancel); the next video loads a fresh engine (wasm is cached). */
function resetEngine() {
  try {
    ffmpeg?.terminate();
  } catch {
    /* already gone */
  }
  ffmpeg = null;
  loading = null;
  setState("idle");
}

async function frameJpegs(qr: VideoSource, logo: LogoSource, onFrame: (i: number) => void, signal: AbortSignal) {
  const canvas = document.createElement("canvas");
  canvas.width = VIDEO.width;
  canvas.height = VIDEO.height;
  const g = canvas.getContext("2d");
  if (!g) throw new Error("Canvas not initialized");
  const out: Uint8Array[] = [];
  for (let i = 0; i < VIDEO.frames; i++) {
    if (signal.aborted) throw new CancelledError();
    drawFrame(g, qr, logo, frameParams(i));
    const blob = await new Promise<Blob | null>((r) => canvas.toBlob(r, "image/jpeg", VIDEO.jpegQuality));
    if (!blob) throw new Error("Failed to create frame");
    out.push(new Uint8Array(await blob.arrayBuffer()));
    onFrame(i + 1);
  }
  return out;
}

/**
 * Renders the 30-frame zoom animation and encodes it to MP4. `onProgress` gets 0…1, moving
 * through every phase (videoProgress.ts) and reaching 1 only with the file's bytes; aborting
 * `signal` terminates the worker and rejects with CancelledError.
 */
export async function renderVideo(
  qr: VideoSource,
  logo: LogoSource,
  onProgress: (p: number) => void,
  signal: AbortSignal,
): Promise<Uint8Array<ArrayBuffer>> {
  const f = await loadEngine();
  if (signal.aborted) throw new CancelledError();
  const onAbort = () => resetEngine();
  signal.addEventListener("abort", onAbort, { once: true });
  const bar = new ExportProgress(VIDEO.frames);
  const show = () => onProgress(bar.value(performance.now()));
  const onLog = ({ message }: { message: string }) => {
    const m = /frame=\s*(\d+)/.exec(message);
    if (m) bar.framesRead(Number(m[1]));
  };
  // The share of the clip written so far (ffmpeg's output time over the clip's length).
  const onProg = ({ progress }: { progress: number }) => {
    bar.outputWritten(progress, performance.now());
    show();
  };
  // ffmpeg is silent while x264 encodes the frames it held back: the bar is redrawn anyway.
  let ticking: ReturnType<typeof setInterval> | null = null;
  const names: string[] = [];
  try {
    const jpegs = await frameJpegs(
      qr,
      logo,
      (n) => {
        bar.framesDrawn(n);
        show();
      },
      signal,
    );
    for (let i = 0; i < jpegs.length; i++) {
      if (signal.aborted) throw new CancelledError();
      await f.writeFile(frameName(i), jpegs[i]!);
      names.push(frameName(i));
      bar.framesWritten(i + 1);
      show();
    }
    f.on("log", onLog);
    f.on("progress", onProg);
    ticking = setInterval(show, 200);
    const code = await f.exec(ffmpegArgs("out.mp4"));
    if (signal.aborted) throw new CancelledError();
    if (code !== 0) throw new Error(`ffmpeg exited with ${code}`);
    bar.encodeDone();
    show();
    const data = await f.readFile("out.mp4");
    if (typeof data === "string") throw new Error("Unexpected ffmpeg output");
    names.push("out.mp4");
    const bytes = new Uint8Array(data);
    bar.done();
    show();
    return bytes;
  } catch (e) {
    if (signal.aborted) throw new CancelledError();
    throw e;
  } finally {
    if (ticking) clearInterval(ticking);
    signal.removeEventListener("abort", onAbort);
    if (!signal.aborted && ffmpeg === f) {
      f.off("log", onLog);
      f.off("progress", onProg);
      // Free the worker's in-memory files so repeated exports do not grow its heap.
      for (const n of names) await f.deleteFile(n).catch(() => {});
    }
  }
}
