// The ceiling for the redirect benchmark: the least a Bun server can do per request (a fixed
// 302), on the same machine, measured by the same load generator. Loopback only.
const port = Number(process.argv[2] ?? 3391);
Bun.serve({
  port,
  hostname: "127.0.0.1",
  fetch: () => new Response(null, { status: 302, headers: { location: "https://example.com/" } }),
});
console.log(`ceiling listening on ${port}`);
