import { useConfig } from "../lib/config";
import { PublicShell } from "./PublicShell";
import { usePageTitle } from "../shell/usePageTitle";

/** /how-to-use: four steps and three pro tips (spec §2). */
export function HowToUsePage() {
  usePageTitle("How to Use");
  const app = useConfig()?.appName ?? "Threadlink";
  return (
    <PublicShell>
      <article className="prose">
        <h1>How to Use {app}</h1>
        <ol className="steps">
          <li>
            <h2>Create topics</h2>
            <p>On your home page, type a name and press <strong>Add Topic</strong>. Each topic gets its own link, phone number and contact card.</p>
          </li>
          <li>
            <h2>Start a message thread</h2>
            <p>Press <strong>Start Message</strong> on a topic, add a title, and open it to get a numbered message with its own link.</p>
          </li>
          <li>
            <h2>Send the first message</h2>
            <p>Save the topic's contact card, then paste the topic name as the first message in Messages. Search for it later to find the thread.</p>
          </li>
          <li>
            <h2>Organise topics by dragging</h2>
            <p>Choose <strong>Custom Order</strong> and drag topics by their handle, or focus a handle and use Space and the arrow keys.</p>
          </li>
        </ol>
        <h2>Pro tips</h2>
        <ul className="tips">
          <li>Press <strong>Copy</strong> on a topic to copy its shareable link, ready to paste anywhere.</li>
          <li>Switch the view to <strong>Shared</strong> and create an invite link to share your topics with someone you trust.</li>
          <li>With Premium, start a topic name with an emoji so it stands out in your list and your contacts.</li>
        </ul>
      </article>
    </PublicShell>
  );
}
