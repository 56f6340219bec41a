// Tiny structured logger: one JSON line per event on stderr. Never pass request bodies,
// passwords, tokens or cookies in `data`.
const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof levels;
let threshold: number = levels.info;

export function setLogLevel(level: Level) {
  threshold = levels[level];
}

function write(level: Level, msg: string, data?: Record<string, unknown>) {
  if (levels[level] < threshold) return;
  console.error(JSON.stringify({ time: new Date().toISOString(), level, msg, ...data }));
}

export const log = {
  debug: (msg: string, data?: Record<string, unknown>) => write("debug", msg, data),
  info: (msg: string, data?: Record<string, unknown>) => write("info", msg, data),
  warn: (msg: string, data?: Record<string, unknown>) => write("warn", msg, data),
  error: (msg: string, data?: Record<string, unknown>) => write("error", msg, data),
};

/**
 * An error log that writes at most `max` lines per `windowMs`; the first line after a quiet
 * spell says how many were left out. For events a client can cause at will.
 */
export function rateLimitedLog(max: number, windowMs: number) {
  let windowStart = 0;
  let written = 0;
  let dropped = 0;
  return (msg: string, data?: Record<string, unknown>) => {
    const now = Date.now();
    if (now - windowStart >= windowMs) {
      windowStart = now;
      written = 0;
    }
    if (written >= max) {
      dropped++;
      return;
    }
    written++;
    write("error", msg, dropped ? { ...data, droppedBefore: dropped } : data);
    dropped = 0;
  };
}
