// Constraint violations as typed errors, decided inside the stores. SQLite reports a UNIQUE or
// PRIMARY KEY clash as an SQLiteError whose extended result code names it; the message text
// ("UNIQUE constraint failed: …") is for people and is never matched.
import { SQLiteError } from "bun:sqlite";
import type { AppError } from "../http/errors";

/** SQLITE_CONSTRAINT_UNIQUE (2067) and SQLITE_CONSTRAINT_PRIMARYKEY (1555). */
const UNIQUE_CODES = new Set(["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY"]);

export const isUniqueViolation = (e: unknown) => e instanceof SQLiteError && UNIQUE_CODES.has(e.code ?? "");

/**
 * Runs a write; a unique-constraint violation becomes the store's own error (a CONFLICT with
 * the field at fault), built by `conflict` after the failure, so it may read which value is
 * taken. Anything else is rethrown untouched (busy, full disk: the one error handler maps those).
 */
export function uniqueOr<T>(write: () => T, conflict: () => AppError): T {
  try {
    return write();
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict();
    throw e;
  }
}
