import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { mutate } from "swr";
import { fetcher } from "./lib/api";
import { fetchUser, USER_KEY } from "./lib/auth";
import { TOPICS_KEY } from "./topics/data";
import { SwrProvider } from "./lib/swr";
import { Toaster } from "./ui/Toast";
import { AppRoutes, loadAuthPage } from "./routes";
import { RouteFocus } from "./shell/RouteFocus";
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

// The first screen's data comes before the first render. The HTML's Link header has already
// asked for /api/user (and /api/topics when there is a session cookie), so on a cold load both
// answers are usually in by the time this script runs. Put into swr's cache, they make the
// dashboard's first render the whole list: one commit and one layout, not a spinner, then an
// empty list, then the rows. Written with mutate rather than swr's `preload`, whose promise
// would be handed to the next revalidation of the key even after a write. The topic list is
// asked for only once there is a user: a signed-out 401 must not be kept for the key. The
// sign-in page's chunk is fetched at once on /auth, and as soon as the check says signed out.
// The wait is bounded: past FIRST_DATA_WAIT_MS the app renders its 'Loading...' spinner and
// the hooks ask for themselves (a late answer still lands in the cache).
const FIRST_DATA_WAIT_MS = 200;
if (location.pathname === "/auth") loadAuthPage().catch(() => {});
const firstData = fetchUser()
  .then(async (user) => {
    await mutate(USER_KEY, user, { revalidate: false });
    if (!user) loadAuthPage().catch(() => {});
    else if (location.pathname === "/") await mutate(TOPICS_KEY, await fetcher(TOPICS_KEY), { revalidate: false });
  })
  // A failed check is shown by the components, whose hooks then ask again.
  .catch(() => {});

Promise.race([firstData, new Promise((done) => setTimeout(done, FIRST_DATA_WAIT_MS))]).then(() =>
  createRoot(document.getElementById("root")!).render(
    <StrictMode>
      <SwrProvider>
        <RouteFocus />
        <AppRoutes />
        <Toaster />
      </SwrProvider>
    </StrictMode>,
  ),
);
