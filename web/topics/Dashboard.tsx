import { useEffect, useState } from "react";
import { useSearch } from "wouter";
import { AppFooter, AppHeader } from "../shell/AppHeader";
import { Button } from "../ui/Button";
import { Select } from "../ui/Field";
import { ShareDialog } from "../sharing/ShareDialog";
import { AddTopicForm } from "./AddTopicForm";
import { TopicList } from "./TopicList";
import { useSharedTopics, useSharingUsers, useTopics, type SortKey, type ViewKey } from "./data";
import "./topics.css";
import { usePageTitle } from "../shell/usePageTitle";

const SORTS: { value: SortKey; label: string }[] = [
  { value: "newest", label: "Newest" },
  { value: "oldest", label: "Oldest" },
  { value: "most-clicked", label: "Most Clicked" },
  { value: "custom", label: "Custom Order" },
];
const SORT_PREF = "threadlink.topicSort";

function initialSort(): SortKey {
  const saved = localStorage.getItem(SORT_PREF);
  return SORTS.some((s) => s.value === saved) ? (saved as SortKey) : "newest";
}

/** The signed-in home (spec §2 'Dashboard'). */
export function Dashboard() {
  usePageTitle("Your topics");
  const search = useSearch();
  const [view, setView] = useState<ViewKey>(() => (new URLSearchParams(search).get("view") === "shared" ? "shared" : "personal"));
  const [sort, setSort] = useState<SortKey>(initialSort);
  const [sharing, setSharing] = useState(false);
  const own = useTopics();
  const shared = useSharedTopics(view === "shared");
  const users = useSharingUsers();
  const list = view === "shared" ? shared : own;

  useEffect(() => localStorage.setItem(SORT_PREF, sort), [sort]);

  return (
    <div className="page">
      <AppHeader />
      <main id="main" tabIndex={-1} className="container dashboard">
        <h1 className="sr-only">Your topics</h1>
        <AddTopicForm topics={own.data} />
        <section className="card topics-card" aria-label="Topics">
          <div className="topics-toolbar">
            <Select
              label="View"
              value={view}
              onChange={(e) => setView(e.target.value as ViewKey)}
              options={[
                { value: "personal", label: "Personal" },
                { value: "shared", label: `Shared (${users.data?.length ?? 0})` },
              ]}
            />
            <Select label="Sort" value={sort} onChange={(e) => setSort(e.target.value as SortKey)} options={SORTS} />
            {/* Spec §2 puts it in Shared view; it is in Personal view too, where an owner looks for it (issue 25). */}
            <Button variant="secondary" onClick={() => setSharing(true)}>Share Topics</Button>
          </div>
          {view === "personal" && sort === "custom" && (own.data?.length ?? 0) > 1 && (
            <p className="hint">Drag a topic by its handle, or focus the handle and press Space, then the arrow keys, then Space to drop.</p>
          )}
          <TopicList topics={list.data} error={list.error} sort={sort} shared={view === "shared"} />
        </section>
        <ShareDialog open={sharing} onClose={() => setSharing(false)} />
      </main>
      <AppFooter />
    </div>
  );
}
