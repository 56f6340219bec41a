// Constraint violations as typed errors, decided inside the stores, on either backend. SQLite
// reports a UNIQUE or PRIMARY KEY clash as an SQLiteError whose extended result code names it;
// PostgreSQL as SQLSTATE 23505 (unique_violation, primary keys included). The message text
// ("UNIQUE constraint failed: …", "duplicate key value …") is for people and is never matched.
import { SQLiteError } from "bun:sqlite";
import type { AppError } from "../shared/errors";

/** SQLITE_CONSTRAINT_UNIQUE (2067) and SQLITE_CONSTRAINT_PRIMARYKEY (1555). */
const UNIQUE_CODES = new Set(["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);

export const isUniqueViolation = (e: unknown) =>
  e instanceof SQLiteError ? UNIQUE_CODES.has(e.code ?? "") : (e as { name?: string; errno?: string } | null)?.name === "PostgresError" && (e as { errno?: string }).errno === "23505";

/**
 * Runs a write; a unique-constraint violation becomes the store's own error (a CONFLICT with
 * the field at fault), built by `conflict` after the failure, so it may read which value is
 * taken. Anything else is rethrown untouched (busy, full disk: the one error handler maps those).
 */
export async function uniqueOr<T>(write: () => Promise<T>, conflict: () => AppError | Promise<AppError>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (isUniqueViolation(e)) throw await conflict();
    throw e;
  }
}
