// How passwords are hashed, in one place for the sign-up route and the CLI.
//
// argon2id at OWASP's recommended floor (m = 19 MiB, t = 2, p = 1) rather than Bun's default
// (m = 64 MiB): one verification then costs ~35 ms of CPU and 19 MiB instead of ~130 ms and
// 64 MiB, which keeps a sign-in attempt inside the per-request budget of issue 11 (~50 ms,
// ~50 MB) while the attempt limits (src/http/rateLimit.ts) bound how many guesses are made.
// Older hashes still verify (argon2 stores its parameters in the hash) and are replaced with
// this form at the owner's next successful sign-in.
export const PASSWORD_HASH = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

const CURRENT_PREFIX = `$argon2id$v=19$m=${PASSWORD_HASH.memoryCost},t=${PASSWORD_HASH.timeCost},p=1$`;

export const hashPassword = (password: string) => Bun.password.hash(password, PASSWORD_HASH);

/** True when `hash` was made with other parameters and should be replaced. */
export const needsRehash = (hash: string) => !hash.startsWith(CURRENT_PREFIX);
