// Compiles the single executable: server, production web bundle, migrations and vendored
// assets all inside dist/threadlink. Run with `npm run build`.
import { $ } from "bun";

const outfile = process.env.OUTFILE ?? "dist/threadlink";
const started = performance.now();
// NODE_ENV=production selects React's production build for the web bundle (5x smaller).
// Identifiers are not minified: Elysia reads handler source to decide what to parse
// (body, query…), which mangled parameter names would defeat.
// --no-compile-autoload-bunfig / -dotenv: the binary must not pick up a bunfig.toml preload
// or a .env from whatever folder it is started in; configuration is the environment only.
const define = '--define=process.env.NODE_ENV="production"';
// The click worker is a second entrypoint: `new Worker(new URL("./clickWorker.ts", …))` in
// src/analytics/recorder.ts finds it inside the binary.
await $`bun build src/main.ts src/analytics/clickWorker.ts --compile --minify-syntax --minify-whitespace ${define} --no-compile-autoload-bunfig --no-compile-autoload-dotenv --public-path=/ --outfile ${outfile}`.quiet();
const size = Bun.file(outfile).size;
console.log(`Built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) in ${Math.round(performance.now() - started)} ms`);
