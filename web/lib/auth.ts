import useSWR, { mutate } from "swr";
import { api } from "./api";
import type { PublicUser } from "../../src/accounts/schema";

export type User = PublicUser;
export const USER_KEY = "/api/user";

/** Spec §8 'User fetch': 401 is "no user"; every other failure has its own message. */
export async function fetchUser(): Promise<User | null> {
  let res: Response;
  try {
    res = await fetch(USER_KEY, { credentials: "include", headers: { accept: "application/json", "x-requested-with": "XMLHttpRequest" } });
  } catch {
    throw new Error("Unknown error fetching user data");
  }
  if (res.status === 401) return null;
  if (res.status >= 500) throw new Error(`Server error: ${res.status} ${res.statusText}`);
  const type = res.headers.get("content-type") ?? "";
  if (!res.ok) {
    const text = await res.text();
    if (type.includes("json")) {
      try {
        const body = JSON.parse(text);
        const err = typeof body.error === "string" ? body.error : body.error?.message;
        throw new Error(err || `API error: ${res.status}`);
      } catch (e) {
        if (e instanceof SyntaxError) throw new Error(`API error: ${res.status}`);
        throw e;
      }
    }
    throw new Error(`API error: ${res.status} - ${text.slice(0, 100)}`);
  }
  if (!type.includes("json")) throw new Error(`Expected JSON response but got ${type || "unknown content type"}`);
  return (await res.json()) as User;
}

export function useUser() {
  const { data, error, isLoading } = useSWR(USER_KEY, fetchUser);
  return { user: data ?? null, error: error as Error | undefined, isLoading };
}

type Credentials = { username: string; password: string; email?: string };

// Spec §5: sign-in omits the email and sends a fixed placeholder instead.
const PLACEHOLDER_EMAIL = "login@placeholder.invalid";

export async function login(c: Credentials) {
  const r = await api<{ ok: true; message: string; user: User }>("/api/login", {
    method: "POST",
    body: { username: c.username, password: c.password, email: PLACEHOLDER_EMAIL },
  });
  await mutate(USER_KEY);
  return r;
}

export async function register(c: Required<Credentials>) {
  const r = await api<{ ok: true; message: string; user: User }>("/api/register", { method: "POST", body: c });
  await mutate(USER_KEY);
  return r;
}

export async function logout() {
  await api("/api/logout", { method: "POST" });
  // Drop every cached response: the next user must not see this one's data.
  await mutate(() => true, undefined, { revalidate: false });
  await mutate(USER_KEY);
}
