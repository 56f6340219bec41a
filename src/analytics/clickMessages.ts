// What travels between the request thread's ClickRecorder (recorder.ts) and the click worker
// (clickWorker.ts): the clicks a redirect captures, their batch encoding, and the messages each
// side posts. Its own file so that neither side imports the other (the worker is a separate
// entrypoint of the binary, and the recorder only starts it).

/** IP_STORAGE: how much of a visitor's address is kept (writer.ts storeIp). */
export type IpStorage = "truncated" | "full" | "none";

/** What the redirect captures: cheap to take, nothing parsed yet. */
export type RawClick = {
  linkId: number;
  at: number;
  userAgent: string | null;
  referrer: string | null;
  /** The visitor's full address: used for location, then stored per IP_STORAGE. */
  ip: string | null;
  visitorId: string | null;
  /** The visitor cookie was minted for this click. */
  newVisitor: boolean;
  source: string;
  /** Location a trusted proxy told us, when it did. */
  country: string | null;
  city: string | null;
  /** The smart link's rule or split destination that sent it (src/smart/decide.ts); absent for a plain link. */
  route?: string | null;
};

/** Values per click in a batch: see ClickLines.add. */
const FIELDS = 11;

/**
 * A batch of clicks as text: a batch travels to the worker as one string (a copy, not a
 * structured clone of thousands of objects) and waits there at a fraction of the memory. The
 * first line lists the batch's distinct user agents (JSON), the second is one flat JSON array,
 * FIELDS values a click, naming its agent by index: agents repeat heavily and were half of a
 * click's bytes, so a backlog takes about half the memory (docs/performance.md). A redirect only
 * pushes its values; the text is made once a batch (a string a click cost the request thread an
 * allocation and a copy more).
 */
export class ClickLines {
  private values: (string | number | null)[] = [];
  private agents = new Map<string, number>();

  get length() {
    return this.values.length / FIELDS;
  }

  add(c: RawClick) {
    let ua = -1;
    if (c.userAgent !== null) {
      ua = this.agents.get(c.userAgent) ?? -1;
      if (ua < 0) this.agents.set(c.userAgent, (ua = this.agents.size));
    }
    this.values.push(c.linkId, c.at, ua, c.referrer, c.ip, c.visitorId, c.newVisitor ? 1 : 0, c.source, c.country, c.city, c.route ?? null);
  }

  /** The batch as one string (see decodeClicks), and an empty batch to go on with. */
  take(): string {
    const data = `${JSON.stringify([...this.agents.keys()])}\n${JSON.stringify(this.values)}`;
    this.values = [];
    this.agents = new Map();
    return data;
  }
}

/** The worker's side of ClickLines: one batch back into clicks. */
export function decodeClicks(data: string): RawClick[] {
  const nl = data.indexOf("\n");
  const agents = JSON.parse(data.slice(0, nl)) as string[];
  // One parse for the whole batch: a parse per line cost a third more.
  const v = JSON.parse(data.slice(nl + 1)) as (string | number | null)[];
  const clicks: RawClick[] = new Array(v.length / FIELDS);
  for (let i = 0, k = 0; i < v.length; i += FIELDS, k++) {
    const ua = v[i + 2] as number;
    clicks[k] = {
      linkId: v[i] as number,
      at: v[i + 1] as number,
      userAgent: ua < 0 ? null : agents[ua]!,
      referrer: v[i + 3] as string | null,
      ip: v[i + 4] as string | null,
      visitorId: v[i + 5] as string | null,
      newVisitor: v[i + 6] === 1,
      source: v[i + 7] as string,
      country: v[i + 8] as string | null,
      city: v[i + 9] as string | null,
      route: v[i + 10] as string | null,
    };
  }
  return clicks;
}

export type ToWorker =
  /** `url`: PostgreSQL's (DATABASE_URL), written to instead of the SQLite file at `path`. */
  | {
      type: "open";
      path: string;
      url: string | null;
      ipStorage: IpStorage;
      geoipDb: string | null;
      checkpointMs: number;
      coalesceMs: number;
      foldEvery?: number | undefined;
      /** CLICK_RETENTION_DAYS: null keeps click rows forever. */
      retentionDays: number | null;
      detailPerMinute?: number | undefined;
      /** WAL_LIMIT_MB in bytes: the WAL is truncated past half of it (watchWal). */
      walLimitBytes?: number | undefined;
      /** SQLite: the request thread's waiting writes (src/db/writeTurn.ts), shared memory. */
      writeTurn?: SharedArrayBuffer | null;
    }
  | { type: "batch"; data: string; n: number }
  | { type: "counts"; counts: [number, number][] }
  | { type: "flush"; id: number }
  | { type: "maintain"; id: number }
  | { type: "close" };

export type FromWorker =
  | { type: "ready" }
  | { type: "written"; n: number }
  | { type: "flushed"; id: number; ok: boolean }
  | { type: "maintained"; id: number; ok: boolean }
  | { type: "closed" }
  | { type: "error"; message: string };
