import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { VERSION } from "../version";
import { healthStore } from "./store";

export function healthRoutes(ctx: AppContext) {
  const store = healthStore(ctx.db);
  return new Elysia({ prefix: "/api" }).get("/health", ({ set }) => {
    const db = store.ping() ? "ok" : "unavailable";
    if (db !== "ok") set.status = 503;
    set.headers["cache-control"] = "no-store";
    return { status: db === "ok" ? "ok" : "degraded", version: VERSION, db };
  });
}
