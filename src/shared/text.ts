// Control characters in names: refused by the one schema the server and the web forms share.
// A NUL or an escape sequence in a name ends up in page titles, vCards, CSV exports,
// notifications and logs, where it truncates, corrupts or hides text.
import * as v from "valibot";

/** C0 controls, DEL and the C1 controls (U+0080–U+009F). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const controlCharsMessage = (what: string) => `${what} must not contain control characters`;

/**
 * For names and titles (topic, title, display name, link title, username). Free text (notes,
 * messages, descriptions) is stored exactly as typed and only ever shown escaped.
 */
export const noControlChars = (what: string) => v.check((s: string) => !CONTROL.test(s), controlCharsMessage(what));
