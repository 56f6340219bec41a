import { Button } from "../ui/Button";
import { clicksLabel, copyLink } from "../links/format";
import type { LinkView } from "../links/types";

/** The instance owner's 'Root Domain Redirect' card: the bare brand domain and its system link. */
export function RootLinkCard({ link, onAnalytics, onReset }: { link: LinkView; onAnalytics: () => void; onReset: () => void }) {
  const domain = link.shortUrl.replace(/^https?:\/\//, "");
  const redirects = `${link.clickCount.toLocaleString("en-US")} ${link.clickCount === 1 ? "redirect" : "redirects"}`;
  return (
    <section className="card root-card" aria-labelledby="root-card-title">
      <div className="row">
        <h2 id="root-card-title" className="link-title">Root Domain Redirect</h2>
        <span className="badge badge-primary">System Link</span>
      </div>
      <div className="row link-short">
        <code className="break">{domain}</code>
        <Button variant="secondary" size="sm" onClick={() => copyLink(link.shortUrl)} aria-label="Copy root domain">Copy</Button>
      </div>
      <p className="muted break">Redirects to {link.originalUrl}</p>
      <p className="row link-meta">
        <span className="badge" title={clicksLabel(link.clickCount)}>{redirects}</span>
      </p>
      <div className="row link-actions">
        <a className="btn btn-secondary btn-sm" href={link.originalUrl} target="_blank" rel="noopener noreferrer" aria-label="Visit root destination">Visit</a>
        <Button variant="secondary" size="sm" onClick={onAnalytics} aria-label="Analytics for the root link">Analytics</Button>
        <Button variant="secondary" size="sm" onClick={onReset} aria-label="Reset click count for the root link">Reset</Button>
      </div>
    </section>
  );
}
