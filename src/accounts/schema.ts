// One schema for the server route and the web form: the messages users see live here.
import * as v from "valibot";
import { isApiWord, isReserved } from "../shared/reserved";
import { noControlChars } from "../shared/text";

const text = (what: string) => v.optional(v.string(`${what} must be text`), "");

export const Username = v.pipe(
  text("Username"),
  v.trim(),
  v.nonEmpty("Username is required"),
  noControlChars("Username"),
  v.maxLength(32, "Username must be at most 32 characters"),
  v.toLowerCase(),
  v.regex(/^[a-z0-9_-]{3,32}$/, "Username must be 3 to 32 characters: letters, numbers, '-' or '_'"),
  v.check((u) => !isReserved(u) && !isApiWord(u), "That username is reserved. Please choose another."),
);

export const Password = v.pipe(
  text("Password"),
  v.nonEmpty("Password is required"),
  v.minLength(8, "Password must be at least 8 characters"),
  v.maxLength(256, "Password must be at most 256 characters"),
);

export const Email = v.pipe(
  text("Email"),
  v.trim(),
  v.nonEmpty("Email is required for registration"),
  v.maxLength(254, "Email must be at most 254 characters"),
  v.email("Invalid email format"),
);

export const RegisterBody = v.object({ username: Username, password: Password, email: Email });

// Sign-in checks only presence and size: the rules above are for new accounts, and a
// wrong-format username must get the same answer as a wrong password.
export const LoginBody = v.object({
  username: v.pipe(text("Username"), v.trim(), v.nonEmpty("Username is required"), v.maxLength(254, "Username is too long"), v.toLowerCase()),
  password: v.pipe(text("Password"), v.nonEmpty("Password is required"), v.maxLength(256, "Password is too long")),
  email: v.optional(v.unknown()),
});

/** The signed-in user as the API returns it: never a hash, never a token. */
export const PublicUser = v.object({
  id: v.number(),
  username: v.string(),
  email: v.string(),
  subscriptionType: v.picklist(["free", "premium"]),
  subscriptionExpiresAt: v.nullable(v.string()),
  isOwner: v.boolean(),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type PublicUser = v.InferOutput<typeof PublicUser>;

/** The answer to sign-up and sign-in (the session cookie comes with it). */
export const SignedIn = v.object({ ok: v.literal(true), message: v.string(), user: PublicUser });
