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
