import { useEffect, useRef, useState } from "react";
import { Button } from "../ui/Button";
import { Menu } from "../ui/Menu";
import { clicksLabel, copyLink, formatDate, linkState } from "./format";
import type { LinkView } from "./types";
import type { TagColor } from "../../src/tags/schema";
import { TagChips } from "./tags";

/** How long the Copy button reads "Copied" after a copy. */
export const COPIED_MS = 2000;

/**
 * The short URL's Copy button, which says "Copied ✓" in place for two seconds (the spec's toast
 * still comes too), so the confirmation is where the eye and the focus are.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    if (!(await copyLink(text))) return;
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_MS);
  };
  return (
    <Button variant="secondary" size="sm" className={`copy-button ${copied ? "is-copied" : ""}`} onClick={copy} aria-label={copied ? `Copied short URL for ${label}` : `Copy short URL for ${label}`}>
      <span aria-hidden="true">{copied ? "Copied ✓" : "Copy"}</span>
      {/* Announced once, politely, where a screen reader's user is. */}
      <span className="sr-only" role="status">{copied ? "Copied" : ""}</span>
    </Button>
  );
}

/**
 * A row's clicks over the last days (the list page carries them: no request per row), as a tiny
 * line drawn in SVG; its text alternative says the total, which is what the line shows at a glance.
 */
export function Sparkline({ values }: { values: number[] }) {
  const max = Math.max(1, ...values);
  const w = 56;
  const h = 16;
  const step = values.length > 1 ? w / (values.length - 1) : w;
  const points = values.map((n, i) => `${(i * step).toFixed(1)},${(h - 1 - (n / max) * (h - 2)).toFixed(1)}`).join(" ");
  const total = values.reduce((a, b) => a + b, 0);
  return (
    <svg className="sparkline" width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`${total.toLocaleString("en")} ${total === 1 ? "click" : "clicks"} in the last ${values.length} days`}>
      <polyline points={points} fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" />
    </svg>
  );
}

type Props = {
  /** A list page's links also carry their recent clicks per day (recentClicks). */
  link: LinkView & { recentClicks?: number[] };
  /** Each tag's colour by its lower-cased name. */
  tagColors: Map<string, TagColor>;
  brand: boolean;
  onAnalytics: () => void;
  onEdit: () => void;
  onSmart: () => void;
  onQr: () => void;
  onPublicStats: () => void;
  onReset: () => void;
  onDelete: () => void;
};

/**
 * One link as a dense row (issue 25): title and badges over the destination; the short URL
 * with Copy; the clicks; Analytics, and the rest (Open, Edit, QR code, Reset, Delete last) in
 * a menu, so a list of 100 links is not 100 red buttons. Two lines high on a wide screen;
 * on a phone the parts stack.
 */
export function LinkRow({ link: l, tagColors, brand, onAnalytics, onEdit, onSmart, onQr, onPublicStats, onReset, onDelete }: Props) {
  const state = linkState(l);
  const items = [
    { label: "Open destination", onSelect: () => window.open(l.originalUrl, "_blank", "noopener,noreferrer") },
    { label: "Edit", onSelect: onEdit },
    // The root link (brand tracker) always goes to ROOT_REDIRECT_URL: no settings for it.
    ...(l.isSystem ? [] : [{ label: "Smart settings", onSelect: onSmart }]),
    { label: "QR code", onSelect: onQr },
    { label: "Public stats page", onSelect: onPublicStats },
    ...(brand ? [{ label: "Reset click count", onSelect: onReset }] : []),
    { label: "Delete", onSelect: onDelete, danger: true },
  ];
  return (
    <li className={`link-row link-${state}`} data-link={l.id}>
      <div className="link-row-main">
        <div className="link-row-title">
          <h2 className="link-title" dir="auto" title={l.title}>{l.title}</h2>
          {/* An expired or switched-off link no longer redirects (the server answers 410). */}
          {state === "expired" && <span className="badge badge-ended">Expired</span>}
          {state === "inactive" && <span className="badge badge-ended">Inactive</span>}
          {l.hostWarning && <span className="badge badge-ended">Look-alike</span>}
          {/* Smart links at a glance (issue 24): each badge says what the link does besides redirecting. */}
          {l.smart?.protected && <span className="badge badge-smart">Password</span>}
          {/* Spent says so in words (not only a colour): the link now answers its fallback or 410 page. */}
          {l.smart?.limited && (l.smart.spent ? <span className="badge badge-ended">Click limit reached</span> : <span className="badge badge-smart">Click limit</span>)}
          {l.smart?.ruled && <span className="badge badge-smart">Rules</span>}
          {l.smart?.split && <span className="badge badge-smart">A/B split</span>}
          {/* On the title's line when they fit beside it (a row stays one line of title and one
              of destination, so ≥ 10 rows fit at 1280 × 800); under it when they do not. */}
          <TagChips names={l.tags} colors={tagColors} />
        </div>
        <a className="link-dest" href={l.originalUrl} target="_blank" rel="noopener noreferrer" title={l.originalUrl} dir="ltr">
          {l.originalUrl}
        </a>
        {l.hostWarning && (
          // The punycode name is what the browser really visits: shown beside the warning.
          <p className="field-error break link-warning" role="note">
            ⚠ {l.hostWarning.message} Real name: <code>{l.hostWarning.asciiHost}</code>
          </p>
        )}
      </div>
      <div className="link-row-short">
        {/* Shown without its scheme, as Dub does, so the code at its end fits; Copy copies it whole. */}
        <code title={l.shortUrl}>{l.shortUrl.replace(/^https?:\/\//, "")}</code>
        <CopyButton text={l.shortUrl} label={l.title} />
      </div>
      <div className="link-row-stats">
        <span className="link-clicks">
          {clicksLabel(l.clickCount)}
          {l.recentClicks && <Sparkline values={l.recentClicks} />}
        </span>
        {/* Visits the tool it was imported from had counted: shown apart, never added to ours. */}
        {l.importedClicks !== null && <span className="muted link-imported">{`+ ${l.importedClicks.toLocaleString("en")} before import`}</span>}
        <span className="muted">{l.expiresAt ? `Expires: ${formatDate(l.expiresAt)}` : `Created ${formatDate(l.createdAt)}`}</span>
      </div>
      <div className="link-row-actions">
        <Button variant="secondary" size="sm" onClick={onAnalytics} aria-label={`Analytics for ${l.title}`}>Analytics</Button>
        <Menu label={`More actions for ${l.title}`} className="link-more" button={<span aria-hidden="true">⋯</span>} items={items} />
      </div>
    </li>
  );
}
