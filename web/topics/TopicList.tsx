import { useMemo } from "react";
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
} from "@dnd-kit/core";
import { SortableContext, arrayMove, sortableKeyboardCoordinates, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { mutate } from "swr";
import { Spinner } from "../ui/Spinner";
import { toastError } from "../ui/Toast";
import { sortTopics, topicLabel, topicsApi, TOPICS_KEY, type SortKey, type Topic } from "./data";
import { TopicRow } from "./TopicRow";

type Props = { topics: Topic[] | undefined; error?: Error; sort: SortKey; shared: boolean };

export function TopicList({ topics, error, sort, shared }: Props) {
  // Spec §4: drag reordering only in Personal view with Custom Order sort.
  const draggable = !shared && sort === "custom";
  const sorted = useMemo(() => (topics ? sortTopics(topics, sort) : []), [topics, sort]);
  const sensors = useSensors(
    // Spec §4: activation distance 1 px, so a plain click on the handle still focuses it.
    useSensor(PointerSensor, { activationConstraint: { distance: 1 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  const nameOf = (id: unknown) => {
    const t = sorted.find((x) => x.id === id);
    return t ? topicLabel(t) : "topic";
  };
  const position = (id: unknown) => sorted.findIndex((x) => x.id === id) + 1;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${nameOf(active.id)}. It is at position ${position(active.id)} of ${sorted.length}.`,
    onDragOver: ({ active, over }) => (over ? `${nameOf(active.id)} moved to position ${position(over.id)} of ${sorted.length}.` : `${nameOf(active.id)} is no longer over the list.`),
    onDragEnd: ({ active, over }) => (over ? `${nameOf(active.id)} dropped at position ${position(over.id)} of ${sorted.length}.` : `${nameOf(active.id)} dropped.`),
    onDragCancel: ({ active }) => `Reordering cancelled. ${nameOf(active.id)} returned to its place.`,
  };

  const onDragEnd = async ({ active, over }: DragEndEvent) => {
    // Spec §4: dropping on itself, or outside any target, does nothing.
    if (!over || active.id === over.id || !topics) return;
    const fromIndex = sorted.findIndex((x) => x.id === active.id);
    const toIndex = sorted.findIndex((x) => x.id === over.id);
    if (fromIndex < 0 || toIndex < 0) return;
    const previous = topics;
    // Optimistic: the new order shows at once; the server is told the indexes next.
    const moved = arrayMove(sorted, fromIndex, toIndex).map((t, i) => ({ ...t, order: i }));
    await mutate(TOPICS_KEY, moved, { revalidate: false });
    try {
      await topicsApi.reorder(fromIndex, toIndex);
    } catch (e) {
      await mutate(TOPICS_KEY, previous, { revalidate: false });
      toastError(e, "Failed to reorder topics");
    }
    await mutate(TOPICS_KEY);
  };

  let body;
  if (error) body = <p className="empty" role="alert">{error.message || "Could not load topics."}</p>;
  else if (!topics) body = <div className="empty"><Spinner label="Loading topics" /></div>;
  else if (!sorted.length)
    body = (
      <p className="empty">
        {shared ? "No shared topics yet. Accept an invite to see topics others share with you." : "No topics yet. Add your first topic above."}
      </p>
    );
  else
    body = (
      <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd} accessibility={{ announcements }}>
        <SortableContext items={sorted.map((t) => t.id)} strategy={verticalListSortingStrategy} disabled={!draggable}>
          <ul className="topic-list" aria-label={shared ? "Shared topics" : "Your topics"}>
            {sorted.map((t) => (
              <TopicRow key={t.id} topic={t} shared={shared} draggable={draggable} />
            ))}
          </ul>
        </SortableContext>
      </DndContext>
    );

  return <div className="topic-scroll">{body}</div>;
}
