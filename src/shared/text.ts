// Control characters: refused by the one schema the server and the web forms share. A NUL or
// an escape sequence in a name ends up in page titles, vCards, CSV exports, notifications and
// logs, where it truncates, corrupts or hides text; and PostgreSQL cannot store U+0000 at all.
import * as v from "valibot";

/** C0 controls, DEL and the C1 controls (U+0080–U+009F). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const controlCharsMessage = (what: string) => `${what} must not contain control characters`;

/** C0 controls other than tab, line feed and carriage return (the ones multi-line text uses). */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/** True when `s` could not be a name (a username or slug from a path is then simply not found). */
export const hasControlChars = (s: string) => CONTROL.test(s);

/** For names and titles (topic, title, display name, link title, username): one line, no controls. */
export const noControlChars = (what: string) => v.check((s: string) => !CONTROL.test(s), controlCharsMessage(what));

/**
 * For free, multi-line text (notes, messages, descriptions): stored as typed, tabs and line
 * breaks included, and only ever shown escaped; the other C0 controls are refused, the same
 * on both backends (PostgreSQL cannot store U+0000, and the rest are invisible junk).
 */
export const noControlCharsInText = (what: string) =>
  v.check((s: string) => !CONTROL_IN_TEXT.test(s), `${what} must not contain control characters other than tabs and line breaks`);
