import { Button } from "../ui/Button";
import { toast, toastError } from "../ui/Toast";
import { copyText } from "./data";

/** +15551234567 reads as +1 555-123-4567; any other E.164 number is shown as stored. */
export function formatPhone(e164: string) {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164);
  return m ? `+1 ${m[1]}-${m[2]}-${m[3]}` : e164;
}

/**
 * A topic's phone number (PRODUCT.md: each topic has one): a tel: link, so a phone offers to
 * call or text it, and a copy action for pasting it into a contact or the Messages app.
 */
export function PhoneNumber({ number, topic }: { number: string; topic: string }) {
  const shown = formatPhone(number);
  const copy = async () => {
    if (await copyText(number)) toast({ title: "Copied to clipboard" });
    else toastError(null, "Failed to copy to clipboard. Please try again.");
  };
  return (
    <span className="phone-number">
      <a href={`tel:${number}`} aria-label={`Phone number of ${topic}: ${shown}`}>
        <span aria-hidden="true">☎ </span>
        {shown}
      </a>
      <Button size="sm" variant="ghost" className="phone-copy" onClick={copy} aria-label={`Copy number for ${topic}`}>
        Copy number
      </Button>
    </span>
  );
}
