import type { ReactNode } from "react";
import { Redirect } from "wouter";
import { useUser } from "../lib/auth";
import { FullPageSpinner } from "../ui/Spinner";
import { AuthErrorPage } from "./pages";

/** Signed-in pages: a spinner while the session loads, /auth when there is none. */
export function Protected({ children }: { children: ReactNode }) {
  const { user, error, isLoading } = useUser();
  if (isLoading) return <FullPageSpinner />;
  if (error) return <AuthErrorPage error={error} />;
  if (!user) {
    const back = location.pathname + location.search;
    return <Redirect to={back === "/" ? "/auth" : `/auth?next=${encodeURIComponent(back)}`} replace />;
  }
  return <>{children}</>;
}
