// What the compiled binary carries ready-made. Running from source, nothing: the web app is
// bundled at start (src/http/spa.ts) and the video engine is compressed on first use
// (src/vendor/routes.ts). scripts/build.ts replaces this module, for the binary only, with a
// generated one that embeds the minified, code-split web bundle and gzip and brotli copies of
// the web files and the video engine, all made at build time.

/** One embedded file: its path inside the binary, and its gzip copy when that is smaller. */
export type BuiltFile = { file: string; gzip: string | null };

export type BuiltAssets = {
  /** The web bundle by URL path ("/index.html", "/chunk-….js"), with the MIME type. */
  web: Record<string, BuiltFile & { type: string; br: string | null }>;
  /** The video engine's files by name (as in src/vendor/routes.ts's VENDOR_FILES): compressed copies only. */
  vendor: Record<string, BuiltFile & { br: string | null }>;
  /** Per app path, the chunks its first screen needs beyond the entry (src/http/spa.ts's screenPreloads). */
  preloads: Record<string, string[]>;
};

export const builtAssets: BuiltAssets | null = null;
