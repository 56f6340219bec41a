// The one route table. Public pages first; signed-in pages wrap in <Protected>.
// Order matters: wouter's <Switch> renders the first match.
import { Route, Switch } from "wouter";
import { AuthPage } from "./auth/AuthPage";
import { Protected } from "./shell/Protected";
import { NotFoundPage } from "./shell/pages";
import { Dashboard } from "./topics/Dashboard";
import { PricingPage } from "./plans/PricingPage";
import { AboutPage } from "./pages/AboutPage";
import { HowToUsePage } from "./pages/HowToUsePage";
import { SharePage } from "./sharing/SharePage";
import { InvitePage } from "./sharing/InvitePage";
import { NotificationsPage } from "./notifications/NotificationsPage";
import { LinkTrackerPage } from "./links/LinkTrackerPage";
import { BrandTrackerPage } from "./brand/BrandTrackerPage";
import { RedirectPage } from "./redirect/RedirectPage";
import { QrPage } from "./qr/QrPage";
import { TopicPage } from "./titles/TopicPage";
import { MessageListPage } from "./titles/MessageListPage";
import { MessageDetailPage } from "./titles/MessageDetailPage";

export function AppRoutes() {
  return (
    <Switch>
      <Route path="/auth" component={AuthPage} />
      <Route path="/pricing" component={PricingPage} />
      <Route path="/about" component={AboutPage} />
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
      <Route path="/link-tracker">
        <Protected>
          <LinkTrackerPage />
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
      {/* Spec: /:shortCode is the catch-all matched after every other route. */}
      <Route path="/:shortCode" component={RedirectPage} />
      <Route component={NotFoundPage} />
    </Switch>
  );
}
