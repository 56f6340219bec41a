// One async way for the stores to run SQL, on embedded SQLite (bun:sqlite, the default) or on
// PostgreSQL (Bun's built-in client, when DATABASE_URL is set). A store writes its statements
// once, with `?` (or `?1`) or `$name` placeholders in the SQL both dialects share, and picks a
// dialect's own text only where they differ (`db.dialect`); docs/decisions.md lists where.
import { Database as SqliteHandle, type SQLQueryBindings } from "bun:sqlite";
import type { SQL } from "bun";
import { AsyncLocalStorage } from "node:async_hooks";
import { readerThread, type ReaderThread } from "./reader";
import { lockTaker, newWriteTurn, type WriteTurn } from "./writeTurn";

export type Dialect = "sqlite" | "postgres";
export type Param = string | number | bigint | boolean | null | undefined | Uint8Array;
/** Positional values, or one object of `$name` values. */
export type Params = Param[] | [Record<string, Param>];

/** What a store can run: outside a transaction, or inside one through its handle. */
export interface Queries {
  readonly dialect: Dialect;
  /** Every row. */
  all<T = Record<string, unknown>>(text: string, ...params: Params): Promise<T[]>;
  /** The first row, or null. */
  get<T = Record<string, unknown>>(text: string, ...params: Params): Promise<T | null>;
  /** Runs a write; the number of rows it changed. */
  run(text: string, ...params: Params): Promise<number>;
}

