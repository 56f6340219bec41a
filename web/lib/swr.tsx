import type { ReactNode } from "react";
import { SWRConfig } from "swr";
import { fetcher } from "./api";

/** Spec §7: no retry, no refetch on focus, no polling, never stale. */
export function SwrProvider({ children }: { children: ReactNode }) {
  return (
    <SWRConfig
      value={{
        fetcher,
        shouldRetryOnError: false,
        revalidateOnFocus: false,
        revalidateOnReconnect: false,
        revalidateIfStale: false,
        refreshInterval: 0,
      }}
    >
      {children}
    </SWRConfig>
  );
}
