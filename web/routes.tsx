// The one route table. Public pages first; signed-in pages wrap in <Protected>.
// Order matters: wouter's <Switch> renders the first match.
//
// Only the dashboard (the first screen of a signed-in visit) and the tiny fallbacks are in the
// entry chunk; every other screen, the sign-in page included, is its own chunk, fetched when
// its route first renders (docs/performance.md, "Web app": the first load stays under 150 KB
// gzipped and the dashboard interactive within 300 ms). A new screen: add a `lazyPage` line
// below and a <Route>; heavy parts inside a screen follow web/ui/lazyPopups.ts.
import { lazy, Suspense, type ComponentType } from "react";
import { Route, Switch } from "wouter";
import { Protected } from "./shell/Protected";
import { NotFoundPage } from "./shell/pages";
import { Dashboard } from "./topics/Dashboard";
import { RedirectPage } from "./redirect/RedirectPage";
import { FullPageSpinner } from "./ui/Spinner";

/** A named export as a React.lazy component: the module is fetched on first render. */
function lazyPage<M, K extends keyof M>(load: () => Promise<M>, name: K) {
  return lazy(async () => ({ default: (await load())[name] as ComponentType<any> }));
}

/** Also fetched by main.tsx at start when the visit is signed out (no waiting on the route). */
export const loadAuthPage = () => import("./auth/AuthPage");
const AuthPage = lazyPage(loadAuthPage, "AuthPage");
const PricingPage = lazyPage(() => import("./plans/PricingPage"), "PricingPage");
const AboutPage = lazyPage(() => import("./pages/AboutPage"), "AboutPage");
const HowToUsePage = lazyPage(() => import("./pages/HowToUsePage"), "HowToUsePage");
const SharePage = lazyPage(() => import("./sharing/SharePage"), "SharePage");
const InvitePage = lazyPage(() => import("./sharing/InvitePage"), "InvitePage");
const NotificationsPage = lazyPage(() => import("./notifications/NotificationsPage"), "NotificationsPage");
const LinkTrackerPage = lazyPage(() => import("./links/LinkTrackerPage"), "LinkTrackerPage");
const ImportPage = lazyPage(() => import("./links/ImportPage"), "ImportPage");
const BrandTrackerPage = lazyPage(() => import("./brand/BrandTrackerPage"), "BrandTrackerPage");
const QrPage = lazyPage(() => import("./qr/QrPage"), "QrPage");
const TopicPage = lazyPage(() => import("./titles/TopicPage"), "TopicPage");
const MessageListPage = lazyPage(() => import("./titles/MessageListPage"), "MessageListPage");
const MessageDetailPage = lazyPage(() => import("./titles/MessageDetailPage"), "MessageDetailPage");
const SettingsPage = lazyPage(() => import("./settings/SettingsPage"), "SettingsPage");
const ApiDocsPage = lazyPage(() => import("./apidocs/ApiDocsPage"), "ApiDocsPage");

export function AppRoutes() {
  return (
    // While a screen's chunk arrives: the same 'Loading...' status the session check shows.
    <Suspense fallback={<FullPageSpinner />}>
      <Switch>
        <Route path="/auth" component={AuthPage} />
        <Route path="/pricing" component={PricingPage} />
        <Route path="/about" component={AboutPage} />
        <Route path="/api/docs" component={ApiDocsPage} />
        <Route path="/how-to-use" component={HowToUsePage} />
        <Route path="/share/:username" component={SharePage} />
        <Route path="/invite/:code" component={InvitePage} />
        <Route path="/">
          <Protected>
            <Dashboard />
          </Protected>
        </Route>
        <Route path="/notifications">
          <Protected>
            <NotificationsPage />
          </Protected>
        </Route>
        <Route path="/qr">
          <Protected>
            <QrPage />
          </Protected>
        </Route>
        <Route path="/link-tracker/import">
          <Protected>
            <ImportPage />
          </Protected>
        </Route>
        <Route path="/link-tracker">
          <Protected>
            <LinkTrackerPage />
          </Protected>
        </Route>
        <Route path="/settings">
          <Protected>
            <SettingsPage />
          </Protected>
        </Route>
        {/* The "webhook turned off" notification's link: the same page. */}
        <Route path="/settings/webhooks">
          <Protected>
            <SettingsPage />
          </Protected>
        </Route>
        <Route path="/pic-drift-link-tracker">
          <Protected>
            <BrandTrackerPage />
          </Protected>
        </Route>
        {/* Unknown short codes (the server already answered known ones with a 302). */}
        <Route path="/l/:shortCode?" component={RedirectPage} />
        <Route path="/r/:shortCode?" component={RedirectPage} />
        {/* Titles: parameter-only paths, so they stay after every fixed route, just before the 404. */}
        <Route path="/topic/:username/:topicSlug">
          <Protected>
            <TopicPage />
          </Protected>
        </Route>
        {/* Spec §2 (topic page): a missing parameter is 'Error Loading Topic', not a not-found. */}
        <Route path="/topic/:username?">
          <Protected>
            <TopicPage />
          </Protected>
        </Route>
        <Route path="/:username/:topicSlug/:titleSlug/:version">
          <Protected>
            <MessageDetailPage />
          </Protected>
        </Route>
        <Route path="/:username/:topicSlug/:titleSlug">
          <Protected>
            <MessageListPage />
          </Protected>
        </Route>
        <Route path="/:username/:topicSlug">
          <Protected>
            <TopicPage />
          </Protected>
        </Route>
        {/* A page route without its part (/share/, /invite/) is no short code: 'Page Not Found'. */}
        <Route path="/share" component={NotFoundPage} />
        <Route path="/invite" component={NotFoundPage} />
        {/* Spec: /:shortCode is the catch-all matched after every other route. */}
        <Route path="/:shortCode" component={RedirectPage} />
        <Route component={NotFoundPage} />
      </Switch>
    </Suspense>
  );
}
