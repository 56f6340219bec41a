import type { ReactNode } from "react";
import { Link } from "wouter";
import { useUser } from "../lib/auth";
import { useConfig } from "../lib/config";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { ThemeToggle } from "../shell/ThemeToggle";
import "./pages.css";
import { SkipLink } from "../shell/RouteFocus";

/** Pages anyone may open: the full app header when signed in, a slim one otherwise. */
export function PublicShell({ children }: { children: ReactNode }) {
  const { user } = useUser();
  const config = useConfig();
  return (
    <div className="page">
      {user ? (
        <AppHeader />
      ) : (
        <header className="app-header">
          <SkipLink />
          <div className="header-left">
            <Link href="/" className="brand">{config?.appName ?? "Threadlink"}</Link>
          </div>
          <nav className="header-right" aria-label="Main">
            <ThemeToggle />
            <Link href="/auth" className="btn btn-primary btn-md">Sign in</Link>
          </nav>
        </header>
      )}
      <main id="main" tabIndex={-1} className="container public-page">{children}</main>
      <AppFooter />
    </div>
  );
}
