// The topic list with drag reordering (Custom Order only). A chunk of its own: @dnd-kit is
// ~15 KB gzipped that no other sort needs, so it is fetched when Custom Order is chosen.
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
import { SortableContext, arrayMove, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from "@dnd-kit/sortable";
import { CSS } from "@dnd-kit/utilities";
import type { ReactNode } from "react";
import { mutate } from "swr";
import { toastError } from "../ui/Toast";
import { topicLabel, topicsApi, TOPICS_KEY, type Topic } from "./data";
import { TopicRow } from "./TopicRow";

function SortableRow({ topic }: { topic: Topic }) {
  const s = useSortable({ id: topic.id });
  return (
    <TopicRow
      topic={topic}
      shared={false}
      draggable
      sortable={{
        setNodeRef: s.setNodeRef,
        setActivatorNodeRef: s.setActivatorNodeRef,
        handleProps: { ...s.attributes, ...s.listeners },
        style: { transform: CSS.Transform.toString(s.transform), transition: s.transition },
        isDragging: s.isDragging,
      }}
    />
  );
}

type Props = { topics: Topic[]; sorted: Topic[]; list: (rows: ReactNode) => ReactNode };

export function SortableTopics({ topics, sorted, list }: Props) {
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
    if (!over || active.id === over.id) return;
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

  return (
    <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd} accessibility={{ announcements }}>
      <SortableContext items={sorted.map((t) => t.id)} strategy={verticalListSortingStrategy}>
        {list(sorted.map((t) => <SortableRow key={t.id} topic={t} />))}
      </SortableContext>
    </DndContext>
  );
}
