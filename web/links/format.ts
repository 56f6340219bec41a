// Display helpers shared by both trackers.
import { format } from "date-fns";
import { toast } from "../ui/Toast";

/** Spec §9 date display: 'MMM d, yyyy HH:mm'. */
export function formatDate(iso: string | null | undefined) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : format(d, "MMM d, yyyy HH:mm");
}

/** An ISO time as a datetime-local input's value, in the visitor's own time zone. */
export function toLocalInput(iso: string | null | undefined) {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : format(d, "yyyy-MM-dd'T'HH:mm");
}

const regionNames = typeof Intl.DisplayNames === "function" ? new Intl.DisplayNames(["en"], { type: "region" }) : null;

/** 'DE' → 'Germany'; anything that is not a region code is shown as stored. */
export function countryName(code: string | null | undefined) {
  if (!code || code === "Unknown") return "Unknown";
  try {
    return (/^[A-Z]{2}$/.test(code) && regionNames?.of(code)) || code;
  } catch {
    return code;
  }
}

export function locationOf(c: { city: string | null; country: string | null }) {
  const parts = [c.city, c.country ? countryName(c.country) : null].filter(Boolean);
  return parts.length ? parts.join(", ") : "Unknown";
}

export const orUnknown = (s: string | null | undefined) => (s ? s : "Unknown");

export function capitalise(s: string | null | undefined) {
  if (!s) return "Unknown";
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function referrerHost(referrer: string | null) {
  if (!referrer) return "Direct";
  try {
    return new URL(referrer).hostname || "Direct";
  } catch {
    return "Direct";
  }
}

export const clicksLabel = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "click" : "clicks"}`;

/** Copies text with the spec's §8 toasts; `copied` names what was copied (an API key too). True when it was copied. */
export async function copyLink(text: string, copied = "Link copied to clipboard") {
  try {
    await navigator.clipboard.writeText(text);
    toast({ title: "Copied!", description: copied });
    return true;
  } catch {
    toast({ title: "Error", description: "Failed to copy to clipboard", variant: "destructive" });
    return false;
  }
}

/**
 * Whether a link still redirects: the server answers an expired or switched-off link with 410,
 * so its card says so and the QR generator does not offer it.
 */
export function linkState(l: { active?: boolean; expiresAt?: string | null }, now = Date.now()): "active" | "expired" | "inactive" {
  if (l.active === false) return "inactive";
  if (l.expiresAt && Date.parse(l.expiresAt) <= now) return "expired";
  return "active";
}
