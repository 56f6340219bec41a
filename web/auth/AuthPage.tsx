import { useState, type FormEvent } from "react";
import { Link, Redirect, useLocation, useSearch } from "wouter";
import { LoginBody, RegisterBody } from "../../src/accounts/schema";
import { login, register, useUser } from "../lib/auth";
import { safeLocalPath } from "../lib/safePath";
import { validateForm } from "../lib/forms";
import { useConfig } from "../lib/config";
import { Button } from "../ui/Button";
import { Field } from "../ui/Field";
import { FullPageSpinner } from "../ui/Spinner";
import { toast, toastError } from "../ui/Toast";
import { ThemeToggle } from "../shell/ThemeToggle";
import { SkipLink } from "../shell/RouteFocus";

type Mode = "signin" | "signup";
const empty = { username: "", email: "", password: "" };

/** Only same-site paths are followed after sign-in (no open redirect). */
function safeNext(search: string) {
  return safeLocalPath(new URLSearchParams(search).get("next")) ?? "/";
}

export function AuthPage() {
  const { user, isLoading } = useUser();
  const config = useConfig();
  const search = useSearch();
  const [, navigate] = useLocation();
  const [mode, setMode] = useState<Mode>("signin");
  const [form, setForm] = useState(empty);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  if (isLoading) return <FullPageSpinner />;
  if (user && !busy) return <Redirect to={safeNext(search)} replace />;

  const toggle = () => {
    setMode((m) => (m === "signin" ? "signup" : "signin"));
    setForm(empty);
    setErrors({});
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const schema = mode === "signup" ? RegisterBody : LoginBody;
    const checked = validateForm(schema, mode === "signup" ? form : { username: form.username, password: form.password });
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      if (mode === "signup") {
        await register({ username: form.username, email: form.email, password: form.password });
        toast({ title: "Account created!", description: "Your account has been created successfully." });
      } else {
        await login({ username: form.username, password: form.password });
        toast({ title: "Welcome back!", description: "Successfully logged in." });
      }
      navigate(safeNext(search), { replace: true });
    } catch (err) {
      toastError(err, mode === "signup" ? "Registration failed" : "Login failed");
    } finally {
      setBusy(false);
    }
  };

  const set = (k: keyof typeof empty) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));
  const signup = mode === "signup";

  return (
    <div className="auth-page">
      <header className="auth-header">
        <SkipLink />
        <span className="brand">{config?.appName ?? "Threadlink"}</span>
        <ThemeToggle />
      </header>
      <main id="main" tabIndex={-1} className="auth-grid">
        <section className="card auth-card" aria-labelledby="auth-title">
          <h1 id="auth-title">{signup ? "Create account" : "Welcome back"}</h1>
          <p className="muted">{signup ? "Sign up to get started" : "Sign in to manage your links and analytics"}</p>
          <form onSubmit={submit} noValidate>
            <fieldset disabled={busy} className="stack">
              <Field label="Username" name="username" autoComplete="username" value={form.username} onChange={set("username")} error={errors.username} required />
              {signup && <Field label="Email" name="email" type="email" autoComplete="email" value={form.email} onChange={set("email")} error={errors.email} required />}
              <Field label="Password" name="password" type="password" autoComplete={signup ? "new-password" : "current-password"} value={form.password} onChange={set("password")} error={errors.password} required />
              <Button type="submit" busy={busy} className="full">{signup ? "Sign up" : "Sign in"}</Button>
            </fieldset>
          </form>
          <p className="auth-toggle">
            {signup ? "Already have an account? " : "Don't have an account? "}
            <button type="button" className="link-button" onClick={toggle} disabled={busy}>{signup ? "Sign in" : "Sign up"}</button>
          </p>
        </section>
        <aside className="auth-marketing" aria-label="About the product">
          <h2>Advanced link management and tracking</h2>
          <div className="blurb">
            <h3>Custom Short Links</h3>
            <p>Create memorable short links that redirect fast, on your own domain.</p>
          </div>
          <div className="blurb">
            <h3>Detailed Analytics</h3>
            <p>See every click: country, city, browser, device, referrer and returning visitors.</p>
          </div>
          <div className="blurb">
            <h3>Dynamic QR Codes</h3>
            <p>Branded QR codes with your logo that point at links you can change later.</p>
          </div>
          <Link href="/about" className="btn btn-secondary btn-md">Learn more</Link>
        </aside>
      </main>
    </div>
  );
}
