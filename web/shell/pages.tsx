import { Link } from "wouter";
import { usePageTitle } from "./usePageTitle";

export function NotFoundPage() {
  usePageTitle("Page Not Found");
  return (
    <main id="main" tabIndex={-1} className="center-page">
      <h1>Page Not Found</h1>
      <p>The page you're looking for doesn't exist.</p>
      <Link href="/" className="btn btn-primary btn-md">Go Home</Link>
    </main>
  );
}

export function AuthErrorPage({ error }: { error: Error }) {
  return (
    <main id="main" tabIndex={-1} className="center-page">
      <div className="card narrow">
        <h1>Authentication Error</h1>
        <p>There was a problem checking your login status.</p>
        <p className="muted">{error.message}</p>
        <Link href="/auth" className="btn btn-primary btn-md">Go to Login</Link>
      </div>
    </main>
  );
}
