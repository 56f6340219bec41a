// Instance settings the web app needs (names, short domains) come from GET /api/config.
import useSWR from "swr";
import type { PublicConfig } from "../../src/health/schema";

export type { PublicConfig };

export function useConfig() {
  const { data } = useSWR<PublicConfig>("/api/config");
  return data;
}
