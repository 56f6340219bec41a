import { useEffect } from "react";
import { useConfig } from "../lib/config";

/**
 * The browser tab's title: "{page} · {appName}", so tabs, history and screen readers
 * (which announce the title on navigation) tell pages apart. Undefined while loading keeps
 * the plain app name; leaving the page restores it for pages that set none.
 */
export function usePageTitle(page: string | undefined) {
  const appName = useConfig()?.appName ?? "Threadlink";
  useEffect(() => {
    document.title = page ? `${page} · ${appName}` : appName;
    return () => {
      document.title = appName;
    };
  }, [page, appName]);
}
