// `import path from "….mmdb" with { type: "file" }` yields a path Bun.file() can read, also
// inside the compiled binary.
declare module "*.mmdb" {
  const path: string;
  export default path;
}
