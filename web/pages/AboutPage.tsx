import { Link } from "wouter";
import { useConfig } from "../lib/config";
import { PublicShell } from "./PublicShell";
import { usePageTitle } from "../shell/usePageTitle";

/** /about: what the product does, and who is legally responsible for this instance. */
export function AboutPage() {
  usePageTitle("About Us");
  const config = useConfig();
  const app = config?.appName ?? "Threadlink";
  return (
    <PublicShell>
      <article className="prose">
        <h1>About {app}</h1>
        <p>
          {app} is advanced link management and tracking for individuals. Keep your conversations in named topics, create
          custom short links with click analytics, and generate branded QR codes, all in one place.
        </p>
        <h2>Topics and Messages</h2>
        <p>
          Each topic gets a unique generated phone number and a contact card. Save the contact on your phone, paste the topic
          name as your first message in Messages, and later find the whole thread again by searching for it. Inside a topic you
          keep titles, and each title holds numbered message versions, each with its own link, message phrase and notes.
        </p>
        <p>
          Every topic has a shareable link. Share your topics with people you trust through single-use invite links.
        </p>
        <h2>Your data</h2>
        <p>
          Your topics, titles and links are stored on this {app} server, not with a third party. Messages you send from your
          phone go through your own messaging app and carrier: standard message and data rates may apply.
        </p>
        <p>
          New here? Read <Link href="/how-to-use">How to Use</Link> to get started.
        </p>
        <h2>Legal owner</h2>
        {config?.operatorName || config?.operatorAddress ? (
          <address className="operator">
            {config.operatorName && <strong>{config.operatorName}</strong>}
            {config.operatorName && config.operatorAddress && <br />}
            {config.operatorAddress}
          </address>
        ) : (
          // Unconfigured: a neutral line for visitors (the setting is documented in the README).
          <p>This {app} server is run independently by the person or organisation that set it up.</p>
        )}
      </article>
    </PublicShell>
  );
}
