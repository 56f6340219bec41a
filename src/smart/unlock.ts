// The unlock cookie of a password-protected link: `tl_unlock_<link id>` = `<expiry s>.<MAC>`,
// the MAC an HMAC-SHA256 over the link's id, its password version and the expiry. Scoped to one
// link by its name and by the MAC (a cookie copied under another link's name fails), bounded by
// its expiry (UNLOCK_TTL_S), and ended by a password change (the version is bumped). Nothing in
// it is secret or names the visitor; the key is LINK_COOKIE_SECRET or the database's own.
import { timingSafeEqual } from "node:crypto";
import { UNLOCK_TTL_S } from "./schema";

export const unlockCookieName = (linkId: number) => `tl_unlock_${linkId}`;

const mac = (key: string, linkId: number, version: number, exp: number) =>
  new Bun.CryptoHasher("sha256", key).update(`unlock:${linkId}:${version}:${exp}`).digest("base64url");

/** The cookie's value for a visitor who gave the right password now. */
export function unlockValue(key: string, linkId: number, version: number, nowMs = Date.now()) {
  const exp = Math.floor(nowMs / 1000) + UNLOCK_TTL_S;
  return `${exp}.${mac(key, linkId, version, exp)}`;
}

/** Whether `value` unlocks link `linkId` at password version `version` now. */
export function unlocks(key: string, value: string | null | undefined, linkId: number, version: number, nowMs = Date.now()) {
  if (!value || value.length > 100) return false;
  const dot = value.indexOf(".");
  const exp = Number(value.slice(0, dot));
  if (dot < 1 || !Number.isSafeInteger(exp) || exp * 1000 <= nowMs) return false;
  const want = Buffer.from(mac(key, linkId, version, exp));
  const got = Buffer.from(value.slice(dot + 1));
  return got.length === want.length && timingSafeEqual(got, want);
}
