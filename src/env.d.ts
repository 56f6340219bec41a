declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*.html" {
  const bundle: unknown;
  export default bundle;
}
