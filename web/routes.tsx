// The one route table. Public pages first; signed-in pages wrap in <Protected>.
// Order matters: wouter's <Switch> renders the first match.
import { Route, Switch } from "wouter";
import { AuthPage } from "./auth/AuthPage";
import { Protected } from "./shell/Protected";
import { NotFoundPage } from "./shell/pages";
import { HomePage } from "./shell/HomePage";
import { TopicPage } from "./titles/TopicPage";
import { MessageListPage } from "./titles/MessageListPage";
import { MessageDetailPage } from "./titles/MessageDetailPage";

export function AppRoutes() {
  return (
    <Switch>
      <Route path="/auth" component={AuthPage} />
      <Route path="/">
        <Protected>
          <HomePage />
        </Protected>
      </Route>
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
      <Route component={NotFoundPage} />
    </Switch>
  );
}
