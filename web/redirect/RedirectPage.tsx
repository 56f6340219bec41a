import { useEffect } from "react";
import { Link, useLocation } from "wouter";

// Spec §9: redirect fallback to home after 2000 ms.
export const REDIRECT_FALLBACK_MS = 2000;

// The path the page was loaded at: the server already answered that one (404, unknown code).
const LOADED_AT = typeof location === "undefined" ? "" : location.pathname;

/**
 * /l/:shortCode, /r/:shortCode, /:shortCode. Known codes never reach this page: the server
 * answers them with a 302. What arrives here is an unknown code (the server sent a 404), so
 * after 2 seconds the visitor goes home; with no code, at once.
 */
export function RedirectPage({ params }: { params: { shortCode?: string } }) {
  const [, navigate] = useLocation();
  const code = params.shortCode ?? "";
  useEffect(() => {
    if (!code) {
      navigate("/", { replace: true });
      return;
    }
    // Reached by in-app navigation: let the server answer (302 for a known code).
    if (location.pathname !== LOADED_AT) {
      window.location.replace(location.pathname + location.search);
      return;
    }
    const t = setTimeout(() => navigate("/", { replace: true }), REDIRECT_FALLBACK_MS);
    return () => clearTimeout(t);
  }, [code, navigate]);

  return (
    <main id="main" tabIndex={-1} className="center-page">
      <h1>Link not found</h1>
      <p>This short link doesn't exist or was removed. Taking you to the home page…</p>
      <Link href="/" className="btn btn-primary btn-md">Go Home</Link>
    </main>
  );
}
