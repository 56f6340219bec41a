// The click writer on PostgreSQL (DATABASE_URL): the same enrichment as SQLite's (writer.ts),
// the batch written by pgWriterStore.ts. It runs inside the click worker, as SQLite's does, with
// a connection of its own: parsing and locating stay off the request thread, a slow or locked
// database delays only this thread, and the recorder (backlog bound, counted drops, flush) is
// the same for both backends.
import { openPg } from "../db/pg";
import { backfillStep, retentionStep, writeClicks } from "./pgWriterStore";
import type { IpStorage, RawClick } from "./clickMessages";
import { ClickEnricher } from "./writer";

export class PgClickWriter extends ClickEnricher {
  // One connection: batches are written one after another anyway (clickWorker.ts).
  private pool;

  constructor(url: string, opts: { ipStorage: IpStorage; geoipDb: string | null; detailPerMinute?: number | undefined }) {
    super(opts);
    this.pool = openPg(url, { max: 1, bigint: true });
  }

  /**
   * Writes the batch: rows, counts and milestone notifications commit together or not at all
   * (a failure rejects and the caller keeps the batch). Returns the number of clicks written.
   */
  async write(batch: RawClick[], countedOnly?: ReadonlyMap<number, number>) {
    await writeClicks(this.pool, batch.map((c) => this.enrich(c)), countedOnly);
    return batch.length;
  }

  /** One transaction of the one-time roll-up backfill (pgWriterStore.ts); true while more is left. */
  backfillStep() {
    return backfillStep(this.pool);
  }

  /** One transaction of retention (pgWriterStore.ts): the rows deleted. */
  retentionStep(cutoff: string) {
    return retentionStep(this.pool, cutoff);
  }

  /** Nothing to fold on PostgreSQL (pgWriterStore.ts). */
  foldAll() {
    return 0;
  }

  /** No WAL of ours to checkpoint: PostgreSQL's own checkpointer does. */
  checkpoint() {}

  close() {
    return this.pool.close();
  }
}