export interface Database extends Queries {
  /**
   * Where reads that take milliseconds at real size go — analytics reports, click pages, list
   * pages, export batches (issue 21): on SQLite a reader thread with its own connection
   * (src/db/reader.ts), so the request thread that answers redirects never runs them; on
   * PostgreSQL (already off the thread: the server runs them) the database itself. Reads only,
   * outside any transaction; they see every transaction committed before they are sent.
   */
  readonly reads: Queries;
  /** The reader thread (downloads run there: src/downloads/jobs.ts); null inside it. */
  readonly reader: ReaderThread | null;
  /**
   * Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE, as the click writer is another
   * connection). Every statement of it goes through `q`, never through the database itself:
   * on SQLite that would wait for this very transaction to end.
   */
  tx<T>(fn: (q: Queries) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** The bun:sqlite handle (SQLite only): the click worker's path, backup, migrations. */
  readonly sqlite: SqliteHandle | null;
  /** Bun's PostgreSQL pool (PostgreSQL only): LISTEN, COPY, advisory locks. */
  readonly pg: SQL | null;
  /**
   * SQLite only: the counter of this connection's writes waiting for the file's write lock,
   * which the click worker looks at before each transaction (src/db/writeTurn.ts).
   */
  readonly writeTurn: WriteTurn | null;
}

const bindable = (v: Param) => (v === undefined ? null : typeof v === "boolean" ? (v ? 1 : 0) : v);

function sqliteArgs(params: Params): SQLQueryBindings[] | [Record<string, SQLQueryBindings>] {
  const [first] = params;
  if (params.length === 1 && first !== null && typeof first === "object" && !(first instanceof Uint8Array)) {
    const named: Record<string, SQLQueryBindings> = {};
    for (const [k, v] of Object.entries(first)) named[k] = bindable(v) as SQLQueryBindings;
    return [named];
  }
  return (params as Param[]).map((v) => bindable(v) as SQLQueryBindings);
}

/**
 * Under `bun test` only: which SQLite transaction the running code is inside, so a statement sent
 * to the database from inside its own transaction fails at once with the reason, instead of
 * waiting for that transaction forever (a store bug every test would otherwise show as a
 * timeout). Left out of the server: tracking async context has a cost on every await.
 */
const insideTx = process.env.NODE_ENV === "test" ? new AsyncLocalStorage<object>() : null;

/**
 * The SQLite database behind the async interface. Its statements run synchronously, so a
 * transaction's body still awaits between them: while one is open, statements from other
 * requests wait for it to end (a queue of microtasks, not a sleep) instead of running inside it.
 */
export function sqliteDatabase(
  handle: SqliteHandle,
  { reader: withReader = true, nice, writeTurn: shared }: { reader?: boolean; nice?: number; writeTurn?: WriteTurn } = {},
): Database {
  let open: Promise<void> | null = null;
  // The open transaction's own mark: work it started that outlives it (a timer, a wake) keeps
  // its context, and must not be taken for a statement inside a later transaction.
  let openMark: object | null = null;
  // The write lock is waited for asynchronously, never inside SQLite (src/db/writeTurn.ts). A
  // connection of another thread of the app (the webhook sender's) counts its waits in the
  // request thread's counter, so the click worker lets it in as it lets the app's writes in.
  const writeTurn = shared ?? newWriteTurn();
  const locks = lockTaker(handle, writeTurn);
  /**
   * A statement outside a transaction: at once when the write lock is free (or not needed: a
   * read), else as a transaction of its own once the lock is taken, so the wait is a sleep.
   */
  const single = async <T>(run: () => T): Promise<T> => {
    const now = locks.tryNow(run);
    return "value" in now ? now.value : database.tx(async () => run());
  };
  const notInside = () => {
    if (openMark !== null && insideTx?.getStore() === openMark) throw new Error("A statement was sent to the database inside its own transaction: use the transaction's handle (q)");
  };
  const exec = {
    all: (text: string, params: Params) => handle.query(text).all(...(sqliteArgs(params) as SQLQueryBindings[])),
    get: (text: string, params: Params) => handle.query(text).get(...(sqliteArgs(params) as SQLQueryBindings[])),
    run: (text: string, params: Params) => handle.query(text).run(...(sqliteArgs(params) as SQLQueryBindings[])).changes,
  };
  const inTx: Queries = {
    dialect: "sqlite",
    all: async <T>(text: string, ...params: Params) => exec.all(text, params) as T[],
    get: async <T>(text: string, ...params: Params) => (exec.get(text, params) as T | null) ?? null,
    run: async (text: string, ...params: Params) => exec.run(text, params),
  };
  // A file the reader thread can open beside this connection (an in-memory database has none);
  // the reader thread's own connection has no reader of its own.
  const file = withReader && handle.filename && handle.filename !== ":memory:" ? handle.filename : null;
  let reader: ReaderThread | null = null;
  const theReader = () => (reader ??= readerThread({ file: file!, nice }));
  const read = (one: boolean, text: string, params: Params) => theReader().read(one, text, sqliteArgs(params) as SQLQueryBindings[]);
  const reads: Queries | null = file
    ? {
        dialect: "sqlite",
        all: async <T>(text: string, ...params: Params) => (await read(false, text, params)) as T[],
        get: async <T>(text: string, ...params: Params) => ((await read(true, text, params)) as T | null) ?? null,
        run: () => Promise.reject(new Error("db.reads is for reads only")),
      }
    : null;
  const database: Database = {
    dialect: "sqlite",
    sqlite: handle,
    pg: null,
    get reads() {
      return reads ?? database;
    },
    get reader() {
      return file ? theReader() : null;
    },
    // Each statement waits out an open transaction, then checks and runs in one synchronous
    // step (the loop is inline, not a helper to await: nothing can begin in between).
    async all<T>(text: string, ...params: Params) {
      if (open) notInside();
      while (open) await open;
      return (await single(() => exec.all(text, params))) as T[];
    },
    async get<T>(text: string, ...params: Params) {
      if (open) notInside();
      while (open) await open;
      return ((await single(() => exec.get(text, params))) as T | null) ?? null;
    },
    async run(text: string, ...params: Params) {
      if (open) notInside();
      while (open) await open;
      return single(() => exec.run(text, params));
    },
    writeTurn,
    async tx<T>(fn: (q: Queries) => Promise<T>) {
      while (open) await open;
      let done!: () => void;
      open = new Promise((resolve) => (done = resolve));
      const mark = {};
      openMark = mark;
      let waited = false;
      try {
        // Taken without SQLite's blocking wait: redirects are answered while this waits.
        ({ waited } = await locks.take(() => handle.exec("BEGIN IMMEDIATE")));
        try {
          const result = await (insideTx ? insideTx.run(mark, () => fn(inTx)) : fn(inTx));
          handle.exec("COMMIT");
          return result;
        } catch (e) {
          if (handle.inTransaction) handle.exec("ROLLBACK");
          throw e;
        }
      } finally {
        if (waited) locks.done();
        open = null;
        openMark = null;
        done();
      }
    },
    async close() {
      while (open) await open;
      reader?.close();
      handle.close();
    },
  };
  return database;
}

/**
 * `?`, `?N` and `$name` placeholders as PostgreSQL's `$N`, outside quoted text. Named values
 * are numbered in order of first use; the function that binds them reads the same order.
 */
export function toPostgres(text: string): { text: string; names: string[] | null } {
  let out = "";
  let next = 1;
  const names: string[] = [];
  let named = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      const stop = end === -1 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop - 1;
    } else if (c === "?") {
      const m = /^\d+/.exec(text.slice(i + 1));
      if (m) {
        out += `$${m[0]}`;
        i += m[0].length;
      } else out += `$${next++}`;
    } else if (c === "$" && /[A-Za-z_]/.test(text[i + 1] ?? "")) {
      const m = /^[A-Za-z_]\w*/.exec(text.slice(i + 1))!;
      named = true;
      let k = names.indexOf(m[0]);
      if (k === -1) k = names.push(m[0]) - 1;
      out += `$${k + 1}`;
      i += m[0].length;
    } else out += c;
  }
  return { text: out, names: named ? names : null };
}

