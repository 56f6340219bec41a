import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { preload } from "swr";
import { fetcher } from "./lib/api";
import { fetchUser, USER_KEY } from "./lib/auth";
import { TOPICS_KEY } from "./topics/data";
import { SwrProvider } from "./lib/swr";
import { Toaster } from "./ui/Toast";
import { AppRoutes } from "./routes";
// Every stylesheet of the app, here: Bun's code splitting gives a lazy screen's CSS its own file
// but nothing loads it, so each one is pulled into the entry's stylesheet instead (all of
// them are ~11 KB gzipped). web/stylesheets.test.ts keeps this list complete.
import "./plans/plans.css";
import "./qr/qr.css";
import "./topics/topics.css";
import "./notifications/notifications.css";
import "./links/links.css";
import "uplot/dist/uPlot.min.css";
import "./titles/titles.css";
import "./pages/pages.css";
import "./sharing/sharing.css";

// The session check starts now, not after the first render, and on the dashboard the topic
// list is asked for as soon as there is a user (never before: a signed-out answer would be
// kept for the key). Both are taken up by the components' own useSWR calls.
preload(USER_KEY, fetchUser)
  .then((user) => {
    if (user && location.pathname === "/") preload(TOPICS_KEY, fetcher);
  })
  .catch(() => {});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <SwrProvider>
      <AppRoutes />
      <Toaster />
    </SwrProvider>
  </StrictMode>,
);
