import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
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

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <SwrProvider>
      <AppRoutes />
      <Toaster />
    </SwrProvider>
  </StrictMode>,
);
