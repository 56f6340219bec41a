// The facts a rule reads, from a request: only for links with rules, and only the facts their
// rules name (CompiledSmart.needs), so a rule on language never parses the user agent.
import { UAParser } from "ua-parser-js";
import type { Browser, Device, Os } from "./schema";

export type Agent = { device: Device | null; os: Os | null; browser: Browser | null };

const OS_NAMES: Record<string, Os> = {
  ios: "ios", ipados: "ios", android: "android", windows: "windows", "mac os": "macos", macos: "macos",
  linux: "linux", ubuntu: "linux", debian: "linux", fedora: "linux", "chrome os": "chromeos", chromeos: "chromeos",
};

function browserOf(name: string | undefined): Browser | null {
  const n = (name ?? "").toLowerCase();
  if (!n) return null;
  if (n.includes("edge")) return "edge";
  if (n.includes("samsung")) return "samsung";
  if (n.includes("opera")) return "opera";
  if (n.includes("firefox")) return "firefox";
  if (n.includes("safari")) return "safari";
  if (n.includes("chrom")) return "chrome";
  return null;
}

/** Agents repeat heavily; the parse costs ~20 µs, a hit nothing. Bounded, oldest out first. */
const cache = new Map<string, Agent>();
const CACHE_MAX = 2000;

const NO_AGENT: Agent = Object.freeze({ device: null, os: null, browser: null });

export function agentOf(ua: string | null): Agent {
  if (!ua) return NO_AGENT;
  const hit = cache.get(ua);
  if (hit) return hit;
  const r = UAParser(ua);
  const os = OS_NAMES[(r.os.name ?? "").toLowerCase()] ?? null;
  const t = r.device.type;
  // As the analytics: ua-parser-js leaves desktops untyped; a known desktop OS means a desktop.
  const device: Device | null = t === "mobile" ? "mobile" : t === "tablet" ? "tablet" : t ? null : os && os !== "ios" && os !== "android" ? "desktop" : null;
  const agent = { device, os, browser: browserOf(r.browser.name) };
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(ua, agent);
  return agent;
}
