// The public stats page (issue 26): one small self-contained HTML document, like the visitor
// pages (src/redirects/visitorPages.ts): no script and no app bundle, its CSS inline (allowed by
// hash in its CSP), light and dark through prefers-color-scheme. The clicks chart is an inline
// SVG of bars with the same numbers in a table for assistive technology. Only aggregates: the
// link's count, unique visitors, clicks per day and the top countries, devices and referrer hosts.
import { VISITOR_CSS } from "../redirects/visitorPages";

export type PageData = {
  appName: string;
  title: string;
  shortUrl: string;
  clicks: number;
  unique: number | null;
  days: { day: string; count: number }[];
  countries: { name: string; count: number }[];
  devices: { name: string; count: number }[];
  referrers: { name: string; count: number }[];
};

const CSS =
  VISITOR_CSS +
  ":root{--border:#d9dce5;--surface:#ffffff}@media(prefers-color-scheme:dark){:root{--border:#2c313c;--surface:#171a21}}" +
  "main{justify-content:flex-start;align-items:stretch;text-align:left;max-width:48rem;margin:0 auto;padding:1.5rem 1rem 3rem}" +
  "h1{margin:0}h2{font-size:1.1rem;margin:0 0 .5rem}p{max-width:none}" +
  ".short{color:var(--muted);overflow-wrap:anywhere;margin:0}" +
  ".totals{display:flex;flex-wrap:wrap;gap:.75rem;margin:.5rem 0 0;padding:0;list-style:none}" +
  ".totals li{flex:1 1 9rem;background:var(--surface);border:1px solid var(--border);border-radius:10px;padding:.75rem 1rem}" +
  ".totals b{display:block;font-size:1.5rem}" +
  "section{background:var(--surface);border:1px solid var(--border);border-radius:10px;padding:1rem}" +
  ".grid{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr))}" +
  "svg{display:block;width:100%;height:140px;color:var(--primary)}.bar{fill:currentColor}.base{stroke:var(--border)}" +
  ".axis{display:flex;justify-content:space-between;gap:.5rem;margin:.25rem 0 0;color:var(--muted);font-size:.8rem}" +
  "table{width:100%;border-collapse:collapse;font-size:.95rem}th,td{padding:.3rem .25rem;border-bottom:1px solid var(--border);text-align:left;overflow-wrap:anywhere}" +
  "th:last-child,td:last-child{text-align:right;white-space:nowrap}thead th{color:var(--muted);font-weight:600}" +
  "details{margin-top:.5rem}summary{cursor:pointer;color:var(--muted)}" +
  ".empty{color:var(--muted);margin:0}footer{color:var(--muted);font-size:.85rem;text-align:center}";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const num = (n: number) => n.toLocaleString("en-US");
const dayLabel = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });

/**
 * Clicks per day as bars, stretched to the card's width at a fixed height (the day labels are
 * HTML below it, so they keep their size on a phone and on a wide screen); `role="img"` with the
 * range, total and busiest day as its name.
 */
function chart(days: PageData["days"]) {
  const W = 600;
  const H = 140;
  const max = Math.max(1, ...days.map((d) => d.count));
  const step = W / Math.max(1, days.length);
  const total = days.reduce((n, d) => n + d.count, 0);
  const first = dayLabel(days[0]!.day);
  const last = dayLabel(days.at(-1)!.day);
  const label = `Clicks per day, ${first} to ${last}: ${num(total)} in all, at most ${num(max)} in a day`;
  const bars = days
    .map((d, i) => {
      const h = Math.max(d.count ? 2 : 0, Math.round(((H - 2) * d.count) / max));
      return d.count ? `<rect class="bar" x="${(i * step + step * 0.15).toFixed(1)}" y="${H - h}" width="${(step * 0.7).toFixed(1)}" height="${h}"></rect>` : "";
    })
    .join("");
  return (
    `<svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${esc(label)}">` +
    `<line class="base" x1="0" y1="${H - 0.5}" x2="${W}" y2="${H - 0.5}"></line>${bars}</svg>` +
    `<p class="axis" aria-hidden="true"><span>${esc(first)}</span><span>busiest day: ${num(max)}</span><span>${esc(last)}</span></p>`
  );
}

// Countries by name and devices capitalised, as the app's own analytics show them (the
// roll-ups keep ISO codes and lower-case device types; a visitor reading "AU" or "desktop" had
// the raw values).
const regions = (() => {
  try {
    return new Intl.DisplayNames(["en"], { type: "region" });
  } catch {
    return null;
  }
})();
const countryName = (code: string) => {
  try {
    return (/^[A-Z]{2}$/.test(code) && regions?.of(code)) || code;
  } catch {
    return code;
  }
};
const capitalise = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

function tallyTable(caption: string, what: string, rows: PageData["countries"], name: (s: string) => string = (s) => s) {
  if (rows.length === 0) return `<section aria-labelledby="h-${what}"><h2 id="h-${what}">${caption}</h2><p class="empty">No clicks yet.</p></section>`;
  const total = rows.reduce((n, r) => n + r.count, 0);
  return (
    `<section aria-labelledby="h-${what}"><h2 id="h-${what}">${caption}</h2><table><thead><tr><th scope="col">${esc(what[0]!.toUpperCase() + what.slice(1))}</th><th scope="col">Clicks</th></tr></thead><tbody>` +
    rows.map((r) => `<tr><td>${esc(name(r.name))}</td><td>${num(r.count)} <span class="pct">(${Math.round((100 * r.count) / total)}%)</span></td></tr>`).join("") +
    "</tbody></table></section>"
  );
}

export function statsPageHtml(d: PageData): string {
  const heading = d.title.trim() || d.shortUrl;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><meta name="robots" content="noindex">` +
    `<title>${esc(heading)} · Stats · ${esc(d.appName)}</title><link rel="icon" href="data:,"><style>${CSS}</style></head>` +
    `<body><main><header><h1>${esc(heading)}</h1><p class="short">${esc(d.shortUrl)}</p></header>` +
    `<ul class="totals" aria-label="Totals"><li><b>${num(d.clicks)}</b>clicks in all</li>` +
    (d.unique === null ? "" : `<li><b>${num(d.unique)}</b>unique visitors</li>`) +
    `<li><b>${num(d.days.reduce((n, x) => n + x.count, 0))}</b>clicks in the last ${d.days.length} days</li></ul>` +
    `<section aria-labelledby="h-chart"><h2 id="h-chart">Clicks, last ${d.days.length} days</h2>${chart(d.days)}` +
    `<details><summary>Clicks per day as a table</summary><table><thead><tr><th scope="col">Day</th><th scope="col">Clicks</th></tr></thead><tbody>` +
    d.days.map((x) => `<tr><td>${esc(dayLabel(x.day))}</td><td>${num(x.count)}</td></tr>`).join("") +
    `</tbody></table></details></section>` +
    `<div class="grid">${tallyTable("Countries", "country", d.countries, countryName)}${tallyTable("Devices", "device", d.devices, capitalise)}${tallyTable("Referrers", "referrer", d.referrers)}</div>` +
    `<footer>Published by the link's owner with ${esc(d.appName)}. Totals only: no visitor's address or single click is shown.</footer>` +
    `</main></body></html>`
  );
}
