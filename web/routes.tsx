// The one route table. Public pages first; signed-in pages wrap in <Protected>.
// Order matters: wouter's <Switch> renders the first match.
import { Route, Switch } from "wouter";
import { AuthPage } from "./auth/AuthPage";
import { Protected } from "./shell/Protected";
import { NotFoundPage } from "./shell/pages";
import { HomePage } from "./shell/HomePage";

export function AppRoutes() {
  return (
    <Switch>
      <Route path="/auth" component={AuthPage} />
      <Route path="/">
        <Protected>
          <HomePage />
        </Protected>
      </Route>
      <Route component={NotFoundPage} />
    </Switch>
  );
}
