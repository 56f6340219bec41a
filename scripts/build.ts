// Compiles the single executable: server, production web bundle, migrations and vendored
// assets all inside dist/threadlink. Run with `npm run build`.
import { $ } from "bun";

const outfile = process.env.OUTFILE ?? "dist/threadlink";
const started = performance.now();
// --production: React's production build in the web bundle (5x smaller than development).
// --no-compile-autoload-bunfig / -dotenv: the binary must not pick up a bunfig.toml preload
// or a .env from whatever folder it is started in; configuration is the environment only.
await $`bun build src/main.ts --compile --production --no-compile-autoload-bunfig --no-compile-autoload-dotenv --public-path=/ --outfile ${outfile}`.quiet();
const size = Bun.file(outfile).size;
console.log(`Built ${outfile} (${(size / 1024 / 1024).toFixed(1)} MiB) in ${Math.round(performance.now() - started)} ms`);
