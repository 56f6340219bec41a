/** Paths of the embedded video engine files (see embedded.js). */
export declare const embedded: {
  coreJs: string;
  coreWasm: string;
  workerJs: string;
  constJs: string;
  errorsJs: string;
};
