import { type MouseEvent, useEffect, useRef, useState } from "react";
import { download } from "../lib/api";
import { downloadBlob } from "../lib/saveFile";
import { toastError } from "./Toast";

const formatBytes = (n: number) => (n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024)).toLocaleString("en-US")} KB` : `${(n / (1024 * 1024)).toFixed(1)} MB`);

/**
 * A download the page reads itself: a refused one (one export at a time, the heavy-call limit)
 * says why in a toast with the server's message, where a plain link gave a failed browser
 * download and no reason (QA, sessions 13 and 15); while it runs, the bytes received and a
 * Cancel. Still a link: opened in a new tab or window (or without script) the browser downloads
 * it itself, as before.
 */
export function DownloadLink({ href, label, className }: { href: string; label: string; className?: string }) {
  const [bytes, setBytes] = useState<number | null>(null);
  // What a screen reader is told: the start and the end, not the byte count, which changes with
  // every chunk received (a live region holding it spoke all through a large export). The region
  // is always there, so a change of its text is announced.
  const [said, setSaid] = useState("");
  const running = useRef<AbortController | null>(null);
  // Leaving the page ends the read (the server's export ends with it).
  useEffect(() => () => running.current?.abort(), []);

  async function start(e: MouseEvent<HTMLAnchorElement>) {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    if (running.current) return;
    const abort = new AbortController();
    running.current = abort;
    setBytes(0);
    setSaid(`${label}: downloading`);
    try {
      const { blob, filename } = await download(href, setBytes, abort.signal);
      downloadBlob(blob, filename);
      setSaid(`${label}: saved`);
    } catch (err) {
      setSaid(abort.signal.aborted ? `${label}: cancelled` : "");
      if (!abort.signal.aborted) toastError(err, `${label} failed`);
    } finally {
      running.current = null;
      setBytes(null);
    }
  }

  return (
    <>
      <a className={className} href={href} download onClick={start} aria-busy={bytes !== null || undefined}>
        {label}
      </a>
      <span role="status" className="sr-only">
        {said}
      </span>
      {bytes !== null && (
        <span className="row download-progress">
          <span>{`${label}: ${formatBytes(bytes)} received`}</span>
          <button type="button" className="btn btn-secondary btn-sm" aria-label={`Cancel ${label}`} onClick={() => running.current?.abort()}>
            Cancel
          </button>
        </span>
      )}
    </>
  );
}
