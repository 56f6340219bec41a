import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { SwrProvider } from "./lib/swr";
import { Toaster } from "./ui/Toast";
import { AppRoutes } from "./routes";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <SwrProvider>
      <AppRoutes />
      <Toaster />
    </SwrProvider>
  </StrictMode>,
);
