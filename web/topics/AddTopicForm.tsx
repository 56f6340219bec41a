import { useEffect, useRef, useState, type FormEvent } from "react";
import { Link } from "wouter";
import { mutate } from "swr";
import { useUser } from "../lib/auth";
import { useConfig } from "../lib/config";
import { Button } from "../ui/Button";
import { Field, Select } from "../ui/Field";
import { toast, toastError } from "../ui/Toast";
import { TOPICS_KEY, topicsApi, type Topic } from "./data";

// A short, familiar set: the picker is a native select so it works by keyboard everywhere.
// The name's schema (and valibot with it) arrives with the first submit: the dashboard's first
// screen does not need it (docs/performance.md, "Web app").
const loadValidation = () => Promise.all([import("valibot"), import("../../src/topics/schema")]);

const EMOJI = ["📌", "💬", "💼", "🏠", "❤️", "⭐", "🚀", "🎉", "📚", "🎵", "✈️", "🛒", "💡", "🔥", "🍕", "⚽", "🐶", "🌱", "💰", "🎮"];

/** The add form's name field: where focus goes after adding, and after the last topic is deleted. */
export const TOPIC_NAME_ID = "add-topic-name";

export function AddTopicForm({ topics }: { topics: Topic[] | undefined }) {
  const { user } = useUser();
  const config = useConfig();
  const [name, setName] = useState("");
  const [emoji, setEmoji] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const premium = user?.subscriptionType === "premium";
  const limit = config?.freeTopicLimit;
  const count = topics?.length ?? 0;
  const atLimit = !premium && limit !== undefined && count >= limit;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const [v, { TopicName }] = await loadValidation();
    const parsed = v.safeParse(TopicName, name);
    if (!parsed.success) {
      setError(parsed.issues[0].message);
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      // Spec §5: emoji and name are joined with one space when an emoji is chosen.
      await topicsApi.create(emoji ? `${emoji} ${parsed.output}` : parsed.output);
      toast({ title: "Topic created successfully" });
      setName("");
      setEmoji("");
      await mutate(TOPICS_KEY);
    } catch (err) {
      toastError(err, "Failed to create topic");
    } finally {
      setBusy(false);
    }
  };

  // The field was disabled while sending, which drops focus to the body: once it is enabled
  // again focus comes back here, ready for the next name (or to fix this one).
  const wasBusy = useRef(false);
  useEffect(() => {
    if (wasBusy.current && !busy && (!document.activeElement || document.activeElement === document.body)) {
      document.getElementById(TOPIC_NAME_ID)?.focus();
    }
    wasBusy.current = busy;
  }, [busy]);

  return (
    <form className="card add-topic" onSubmit={submit} noValidate aria-label="Add topic">
      <div className="add-topic-fields">
        <div className="emoji-picker">
          <Select
            label={
              <>
                Emoji {!premium && <span className="badge badge-primary">Premium</span>}
              </>
            }
            value={emoji}
            disabled={!premium || busy}
            onChange={(e) => setEmoji(e.target.value)}
            options={[{ value: "", label: "None" }, ...EMOJI.map((x) => ({ value: x, label: x }))]}
          />
        </div>
        <Field
          id={TOPIC_NAME_ID}
          label="Topic name"
          className="grow"
          placeholder="e.g. Weekend plans"
          value={name}
          disabled={busy}
          error={error}
          onChange={(e) => setName(e.target.value)}
        />
        <Button type="submit" busy={busy} className="add-topic-submit">Add Topic</Button>
      </div>
      {!premium && limit !== undefined && (
        <p className={`hint ${atLimit ? "limit-reached" : ""}`}>
          {count} of {limit} topics on the Free plan.{" "}
          <Link href="/pricing">Upgrade to Premium</Link> for unlimited topics and emoji.
        </p>
      )}
    </form>
  );
}
