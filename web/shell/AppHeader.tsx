import { useState, type ReactNode } from "react";
import { Link, useLocation } from "wouter";
import { logout, useUser } from "../lib/auth";
import { useConfig } from "../lib/config";
import { Drawer } from "../ui/Drawer";
import { Menu } from "../ui/Menu";
import { Button } from "../ui/Button";
import { toastError } from "../ui/Toast";
import { ThemeToggle } from "./ThemeToggle";
import { NotificationBell } from "../notifications/NotificationBell";
import { SkipLink } from "./RouteFocus";

export function useSignOut() {
  const [, navigate] = useLocation();
  return async () => {
    try {
      await logout();
      navigate("/auth");
    } catch (e) {
      toastError(e, "Failed to sign out");
    }
  };
}

/** The signed-in header: product name, welcome line, Tools, theme, Sign out, mobile menu. */
export function AppHeader({ extra }: { extra?: ReactNode }) {
  const { user } = useUser();
  const config = useConfig();
  const signOut = useSignOut();
  const [, navigate] = useLocation();
  const [busy, setBusy] = useState(false);
  const appName = config?.appName ?? "Threadlink";
  const brandTracker = `${config?.brandName ?? "Pic Drift"} Link Tracker`;
  const tools = [
    { label: "QR Code Generator", href: "/qr" },
    { label: "Link Tracker", href: "/link-tracker" },
    { label: brandTracker, href: "/pic-drift-link-tracker" },
  ];
  const mobileItems = [
    { label: "Home", href: "/" },
    { label: "Pricing", href: "/pricing" },
    { label: "About Us", href: "/about" },
    { label: "How to Use", href: "/how-to-use" },
    { label: "Notifications", href: "/notifications" },
    ...tools,
  ];
  const doSignOut = async () => {
    setBusy(true);
    await signOut();
    setBusy(false);
  };
  return (
    <header className="app-header">
      <SkipLink />
      <div className="header-left">
        <Link href="/" className="brand">{appName}</Link>
        {/* The spec fixes the Tools and mobile menus' items, so Settings (API keys, issue 14) is
            reached from the user's own name in the welcome line, on every width. */}
        {user && (
          <span className="welcome">
            Welcome,{" "}
            <Link href="/settings" className="welcome-user" aria-label={`${user.username}: settings and API keys`}>
              {user.username}
            </Link>
          </span>
        )}
      </div>
      <nav className="header-right" aria-label="Main">
        <div className="desktop-only">
          <Menu label="Tools" button={<>Tools ▾</>} items={tools} />
        </div>
        {extra}
        <NotificationBell />
        <ThemeToggle />
        <Button variant="secondary" className="desktop-only" onClick={doSignOut} busy={busy}>Sign out</Button>
        <Drawer label="Menu" title={appName} button="☰" buttonClassName="mobile-only">
          {(close) => (
            <ul className="drawer-list">
              {mobileItems.map((it) => (
                <li key={it.href}>
                  <a
                    href={it.href}
                    onClick={(e) => {
                      e.preventDefault();
                      close();
                      navigate(it.href);
                    }}
                  >
                    {it.label}
                  </a>
                </li>
              ))}
              <li>
                <button type="button" className="drawer-signout" onClick={() => { close(); void doSignOut(); }}>Sign out</button>
              </li>
            </ul>
          )}
        </Drawer>
      </nav>
    </header>
  );
}

export function AppFooter() {
  return (
    <footer className="app-footer">
      <nav aria-label="Footer">
        <Link href="/pricing">Pricing</Link>
        <Link href="/about">About Us</Link>
        <Link href="/how-to-use">How to Use</Link>
      </nav>
    </footer>
  );
}
