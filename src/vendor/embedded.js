// The video engine files, as `with { type: "file" }` imports: each is the file's path, read
// with Bun.file. Used running from source; the compiled binary swaps this module for `null`
// and embeds build-time gzip and brotli copies instead (scripts/build.ts).
// Plain JS with a hand-written embedded.d.ts on purpose: TypeScript would otherwise resolve
// @ffmpeg/ffmpeg's worker.d.ts, whose `/// <reference lib="webworker" />` replaces the DOM lib
// for the whole project.
import coreJs from "../../node_modules/@ffmpeg/core/dist/esm/ffmpeg-core.js" with { type: "file" };
import coreWasm from "../../node_modules/@ffmpeg/core/dist/esm/ffmpeg-core.wasm" with { type: "file" };
import workerJs from "../../node_modules/@ffmpeg/ffmpeg/dist/esm/worker.js" with { type: "file" };
import constJs from "../../node_modules/@ffmpeg/ffmpeg/dist/esm/const.js" with { type: "file" };
import errorsJs from "../../node_modules/@ffmpeg/ffmpeg/dist/esm/errors.js" with { type: "file" };

export const embedded = { coreJs, coreWasm, workerJs, constJs, errorsJs };
