import { lazy, Suspense, useMemo, type ReactNode } from "react";
import { Spinner } from "../ui/Spinner";
import { sortTopics, type SortKey, type Topic } from "./data";
import { TopicRow } from "./TopicRow";

// Drag reordering (and @dnd-kit with it) is fetched only when Custom Order is chosen.
const SortableTopics = lazy(async () => ({ default: (await import("./SortableTopics")).SortableTopics }));

type Props = { topics: Topic[] | undefined; error?: Error; sort: SortKey; shared: boolean };

export function TopicList({ topics, error, sort, shared }: Props) {
  // Spec §4: drag reordering only in Personal view with Custom Order sort.
  const draggable = !shared && sort === "custom";
  const sorted = useMemo(() => (topics ? sortTopics(topics, sort) : []), [topics, sort]);
  const list = (rows: ReactNode) => (
    <ul className="topic-list" aria-label={shared ? "Shared topics" : "Your topics"}>
      {rows}
    </ul>
  );
  const plain = () => list(sorted.map((t) => <TopicRow key={t.id} topic={t} shared={shared} draggable={false} />));

  let body;
  if (error) body = <p className="empty" role="alert">{error.message || "Could not load topics."}</p>;
  else if (!topics) body = <div className="empty"><Spinner label="Loading topics" /></div>;
  else if (!sorted.length)
    body = shared ? (
      <p className="empty">No shared topics yet. Accept an invite to see topics others share with you.</p>
    ) : (
      // A new user's first screen (issue 25): what a topic is and the three steps to a first thread.
      <div className="empty onboarding">
        <p className="onboarding-title">No topics yet. Add your first topic above.</p>
        <ol className="onboarding-steps">
          <li>Name a topic above (a trip, a project, a group) and press Add Topic.</li>
          <li>Open it with Start Message and add a title: a thread with numbered messages.</li>
          <li>Share Topics invites someone to see your topics with you.</li>
        </ol>
      </div>
    );
  else if (draggable)
    // While the drag code arrives the rows show as they are, without handles.
    body = (
      <Suspense fallback={plain()}>
        <SortableTopics topics={topics} sorted={sorted} list={list} />
      </Suspense>
    );
  else body = plain();

  return <div className="topic-scroll">{body}</div>;
}
