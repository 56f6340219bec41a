// /qr — the QR generator of spec §2/§4/§9: custom URL or one of the user's short links, an
// optional logo, PNG / MP4 zoom animation / ZIP of both, all rendered in the browser.
import { useEffect, useId, useRef, useState, type ChangeEvent } from "react";
import useSWR from "swr";
import * as v from "valibot";
import { Link } from "wouter";
import { OriginalUrl, withScheme, type LinkView } from "../../src/links/schema";
import { linkState } from "../links/format";
// The browser build: jszip's "main" needs Node streams.
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { useUser } from "../lib/auth";
import { useConfig } from "../lib/config";
import { downloadBlob } from "../lib/saveFile";
import { Button } from "../ui/Button";
import { Field, Select } from "../ui/Field";
import { toast, toastError } from "../ui/Toast";
import {
  canvasBlob,
  pngFileName,
  qrText,
  svgFileName,
  VIDEO_FILE_NAME,
  withScanMarker,
  ZIP_FILE_NAME,
  ZIP_PNG_NAME,
  ZIP_VIDEO_NAME,
} from "./qrImage";
import { DEFAULT_QR_STYLE, drawStyledQr, qrSvg, type QrStyle, type StyledLayout } from "./qrStyle";
import { QrStyleFields, parsedStyle, styleProblems } from "./QrStyleFields";
import { logoForSvg, scanWarning } from "./downloads";
import { scansTo, svgScansTo } from "./scan";
import { CancelledError, engineState, loadEngine, onEngineState, renderVideo, type EngineState } from "./videoEngine";
import "./qr.css";

export type ExportType = "qr" | "video" | "both";
/** What the preview shows: the text, logo and style it was drawn from, and whether it scans. */
type Generated = { text: string; logo: ImageBitmap | null; style: QrStyle; layout: StyledLayout; scans: boolean };
type UrlSource = "custom" | "shortlink";
/** The fields of GET /api/links this page uses. */
/** A Link Tracker link, as GET /api/links returns it. */
type ShortLink = LinkView;

const EXPORT_OPTIONS = [
  { value: "qr", label: "QR Code Only" },
  { value: "video", label: "Video Animation" },
  { value: "both", label: "Both (ZIP)" },
];

const LINKS_KEY = "/api/links";
const isHttp = (u: string) => /^https?:\/\//i.test(u);

/** What a typed address is encoded as; text that is no URL is kept for the check to refuse. */
function asQrText(s: string) {
  try {
    return qrText(s);
  } catch {
    return s;
  }
}

/** The Link Tracker's URL messages, said of a QR code ("…links can be shortened" → "…can be made into QR codes"). */
const qrWording = (message: string) => message.replace("links can be shortened", "addresses can be made into QR codes");

function errorToast(description: string) {
  toast({ title: "Error", description, variant: "destructive" });
}

/**
 * Decodes an uploaded logo. createImageBitmap reads raster formats directly; SVG needs an
 * <img> first (Chromium rejects SVG blobs there), then a bitmap at a size fit for the box.
 */
async function readLogo(file: File): Promise<ImageBitmap> {
  try {
    return await createImageBitmap(file);
  } catch {
    const src = URL.createObjectURL(file);
    try {
      const img = new Image();
      img.src = src;
      await img.decode();
      const w = img.naturalWidth || 512;
      const h = img.naturalHeight || 512;
      const scale = 1024 / Math.max(w, h);
      return await createImageBitmap(img, { resizeWidth: Math.round(w * scale), resizeHeight: Math.round(h * scale) });
    } finally {
      URL.revokeObjectURL(src);
    }
  }
}

/** Why the style cannot be drawn, in the words shown beside its field. */
function styleRefusal(style: QrStyle) {
  const problems = styleProblems(style);
  return problems.foreground ?? problems.background ?? problems.dots ?? problems.corners ?? problems.frameText ?? "This style cannot be drawn";
}

