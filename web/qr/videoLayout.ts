// The zoom animation of spec §9 'QR output', as pure maths (unit-tested) plus frame drawing.
import { drawLogo, qrLayout, type LogoSource, type QrLayout } from "./qrImage";

export const VIDEO = {
  frames: 30,
  fps: 30,
  width: 1080,
  height: 1350,
  jpegQuality: 0.95,
  crf: 23,
  pixelFormat: "yuv420p",
  zoomFrom: 1,
  zoomTo: 0.6,
  /** The logo overlay starts fading in once this share of the animation has passed. */
  logoFadeStart: 0.3,
} as const;

export type FrameParams = { progress: number; zoom: number; logoAlpha: number };

/** Frame i of n: progress 0 → 1, zoom 100% → 60%, logo alpha 0 until 30% then linear to 1. */
export function frameParams(i: number, frames: number = VIDEO.frames): FrameParams {
  const progress = frames <= 1 ? 1 : Math.min(1, Math.max(0, i / (frames - 1)));
  const zoom = VIDEO.zoomFrom + (VIDEO.zoomTo - VIDEO.zoomFrom) * progress;
  const logoAlpha = progress <= VIDEO.logoFadeStart ? 0 : (progress - VIDEO.logoFadeStart) / (1 - VIDEO.logoFadeStart);
  return { progress, zoom, logoAlpha };
}

/** ffmpeg's input file name for frame i (frame000.jpg …), matching FRAME_PATTERN. */
export const frameName = (i: number) => `frame${String(i).padStart(3, "0")}.jpg`;
export const FRAME_PATTERN = "frame%03d.jpg";

/** The ffmpeg arguments: JPEG frames at 30 fps → H.264, CRF 23, yuv420p, MP4. */
export function ffmpegArgs(output: string): string[] {
  return [
    "-framerate", String(VIDEO.fps),
    "-i", FRAME_PATTERN,
    "-frames:v", String(VIDEO.frames),
    "-c:v", "libx264",
    "-crf", String(VIDEO.crf),
    "-pix_fmt", VIDEO.pixelFormat,
    "-r", String(VIDEO.fps),
    // x264 plans 40 frames ahead by default: more than the clip, so it encoded all 30 only
    // after the last was read, in silence (the bar sat at 87 % for most of the export). With
    // 10, output, and ffmpeg's progress reports, flow while frames are read.
    "-rc-lookahead", "10",
    // moov first, so players can start before the whole file is read.
    "-movflags", "+faststart",
    output,
  ];
}

type Canvas2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** Where the code sits in the image the animation zooms (a framed code is taller than wide). */
export type VideoSource = {
  image: CanvasImageSource;
  width: number;
  height: number;
  /** The QR square inside the image, in its px: the logo overlay is placed on it. */
  qrBox: { x: number; y: number; size: number };
  moduleCount: number;
  /** The frame's ground: the style's background (white by default, as the spec has it). */
  background: string;
};

/** Where the whole image sits in a frame: full frame width at 100%, centred both ways. */
export function frameImageRect(zoom: number, width: number, height: number) {
  const w = VIDEO.width * zoom;
  const h = (w * height) / width;
  return { x: (VIDEO.width - w) / 2, y: (VIDEO.height - h) / 2, width: w, height: h };
}

/**
 * Draws frame i: the style's background, the logo-less styled image scaled to the frame's
 * zoom, and the logo overlay (white box + logo) on its QR square at the frame's alpha.
 */
export function drawFrame(g: Canvas2D, src: VideoSource, logo: LogoSource, params: FrameParams) {
  g.save();
  g.globalAlpha = 1;
  g.fillStyle = src.background;
  g.fillRect(0, 0, VIDEO.width, VIDEO.height);
  const r = frameImageRect(params.zoom, src.width, src.height);
  g.imageSmoothingEnabled = true;
  g.imageSmoothingQuality = "high";
  g.drawImage(src.image, r.x, r.y, r.width, r.height);
  if (params.logoAlpha > 0) {
    const scale = r.width / src.width;
    const layout: QrLayout = qrLayout(src.moduleCount, src.qrBox.size * scale);
    g.translate(r.x + src.qrBox.x * scale, r.y + src.qrBox.y * scale);
    g.globalAlpha = params.logoAlpha;
    drawLogo(g, layout, logo);
  }
  g.restore();
}
