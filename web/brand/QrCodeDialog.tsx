import { useEffect, useRef, useState } from "react";
import { Dialog } from "../ui/Dialog";
import { Button } from "../ui/Button";
import { Field } from "../ui/Field";
import { toast } from "../ui/Toast";
import { canvasBlob, downloadBlob, drawQr, QR_SIZE, withScanMarker } from "../qr/qrImage";
import type { LinkView } from "../links/types";

export const PREVIEW_SIZE = 300;
export const FILE_PREFIX = "qr-code-";

/** A file name a download can use: no path separators or control characters. */
export function safeFileName(name: string, fallback: string) {
  const cleaned = name.replace(/\.png$/i, "").replace(/[^A-Za-z0-9._ -]+/g, "-").replace(/^[.\s-]+/, "").trim().slice(0, 100);
  return cleaned || fallback;
}

/** Spec §2 'QR Code Generator' for a brand link: 300 px preview, File Name, Download QR Code. */
export function QrCodeDialog({ link, onClose }: { link: LinkView | null; onClose: () => void }) {
  const preview = useRef<HTMLCanvasElement | null>(null);
  const [fileName, setFileName] = useState("");
  const [busy, setBusy] = useState(false);
  const fallback = link ? `${FILE_PREFIX}${link.shortCode}` : "qr-code";
  // The scan marker lets the redirect record these visits with source 'qr'.
  const target = link ? withScanMarker(link.shortUrl) : "";

  useEffect(() => {
    if (link) setFileName(`${FILE_PREFIX}${link.shortCode}`);
  }, [link]);

  // The canvas mounts with the dialog; draw once it exists.
  const drawPreview = (canvas: HTMLCanvasElement | null) => {
    preview.current = canvas;
    if (!canvas || !target) return;
    try {
      drawQr(canvas, target, { size: PREVIEW_SIZE });
    } catch {
      toast({ title: "Error", description: "Failed to generate QR code", variant: "destructive" });
    }
  };

  async function download() {
    if (!link) return;
    setBusy(true);
    try {
      const canvas = document.createElement("canvas");
      drawQr(canvas, target, { size: QR_SIZE });
      const blob = await canvasBlob(canvas);
      downloadBlob(blob, `${safeFileName(fileName, fallback)}.png`);
      toast({ title: "QR code downloaded successfully" });
    } catch {
      toast({ title: "Error", description: "Failed to download QR code", variant: "destructive" });
    } finally {
      setBusy(false);
    }
  }

  const finalName = `${safeFileName(fileName, fallback)}.png`;
  return (
    <Dialog open={link !== null} onClose={onClose} title="QR Code Generator" description={link ? `Scanning it opens ${link.shortUrl}` : undefined}>
      <div className="stack">
        <canvas
          key={target}
          ref={drawPreview}
          className="brand-qr-preview"
          width={PREVIEW_SIZE}
          height={PREVIEW_SIZE}
          role="img"
          aria-label={`QR code for ${link?.shortUrl ?? ""}`}
        />
        <Field label="File Name" value={fileName} onChange={(e) => setFileName(e.target.value)} hint={`The file will be saved as ${finalName}`} />
        <div className="dialog-actions">
          <Button variant="secondary" onClick={onClose}>Close</Button>
          <Button onClick={download} busy={busy}>Download QR Code</Button>
        </div>
      </div>
    </Dialog>
  );
}
