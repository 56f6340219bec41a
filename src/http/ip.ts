// Address parsing for TRUSTED_PROXIES and X-Forwarded-For: pure functions, no allocation on the
// IPv4 path (the redirect hot path reads them when it sits behind a proxy).

export function normaliseIp(ip: string) {
  // An IPv4-mapped IPv6 peer (dual-stack socket) is the IPv4 client it wraps.
  return ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip;
}

/** Parses TRUSTED_PROXIES entries (`203.0.113.7`, `10.0.0.0/8`, `::1`, `fd00::/8`); null for a bad one. */
export function parseProxyEntry(entry: string): { kind: "v4"; base: number; bits: number } | { kind: "v6"; words: number[]; bits: number } | null {
  const slash = entry.indexOf("/");
  const addr = normaliseIp(slash === -1 ? entry : entry.slice(0, slash));
  const bitsText = slash === -1 ? null : entry.slice(slash + 1);
  if (bitsText !== null && !/^\d{1,3}$/.test(bitsText)) return null;
  const v4 = ipv4Int(addr);
  if (v4 !== null) {
    const bits = bitsText === null ? 32 : Number(bitsText);
    return bits <= 32 ? { kind: "v4", base: v4, bits } : null;
  }
  const words = ipv6Words(addr);
  if (words === null) return null;
  const bits = bitsText === null ? 128 : Number(bitsText);
  return bits <= 128 ? { kind: "v6", words, bits } : null;
}

export function prefixMatch(a: number[], b: number[], bits: number) {
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const shift = bits >= 16 ? 0 : 16 - bits;
    if ((a[i]! ^ b[i]!) >>> shift !== 0) return false;
  }
  return true;
}

/** A dotted-quad IPv4 address as an unsigned integer, or null; no allocation. */
export function ipv4Int(s: string): number | null {
  if (s.length < 7 || s.length > 15) return null;
  let n = 0;
  let part = -1;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46;
    if (c === 46) {
      if (digits === 0 || part > 255) return null;
      n = n * 256 + part;
      part = -1;
      digits = 0;
      if (i < s.length && ++dots > 3) return null;
    } else if (c >= 48 && c <= 57) {
      // "01" is refused: some parsers read a leading zero as octal.
      if (digits === 1 && part === 0) return null;
      part = (part === -1 ? 0 : part * 10) + (c - 48);
      if (++digits > 3) return null;
    } else return null;
  }
  return dots === 3 ? n : null;
}

/** An IPv6 address as eight 16-bit words, or null when it is not one. */
export function ipv6Words(s: string): number[] | null {
  if (s.length < 2 || s.length > 45 || !s.includes(":")) return null;
  const gap = s.indexOf("::");
  if (gap !== -1 && s.indexOf("::", gap + 1) !== -1) return null;
  const side = (part: string, last: boolean): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const groups = part.split(":");
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i]!;
      if (last && i === groups.length - 1 && g.includes(".")) {
        const v4 = ipv4Int(g);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(g)) out.push(parseInt(g, 16));
      else return null;
    }
    return out;
  };
  if (gap === -1) {
    const w = side(s, true);
    return w && w.length === 8 ? w : null;
  }
  const left = side(s.slice(0, gap), false);
  const right = side(s.slice(gap + 2), true);
  if (!left || !right || left.length + right.length > 7) return null;
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

export const isIp = (s: string) => ipv4Int(s) !== null || ipv6Words(s) !== null;


/**
 * The key per-address limits count under: the address itself for IPv4, its /64 for IPv6 (one
 * subscriber usually holds a whole /64, so counting single IPv6 addresses would limit nothing).
 */
export function limitKey(ip: string) {
  const w = ip.includes(":") ? ipv6Words(ip) : null;
  return w ? `${w.slice(0, 4).map((x) => x.toString(16)).join(":")}::/64` : ip;
}
