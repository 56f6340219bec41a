/** Fixed-window failure counter kept in memory (one process serves the instance). */
export class FailureLimiter {
  private hits = new Map<string, { count: number; resetAt: number }>();
  constructor(private max: number, private windowMs: number) {}

  /** Milliseconds until `key` may try again, or 0 when it is not blocked. */
  blockedFor(key: string, now = Date.now()) {
    const h = this.hits.get(key);
    if (!h || h.resetAt <= now) return 0;
    return h.count >= this.max ? h.resetAt - now : 0;
  }

  fail(key: string, now = Date.now()) {
    const h = this.hits.get(key);
    if (!h || h.resetAt <= now) this.hits.set(key, { count: 1, resetAt: now + this.windowMs });
    else h.count++;
    if (this.hits.size > 50_000) this.sweep(now);
  }

  clear(key: string) {
    this.hits.delete(key);
  }

  private sweep(now: number) {
    for (const [k, h] of this.hits) if (h.resetAt <= now) this.hits.delete(k);
  }
}
