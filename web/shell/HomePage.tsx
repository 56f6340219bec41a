import { AppFooter, AppHeader } from "./AppHeader";

/** Signed-in home until the topics dashboard takes this route. */
export function HomePage() {
  return (
    <div className="page">
      <AppHeader />
      <main className="container">
        <h1>Home</h1>
      </main>
      <AppFooter />
    </div>
  );
}
