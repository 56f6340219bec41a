/**
 * Paths of the embedded video engine files (see embedded.js); null in the compiled binary,
 * which carries compressed copies instead (scripts/build.ts, src/http/builtAssets.ts).
 */
export declare const embedded: {
  coreJs: string;
  coreWasm: string;
  workerJs: string;
  constJs: string;
  errorsJs: string;
} | null;
