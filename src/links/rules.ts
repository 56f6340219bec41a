// The rules a link must meet to be created or edited, written once for every way in: a single
// create or edit (routes.ts), a bulk create (bulkRoutes.ts) and an import (import.ts) all check
// through here, by way of the link service (service.ts). Pure: no database, no Links.
import * as v from "valibot";
import { validationFailure } from "../shared/errors";
import { isReserved } from "../shared/reserved";
import { BULK_MSG, CreateLinkBody, ImportLinkBody, MSG, destinationProblem, type ItemError } from "./schema";
import type { NewLink } from "./store";

// URL-safe and unambiguous enough; 64^7 ≈ 4.4e12 codes, so collisions are checked, not feared.
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
export const GENERATED_CODE_LENGTH = 7;

export function generateCode() {
  const bytes = crypto.getRandomValues(new Uint8Array(GENERATED_CODE_LENGTH));
  let s = "";
  for (const b of bytes) s += ALPHABET[b & 63];
  return s;
}

/** A generated code, or null when it happens to be a reserved word (the caller tries again). */
export const freshCode = () => {
  const c = generateCode();
  return isReserved(c) ? null : c;
};

/** Why a link's values are refused beyond its schema: the message and the field at fault. */
export type Problem = { message: string; field: string };

/**
 * An expiry to refuse. An unchanged expiry may be in the past (editing the title of an expired
 * link keeps it expired); a new one must be in the future, as on create.
 */
export function expiryProblem(expiresAt: string | null | undefined, current: string | null = null, now = Date.now()): Problem | null {
  return expiresAt && expiresAt !== current && Date.parse(expiresAt) <= now ? { message: MSG.expiresPast, field: "expiresAt" } : null;
}

/** The destination against this instance's own hosts (a link back to them would loop). */
export function destinationRefused(url: string, ownHosts: readonly string[]): Problem | null {
  const problem = destinationProblem(url, [...ownHosts]);
  return problem ? { message: problem, field: "originalUrl" } : null;
}

/** What the create schema cannot see: the destination's host and an expiry in the future. */
export function newLinkProblem(link: { originalUrl: string; expiresAt: string | null }, ownHosts: readonly string[], now = Date.now()): Problem | null {
  return destinationRefused(link.originalUrl, ownHosts) ?? expiryProblem(link.expiresAt, null, now);
}

export type Checked = { ok: true; link: NewLink } | { ok: false; error: ItemError };

export const refusal = (code: ItemError["code"], message: string, field?: string): ItemError => ({
  code,
  message,
  ...(field ? { fields: { [field]: message } } : {}),
});

/**
 * One item of a bulk create or import checked as a single create checks its body, or the reason
 * it is refused. An import checks with ImportLinkBody (the source's codes and dates kept).
 */
export function checkItem(item: unknown, ownHosts: readonly string[], now = Date.now(), schema: typeof CreateLinkBody | typeof ImportLinkBody = CreateLinkBody): Checked {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return { ok: false, error: refusal("VALIDATION", BULK_MSG.notObject) };
  const parsed = v.safeParse(schema, item, { abortEarly: true });
  if (!parsed.success) {
    const failure = validationFailure(parsed.issues[0]);
    return { ok: false, error: { code: "VALIDATION", message: failure.message, ...(failure.fields ? { fields: failure.fields } : {}) } };
  }
  const body = parsed.output;
  const problem = newLinkProblem(body, ownHosts, now);
  if (problem) return { ok: false, error: refusal("VALIDATION", problem.message, problem.field) };
  return { ok: true, link: { ...body, shortCode: body.shortCode || null } };
}
