-- Issue 12 (the click writer) had this number reserved while 0005 and 0006 landed. Its changes
-- needed no schema change: every link's count now moves in one statement per transaction
-- (src/analytics/store.ts), and the designs that would change the click tables (an append-only
-- click table whose per-link index is folded in bulk) are measured in docs/performance.md but
-- not adopted yet. Kept as a no-op so migration versions stay consecutive.
SELECT 1;
