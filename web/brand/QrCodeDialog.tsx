import { useEffect, useRef, useState } from "react";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Field } from "../ui/Field";
import { toast } from "../ui/Toast";
import { canvasBlob, QR_SIZE, withScanMarker } from "../qr/qrImage";
import { downloadBlob } from "../lib/saveFile";
import { DEFAULT_QR_STYLE, drawStyledQr, qrSvg, type QrStyle } from "../qr/qrStyle";
import { QrStyleFields, parsedStyle, styleProblems } from "../qr/QrStyleFields";
import { scanWarning } from "../qr/downloads";
import { scansTo, svgScansTo } from "../qr/scan";
import type { LinkView } from "../links/types";
import "../qr/qr.css";

export const PREVIEW_SIZE = 300;
export const FILE_PREFIX = "qr-code-";

/** A file name a download can use: no path separators or control characters. */
export function safeFileName(name: string, fallback: string) {
  const cleaned = name.replace(/\.(png|svg)$/i, "").replace(/[^A-Za-z0-9._ -]+/g, "-").replace(/^[.\s-]+/, "").trim().slice(0, 100);
  return cleaned || fallback;
}

const errorToast = (description: string) => toast({ title: "Error", description, variant: "destructive" });

/**
 * Spec §2 'QR Code Generator' for a brand link: 300 px preview, File Name, Download QR Code; and
 * the QR page's style (issue 25) with an SVG download. Every file is decoded before it is saved.
 */
export function QrCodeDialog({ link, onClose }: { link: LinkView | null; onClose: () => void }) {
  const [fileName, setFileName] = useState("");
  const [busy, setBusy] = useState<"" | "png" | "svg">("");
  const [style, setStyle] = useState<QrStyle>({ ...DEFAULT_QR_STYLE });
  const preview = useRef<HTMLCanvasElement | null>(null);
  const fallback = link ? `${FILE_PREFIX}${link.shortCode}` : "qr-code";
  // The scan marker lets the redirect record these visits with source 'qr'.
  const target = link ? withScanMarker(link.shortUrl) : "";
  const drawn = parsedStyle(style);
  const problem = drawn ? null : Object.values(styleProblems(style))[0] ?? null;

  useEffect(() => {
    if (link) setFileName(`${FILE_PREFIX}${link.shortCode}`);
  }, [link]);

  // The preview follows the style as it is edited; a style that cannot scan keeps the last good one.
  useEffect(() => {
    const canvas = preview.current;
    if (!canvas || !target || !drawn) return;
    try {
      drawStyledQr(canvas, target, drawn, { size: PREVIEW_SIZE });
    } catch {
      errorToast("Failed to generate QR code");
    }
  }, [target, JSON.stringify(drawn)]);

  // The canvas mounts with the dialog; draw once it exists.
  const mountPreview = (canvas: HTMLCanvasElement | null) => {
    preview.current = canvas;
    if (!canvas || !target) return;
    try {
      drawStyledQr(canvas, target, parsedStyle(style) ?? DEFAULT_QR_STYLE, { size: PREVIEW_SIZE });
    } catch {
      errorToast("Failed to generate QR code");
    }
  };

  async function download(kind: "png" | "svg") {
    if (!link) return;
    if (!drawn) return errorToast(problem ?? "This style cannot be drawn");
    setBusy(kind);
    try {
      const name = `${safeFileName(fileName, fallback)}.${kind}`;
      if (kind === "png") {
        const canvas = document.createElement("canvas");
        drawStyledQr(canvas, target, drawn, { size: QR_SIZE });
        if (!scansTo(canvas, target)) return errorToast(scanWarning(target));
        downloadBlob(await canvasBlob(canvas), name);
      } else {
        const svg = qrSvg(target, drawn);
        if (!(await svgScansTo(svg, target))) return errorToast(scanWarning(target));
        downloadBlob(new Blob([svg], { type: "image/svg+xml" }), name);
      }
      toast({ title: "QR code downloaded successfully" });
    } catch {
      errorToast("Failed to download QR code");
    } finally {
      setBusy("");
    }
  }

  const finalName = `${safeFileName(fileName, fallback)}.png`;
  return (
    <Dialog open={link !== null} onClose={onClose} title="QR Code Generator" description={link ? `Scanning it opens ${link.shortUrl}` : undefined}>
      <div className="stack">
        <canvas
          key={target}
          ref={mountPreview}
          className="brand-qr-preview"
          width={PREVIEW_SIZE}
          height={PREVIEW_SIZE}
          role="img"
          aria-label={`QR code for ${link?.shortUrl ?? ""}`}
        />
        <Field label="File Name" value={fileName} onChange={(e) => setFileName(e.target.value)} hint={`The file will be saved as ${finalName}`} />
        <details className="qr-style-details">
          <summary>Style: colours, shapes and frame</summary>
          <QrStyleFields style={style} onChange={setStyle} signedIn />
        </details>
        <div className="dialog-actions">
          <Button variant="secondary" onClick={onClose}>Close</Button>
          <Button variant="secondary" onClick={() => download("svg")} busy={busy === "svg"} disabled={busy !== ""}>Download SVG</Button>
          <Button onClick={() => download("png")} busy={busy === "png"} disabled={busy !== ""}>Download QR Code</Button>
        </div>
      </div>
    </Dialog>
  );
}
