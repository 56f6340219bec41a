// The reader thread yields the CPU to the redirects (issue 21: a report or an export must not
// delay a redirect, whatever another tenant does). On Linux a thread has its own nice value,
// and setpriority(PRIO_PROCESS, 0) — os.setPriority called with no pid — sets the calling
// thread's only, so the reader thread can run below the request thread while the request
// thread keeps its priority. Elsewhere that call renices the whole process: there the thread
// keeps the process's priority. The click writer keeps the process's priority: its write window
// (a click on disk within WRITE_WITHIN_MS) and the WAL bound it checkpoints to are promises a
// starved writer could break on a busy machine (docs/decisions.md, "Lead, session 7").
import { setPriority } from "node:os";
import { log } from "../http/log";

/** Lowers the calling thread's priority to `nice` (0–19; 0 leaves it as it is). */
export function lowerThisThread(nice: number) {
  if (nice <= 0 || process.platform !== "linux") return;
  try {
    setPriority(nice);
  } catch (e) {
    log.warn("a background thread's priority could not be lowered", { nice, error: String(e) });
  }
}