/** The engine's load state, kept in step with the module-level engine. */
function useEngineState() {
  const [s, setS] = useState<EngineState>(engineState());
  useEffect(() => onEngineState(setS), []);
  return s;
}

export function QrPage() {
  const { user } = useUser();
  const config = useConfig();
  const [source, setSource] = useState<UrlSource>("custom");
  const [url, setUrl] = useState("");
  const [linkId, setLinkId] = useState("");
  const [exportType, setExportType] = useState<ExportType>("qr");
  const [logo, setLogo] = useState<{ bitmap: ImageBitmap; name: string } | null>(null);
  const [logoError, setLogoError] = useState("");
  const [urlError, setUrlError] = useState<string | undefined>();
  const [generating, setGenerating] = useState(false);
  const [processing, setProcessing] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  // What the canvas currently shows, so Download never saves a stale image.
  const [generated, setGenerated] = useState<Generated | null>(null);
  const [style, setStyle] = useState<QrStyle>({ ...DEFAULT_QR_STYLE });
  const [scanProblem, setScanProblem] = useState(false);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const logoInput = useRef<HTMLInputElement>(null);
  const abortRef = useRef<AbortController | null>(null);
  const engine = useEngineState();
  const ids = { source: useId(), progress: useId() };

  const links = useSWR<ShortLink[]>(user && source === "shortlink" ? LINKS_KEY : null, {
    onError: (e) => toastError(e, "Failed to fetch short links"),
  });
  // Expired and switched-off links answer 410: a QR code for one would be dead on arrival.
  const usable = (links.data ?? []).filter((l) => linkState(l) === "active");
  const selected = usable.find((l) => String(l.id) === linkId) ?? null;
  const shortUrlOf = (l: ShortLink) => l.shortUrl ?? `${config?.shortBaseUrl ?? location.origin}/${l.shortCode}`;
  const wantsVideo = exportType !== "qr";

  // The engine (32 MB of wasm) is fetched only once a video export is chosen.
  useEffect(() => {
    if (wantsVideo && engineState() === "idle") loadEngine().catch(() => {});
  }, [wantsVideo]);

  // Cancel a running render when leaving the page.
  useEffect(() => () => abortRef.current?.abort(), []);

  /** The exact text the QR encodes: short links carry the scan marker ('?qr=1'). */
  const encodedText = () => (source === "shortlink" ? (selected ? withScanMarker(qrText(shortUrlOf(selected))) : "") : asQrText(withScheme(url.trim())));

  const switchSource = (next: UrlSource) => {
    setSource(next);
    // Spec §4: switching to custom clears the URL and the chosen link.
    setUrl("");
    setUrlError(undefined);
    setLinkId("");
  };

  const chooseLink = (id: string) => {
    setLinkId(id);
    const l = usable.find((x) => String(x.id) === id);
    setUrl(l ? shortUrlOf(l) : "");
  };

  const onLogo = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    setLogoError("");
    if (!file) return setLogo(null);
    try {
      setLogo({ bitmap: await readLogo(file), name: file.name });
    } catch {
      setLogo(null);
      setLogoError("This file could not be read as an image");
      e.target.value = "";
    }
  };

  const clearLogo = () => {
    setLogo(null);
    setLogoError("");
    if (logoInput.current) logoInput.current.value = "";
  };

  /** Draws the 1500 px QR into the preview canvas and checks it scans; null when it could not. */
  function generate(quiet: boolean) {
    const text = encodedText();
    if (!text) {
      errorToast(source === "shortlink" && !selected ? "No link selected or canvas not initialized" : "Please enter a URL");
      return null;
    }
    if (source === "custom") {
      // The Link Tracker's own rules (src/links/schema.ts): only real http(s) addresses.
      const checked = v.safeParse(OriginalUrl, url);
      if (!checked.success) {
        // One rule, but nothing is shortened here: the Link Tracker's wording is adapted.
        const message = qrWording(checked.issues[0].message);
        setUrlError(message);
        setGenerated(null);
        errorToast(message);
        return null;
      }
      setUrlError(undefined);
    }
    // Colours that cannot scan are refused with the reason (also shown beside the field).
    const drawn = parsedStyle(style);
    if (!drawn) {
      // The last good preview stays; Download refuses until the style is fixed.
      errorToast(styleRefusal(style));
      return null;
    }
    const canvas = canvasRef.current;
    if (!canvas) {
      errorToast("Canvas not initialized");
      return null;
    }
    try {
      const layout = drawStyledQr(canvas, text, drawn, { logo: logo?.bitmap });
      const scans = scansTo(canvas, text);
      const g: Generated = { text, logo: logo?.bitmap ?? null, style: drawn, layout, scans };
      setGenerated(g);
      setScanProblem(!scans);
      if (!quiet) toast({ title: "QR code generated successfully" });
      return g;
    } catch (e) {
      setGenerated(null);
      toastError(e, "Failed to generate QR code");
      return null;
    }
  }

  const onGenerate = async () => {
    setGenerating(true);
    // Let React paint 'Generating...' before the synchronous render and decode.
    await new Promise((r) => setTimeout(r, 0));
    try {
      generate(false);
    } finally {
      setGenerating(false);
    }
  };

  async function downloadPng(canvas: HTMLCanvasElement) {
    const blob = await canvasBlob(canvas);
    downloadBlob(blob, pngFileName());
    toast({ title: "QR code downloaded successfully" });
  }

  /** The preview brought up to date with the inputs (null when it cannot be drawn), before any download. */
  function current(): Generated | null {
    const g = generated;
    const drawn = parsedStyle(style);
    if (g && drawn && g.text === encodedText() && g.logo === (logo?.bitmap ?? null) && JSON.stringify(g.style) === JSON.stringify(drawn)) return g;
    return generate(true);
  }

  const onDownload = async () => {
    if (!generated) return errorToast("No QR code to download");
    if (!parsedStyle(style)) return errorToast(styleRefusal(style));
    const canvas = canvasRef.current;
    if (!canvas) return errorToast("Canvas not initialized");
    setProcessing(true);
    await new Promise((r) => setTimeout(r, 0));
    try {
      // Inputs changed since Generate: bring the image up to date first.
      const g = current();
      if (!g) return;
      // Nothing is offered that does not read back to its address (the styled PNG, the ZIP's PNG, the video's source).
      if (!g.scans) return errorToast(scanWarning(g.text));
      // Spec §4: video only with a logo and a loaded engine; otherwise the plain PNG.
      if (!wantsVideo || !g.logo) return await downloadPng(canvas);
      try {
        await loadEngine();
      } catch {
        await downloadPng(canvas);
        errorToast("Video processing not initialized");
        return;
      }
      await downloadVideo(canvas, g);
    } catch (e) {
      toastError(e, "Failed to download QR code");
    } finally {
      setProcessing(false);
      setProgress(null);
      abortRef.current = null;
    }
  };

  const onDownloadSvg = async () => {
    if (!generated) return errorToast("No QR code to download");
    if (!parsedStyle(style)) return errorToast(styleRefusal(style));
    setProcessing(true);
    await new Promise((r) => setTimeout(r, 0));
    try {
      const g = current();
      if (!g) return;
      const svg = qrSvg(g.text, g.style, { logo: g.logo ? logoForSvg(g.logo) : null });
      // The SVG is checked as this browser draws it, not assumed equal to the PNG.
      if (!(await svgScansTo(svg, g.text))) return errorToast(scanWarning(g.text));
      downloadBlob(new Blob([svg], { type: "image/svg+xml" }), svgFileName());
      toast({ title: "QR code downloaded successfully" });
    } catch (e) {
      toastError(e, "Failed to download QR code");
    } finally {
      setProcessing(false);
    }
  };

  async function downloadVideo(canvas: HTMLCanvasElement, g: Generated) {
    const logoBitmap = g.logo!;
    const png = await canvasBlob(canvas);
    // The animation zooms the styled code without its logo and fades the logo in, so frames start logo-less.
    const plain = document.createElement("canvas");
    const layout = drawStyledQr(plain, g.text, g.style);
    const source = { image: plain, width: layout.width, height: layout.height, qrBox: layout.qrBox, moduleCount: layout.qr.moduleCount, background: g.style.background };
    const abort = new AbortController();
    abortRef.current = abort;
    setProgress(0);
    let mp4: Uint8Array<ArrayBuffer>;
    try {
      mp4 = await renderVideo(source, logoBitmap, setProgress, abort.signal);
    } catch (e) {
      if (e instanceof CancelledError) return;
      errorToast("Failed to generate video animation");
      return;
    }
    if (exportType === "video") {
      downloadBlob(new Blob([mp4], { type: "video/mp4" }), VIDEO_FILE_NAME);
    } else {
      // The ZIP library (~30 KB gzipped) is fetched only for this export.
      const { default: JSZip } = await import("jszip/dist/jszip.min.js");
      const zip = new JSZip();
      zip.file(ZIP_PNG_NAME, png);
      zip.file(ZIP_VIDEO_NAME, mp4);
      downloadBlob(await zip.generateAsync({ type: "blob", mimeType: "application/zip" }), ZIP_FILE_NAME);
    }
    toast({ title: "QR code generated and downloaded successfully" });
  }

  const percent = progress === null ? 0 : Math.round(progress * 100);
  const linkOptions = [{ value: "", label: "Select a short link" }, ...usable.map((l) => ({ value: String(l.id), label: `${l.title} (${l.shortCode})` }))];

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container qr-page">
        <h1>QR Code Generator</h1>
        <div className="qr-grid">
          <section className="card stack" aria-label="QR code settings">
            {user && (
              <fieldset className="qr-source">
                <legend>URL source</legend>
                <div className="row">
                  <label className="qr-radio">
                    <input type="radio" name={ids.source} checked={source === "custom"} onChange={() => switchSource("custom")} />
                    Custom URL
                  </label>
                  <label className="qr-radio">
                    <input type="radio" name={ids.source} checked={source === "shortlink"} onChange={() => switchSource("shortlink")} />
                    My Short Links
                  </label>
                </div>
              </fieldset>
            )}

            {source === "shortlink" &&
              (links.isLoading ? (
                <p className="muted">Loading short links…</p>
              ) : !usable.length ? (
                <div className="qr-no-links">
                  <p className="muted">No short links found</p>
                  <p>
                    <Link href="/link-tracker?create=1">Create a short link</Link> in the Link Tracker, or choose Custom URL to make a QR code for any address.
                  </p>
                </div>
              ) : (
                <Select label="Short link" className="qr-link-select" options={linkOptions} value={linkId} onChange={(e) => chooseLink(e.target.value)} />
              ))}

            {source === "shortlink" && selected && (
              <p className="qr-redirect">
                This QR code will redirect to:{" "}
                {isHttp(selected.originalUrl) ? (
                  <a href={selected.originalUrl} target="_blank" rel="noopener noreferrer">{selected.originalUrl}</a>
                ) : (
                  <span>{selected.originalUrl}</span>
                )}
              </p>
            )}

            <Field
              label="URL"
              type="url"
              inputMode="url"
              placeholder="https://example.com"
              value={url}
              disabled={source === "shortlink"}
              onChange={(e) => {
                setUrl(e.target.value);
                if (urlError) setUrlError(undefined);
              }}
              error={urlError}
              onKeyDown={(e) => e.key === "Enter" && !generating && onGenerate()}
              hint={source === "shortlink" && selected ? "Scans of this code are counted as QR visits (the code adds ?qr=1)." : undefined}
            />

            <div className="field">
              <span id={`${ids.source}-logo-label`} className="field-label">Logo (optional)</span>
              {/* The native input stays focusable but unseen; its label is the visible button. */}
              <input
                ref={logoInput}
                id={`${ids.source}-logo`}
                className="file-input"
                type="file"
                accept="image/*"
                onChange={onLogo}
                aria-labelledby={`${ids.source}-logo-label`}
                aria-describedby={`${ids.source}-logo-hint`}
                aria-invalid={logoError ? true : undefined}
              />
              <label htmlFor={`${ids.source}-logo`} className="btn btn-secondary btn-md file-button" aria-hidden="true">
                {logo ? "Choose another image" : "Choose image"}
              </label>
              <p id={`${ids.source}-logo-hint`} className="hint">For best results, use a square image</p>
              {logoError && <p className="field-error" role="alert">{logoError}</p>}
              {logo && (
                <div className="row">
                  <span className="muted qr-logo-name">{logo.name}</span>
                  <Button variant="ghost" size="sm" onClick={clearLogo}>Remove logo</Button>
                </div>
              )}
            </div>

            <QrStyleFields style={style} onChange={setStyle} signedIn={!!user} />

            <Select label="Export Type" options={EXPORT_OPTIONS} value={exportType} onChange={(e) => setExportType(e.target.value as ExportType)} />
            {wantsVideo && (
              <p className="hint" role="status">
                {!logo
                  ? "The video needs a logo; without one the QR code is saved as a PNG."
                  : engine === "loading"
                    ? "Loading the video engine…"
                    : engine === "failed"
                      ? "The video engine could not be loaded; the QR code will be saved as a PNG."
                      : engine === "ready"
                        ? "Video engine ready."
                        : null}
              </p>
            )}

            <div className="row">
              {/* With no link to choose there is nothing to generate (the spec's 'No link selected…' toast stays for a cleared choice). */}
              <Button onClick={onGenerate} disabled={generating || processing || (source === "shortlink" && !links.isLoading && !usable.length)}>
                {generating ? "Generating..." : "Generate"}
              </Button>
              <Button variant="secondary" onClick={onDownload} disabled={processing || generating}>
                {processing ? "Processing..." : "Download"}
              </Button>
              <Button variant="secondary" onClick={onDownloadSvg} disabled={processing || generating}>
                Download SVG
              </Button>
            </div>

            {progress !== null && (
              <div className="qr-progress">
                <label htmlFor={ids.progress}>{engine === "loading" ? "Loading the video engine…" : `Rendering video… ${percent}%`}</label>
                <div className="row">
                  <progress id={ids.progress} max={100} value={percent} />
                  <Button variant="secondary" size="sm" onClick={() => abortRef.current?.abort()}>Cancel</Button>
                </div>
              </div>
            )}
          </section>

          <section className="card qr-preview-card" aria-label="Preview">
            {/* Before the first code, a placeholder says what will appear instead of a blank box. */}
            {!generated && (
              <div className="qr-preview qr-placeholder">
                <span className="qr-placeholder-icon" aria-hidden="true">▦</span>
                <p>Your QR code will appear here.</p>
                <p className="muted">Enter a URL and press Generate.</p>
              </div>
            )}
            <canvas
              ref={canvasRef}
              className="qr-preview"
              width={1500}
              height={1500}
              role="img"
              hidden={!generated}
              aria-label={generated ? `QR code for ${generated.text}` : "QR code preview (not generated yet)"}
            />
            {scanProblem && generated && (
              <p className="qr-warning" role="alert">
                {scanWarning(generated.text)}
              </p>
            )}
            {!scanProblem && generated && <p className="muted qr-ok">Checked: scans to {generated.text}</p>}
          </section>
        </div>
      </main>
      <AppFooter />
    </div>
  );
}
