// Attempt limits for sign-in, sign-up and invite acceptance: every number lives in LIMITS, and
// README.md's "Sign-in and abuse limits" section states them. Counters are kept in memory: one
// process serves the instance, and a restart forgetting them costs an attacker a restart.
import { AppError } from "./errors";

const MINUTE = 60_000;

export const LIMITS = {
  /** Wrong passwords for one account from one address (IPv6: one /64). */
  loginPerAccountAddress: { max: 5, windowMs: 15 * MINUTE },
  /**
   * Wrong passwords for one account from every address together: the slow-down for a guesser
   * with many addresses. Reaching it locks the account for browsers it has never signed in
   * from; a browser holding the account's device cookie is limited by `loginPerDevice` instead.
   */
  loginPerAccount: { max: 20, windowMs: 15 * MINUTE },
  /** Wrong passwords from one address across all accounts (password spraying). */
  loginPerAddress: { max: 20, windowMs: 15 * MINUTE },
  /** Wrong passwords from one browser holding a valid device cookie for the account. */
  loginPerDevice: { max: 10, windowMs: 15 * MINUTE },
  /** Sign-up attempts (that pass validation) from one address. */
  signupPerAddress: { max: 10, windowMs: 60 * MINUTE },
  /** Invite acceptances, whatever their outcome, from one address. */
  inviteAcceptPerAddress: { max: 20, windowMs: 15 * MINUTE },
} as const;

/** Beyond this many live keys a limiter drops expired ones, then the oldest. */
const MAX_KEYS = 100_000;

type Window = { count: number; resetAt: number };
/** A slot taken from one limiter for one key; given back on success. */
export type Ticket = { limiter: AttemptLimiter; key: string; window: Window };

/**
 * A fixed-window attempt counter. A slot is TAKEN before the slow work (the password hash),
 * synchronously, so parallel requests cannot all pass a "blocked?" check before any of them
 * is counted; a successful attempt may give its slot back (`refund`).
 */
export class AttemptLimiter {
  private windows = new Map<string, Window>();
  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  static of(l: { max: number; windowMs: number }) {
    return new AttemptLimiter(l.max, l.windowMs);
  }

  /** Milliseconds until `key` has a free slot; 0 when it has one now. */
  waitFor(key: string, now = Date.now()) {
    const w = this.windows.get(key);
    if (!w || w.resetAt <= now || w.count < this.max) return 0;
    return w.resetAt - now;
  }

  /** Takes a slot (call only after `waitFor` said 0, in the same synchronous step). */
  take(key: string, now = Date.now()): Ticket {
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      if (this.windows.size >= MAX_KEYS) this.sweep(now);
      w = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { limiter: this, key, window: w };
  }

  /** Gives a slot back, unless its window has since been replaced by a new one. */
  refund(t: Ticket) {
    if (this.windows.get(t.key) === t.window && t.window.count > 0) t.window.count--;
  }

  clear(key: string) {
    this.windows.delete(key);
  }

  private sweep(now: number) {
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    // Still full (a flood of distinct keys): drop the oldest windows first (Map keeps
    // insertion order). Their owners get fresh windows, which is the price of bounded memory.
    for (const k of this.windows.keys()) {
      if (this.windows.size < MAX_KEYS * 0.9) break;
      this.windows.delete(k);
    }
  }
}

/**
 * Takes one slot from each (limiter, key) pair, all or none, in one synchronous step. Returns
 * the tickets, or the longest wait when any pair is full (then nothing is taken).
 */
export function takeAll(pairs: [AttemptLimiter, string][], now = Date.now()): { tickets: Ticket[] } | { waitMs: number } {
  let waitMs = 0;
  for (const [l, key] of pairs) waitMs = Math.max(waitMs, l.waitFor(key, now));
  if (waitMs > 0) return { waitMs };
  return { tickets: pairs.map(([l, key]) => l.take(key, now)) };
}

export const refundAll = (tickets: Ticket[]) => tickets.forEach((t) => t.limiter.refund(t));

/** The 429 every limit answers with: how long to wait in words and in Retry-After. */
export function tooManyAttempts(what: string, waitMs: number) {
  const minutes = Math.max(1, Math.ceil(waitMs / MINUTE));
  return new AppError("RATE_LIMITED", `${what} Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, undefined, {
    "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))),
  });
}
