// Browser builds of packages whose package.json "browser" map the compiled binary's web bundle
// does not apply (their "main" needs fs/stream). Typed as the packages themselves.
declare module "qrcode/lib/core/qrcode.js" {
  export { create } from "qrcode";
}
declare module "jszip/dist/jszip.min.js" {
  import JSZip from "jszip";
  export default JSZip;
}
// pngjs ships no types; the e2e spec uses only its synchronous codec.
declare module "pngjs" {
  export class PNG {
    constructor(options: { width: number; height: number });
    width: number;
    height: number;
    data: Buffer;
    static sync: { read(buffer: Buffer): PNG; write(png: PNG): Buffer };
  }
}