/**
 * Rows as bun:sqlite gives them: plain objects, 64-bit integers (click ids and counts, COUNT(*))
 * as numbers — exact up to 2^53 — rather than BigInt, which JSON cannot carry.
 */
function plainRows(rows: Record<string, unknown>[]) {
  const out = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (const k in row) if (typeof row[k] === "bigint") row[k] = Number(row[k]);
    out[i] = row;
  }
  return out;
}

/** Each statement's text is translated once per process. */
const translated = new Map<string, ReturnType<typeof toPostgres>>();

/** A connection or a transaction of Bun's client as Queries (the PostgreSQL click writer's transaction uses it too). */
export function pgQueries(conn: SQL): Queries {
  const prepare = (text: string, params: Params) => {
    let p = translated.get(text);
    if (!p) translated.set(text, (p = toPostgres(text)));
    const values = p.names ? p.names.map((n) => bindable((params[0] as Record<string, Param>)[n])) : (params as Param[]).map(bindable);
    return conn.unsafe(p.text, values as unknown[]);
  };
  return {
    dialect: "postgres",
    all: async <T>(text: string, ...params: Params) => plainRows(await prepare(text, params)) as T[],
    get: async <T>(text: string, ...params: Params) => (plainRows(await prepare(text, params))[0] as T | undefined) ?? null,
    run: async (text: string, ...params: Params) => (await prepare(text, params)).count ?? 0,
  };
}

/**
 * PostgreSQL behind the same interface; a transaction runs on one connection in `sql.begin`.
 * The pool is opened with `bigint: true` (openPg), so 64-bit values arrive exact for plainRows.
 */
export function pgDatabase(pool: SQL, { readerUrl, nice }: { readerUrl?: string; nice?: number } = {}): Database {
  const queries = pgQueries(pool);
  // The reader thread opens its own pool, when first used (src/db/reader.ts).
  const reader = readerUrl ? readerThread({ url: readerUrl, nice }) : null;
  // Reports, click pages and list pages read there too: their rows are parsed (and collected)
  // on that thread, never on the one that answers redirects (issue 21).
  const reads: Queries = reader
    ? {
        dialect: "postgres",
        all: async <T>(text: string, ...params: Params) => (await reader.read(false, text, params)) as T[],
        get: async <T>(text: string, ...params: Params) => ((await reader.read(true, text, params)) as T | null) ?? null,
        run: () => Promise.reject(new Error("db.reads is for reads only")),
      }
    : queries;
  return {
    ...queries,
    reads,
    reader,
    sqlite: null,
    pg: pool,
    writeTurn: null,
    tx: <T>(fn: (q: Queries) => Promise<T>) => pool.begin((tx) => fn(pgQueries(tx as unknown as SQL))) as Promise<T>,
    close: () => {
      reader?.close();
      return pool.close();
    },
  };
}
