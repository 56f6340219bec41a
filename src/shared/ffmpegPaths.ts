// Where the binary serves the in-browser video engine: shared by the server route (src/vendor/)
// and /qr, so it lives in src/shared/, the one server folder besides schema.ts files that web/ imports.
// The @ffmpeg/core version is in the path so the files can be cached as immutable.
export const FFMPEG_CORE_VERSION = "0.12.10";
export const FFMPEG_BASE = `/vendor/ffmpeg-${FFMPEG_CORE_VERSION}`;
/** @ffmpeg/core (single-threaded, ESM build): the Emscripten glue and its wasm. */
export const FFMPEG_CORE_URL = `${FFMPEG_BASE}/ffmpeg-core.js`;
export const FFMPEG_WASM_URL = `${FFMPEG_BASE}/ffmpeg-core.wasm`;
/** @ffmpeg/ffmpeg's own worker (an ES module importing ./const.js and ./errors.js beside it). */
export const FFMPEG_WORKER_URL = `${FFMPEG_BASE}/worker.js`;
