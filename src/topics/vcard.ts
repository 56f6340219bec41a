// vCard 4.0 (RFC 6350) for a topic: saving it lets a phone find the thread by topic name.
import { displayName } from "./slug";
import type { Topic } from "./schema";

/** RFC 6350 §3.4: backslash, comma, semicolon and newlines are escaped in text values. */
const esc = (s: string) => s.replace(/\\/g, "\\\\").replace(/,/g, "\\,").replace(/;/g, "\\;").replace(/\r\n|\r|\n/g, "\\n");

/** RFC 6350 §3.2: lines longer than 75 octets are folded, never inside a UTF-8 sequence. */
function fold(line: string) {
  const out: string[] = [];
  let cur = "";
  let octets = 0;
  for (const ch of line) {
    const n = new TextEncoder().encode(ch).length;
    const max = out.length === 0 ? 75 : 74; // continuation lines start with one space
    if (octets + n > max) {
      out.push(cur);
      cur = "";
      octets = 0;
    }
    cur += ch;
    octets += n;
  }
  out.push(cur);
  return out.join("\r\n ");
}

export function topicVcard(topic: Topic, link: string) {
  const name = displayName(topic);
  const lines = [
    "BEGIN:VCARD",
    "VERSION:4.0",
    "KIND:individual",
    `FN:${esc(name)}`,
    `N:${esc(name)};;;;`,
    `TEL;VALUE=uri;TYPE=cell:tel:${topic.phoneNumber}`,
    `URL:${link}`,
    `NOTE:${esc(`Paste "${name}" as your first message, then search for it to find this thread.`)}`,
    `REV:${topic.updatedAt.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")}`,
    "END:VCARD",
  ];
  return lines.map(fold).join("\r\n") + "\r\n";
}

/** A download name made only of safe characters. */
export const vcardFilename = (topic: Topic) => `${topic.linkSlug || "topic"}.vcf`;
