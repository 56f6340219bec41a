// Background threads yield the CPU to the redirects (issue 21: a report, an export or a click
// flood must not delay a redirect). On Linux a thread has its own nice value, and
// setpriority(PRIO_PROCESS, 0) — os.setPriority called with no pid — sets the calling thread's
// only, so the click writer and the reader thread can run below the request thread while the
// request thread keeps its priority. Elsewhere that call renices the whole process: there the
// threads keep the process's priority.
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
