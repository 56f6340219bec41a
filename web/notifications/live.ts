// Live updates in the web app (issue 26): one EventSource per tab on /api/events/stream, opened
// while a signed-in screen shows the header bell (NotificationBell) and shared by every screen.
// The server sends the events of the user's own data (and titles added to topics shared with
// them); here they become SWR revalidations, so counts, notifications and titles change within a
// second without polling (spec §7: no polling, no refetch on focus).
// The browser reconnects by itself and sends Last-Event-ID; the server replays what was missed,
// or says `reset` when it cannot, and then every screen reads its data again (`resync`).
// The stream names the links the screens show (useWatchedLinks): clicks of other links are not
// sent to this tab; when the shown links change it is opened again, resuming where it was.
import { useEffect, useRef } from "react";
import { mutate } from "swr";
import { EVENT_TYPES, STREAM_LINKS_MAX, type EventBody, type EventData, type EventType } from "../../src/events/schema";
import { NOTIFICATIONS_KEY } from "./data";

export const STREAM_URL = "/api/events/stream";
/** After the stream was refused (signed out, too many tabs), try again this much later. */
const REOPEN_MS = 30_000;
/** The screens' shown links changed: the stream is opened again once this long has passed with no further change. */
const REFILTER_MS = 300;

/**
 * The links the screens show (their cards, an open analytics dialog), with how many screens show
 * each. The stream names them (`?links=`), so the server sends the click summaries of those
 * links only: under a click flood over thousands of links a tab was sent every one (~1 MB/s of
 * JSON a tab, and the server wrote it to every tab). Past STREAM_LINKS_MAX: every link's.
 */
const watched = new Map<number, number>();
/** What the open stream names ("": no link; null: every link). */
let openKey: string | null = null;
/** The last event id the tab was sent: a stream opened again resumes after it (?lastEventId=). */
let lastId = "";
const linksKey = () => (watched.size > STREAM_LINKS_MAX ? null : [...watched.keys()].sort((a, b) => a - b).join(","));

type Kind = EventType | "resync";
type Handler = (e: EventBody | null) => void;
const handlers = new Map<Kind, Set<Handler>>();
let source: EventSource | null = null;
let users = 0;
let reopen: ReturnType<typeof setTimeout> | null = null;

function emit(kind: Kind, e: EventBody | null) {
  for (const h of handlers.get(kind) ?? []) h(e);
}

/** Plain SWR keys a title added to a topic may change: the topic's titles (searched or not) and topic lists. */
const topicKeys = (key: unknown) => typeof key === "string" && (/\/titles(\?|$)/.test(key) || key.startsWith("/api/topic/") || key.startsWith("/api/shared-topics") || key === "/api/topics");

/** Reads again at most every this long (the first at once, the last of a burst after it). */
const REREAD_MS = 500;
/**
 * `read` at once, and calls within REREAD_MS of the last run folded into one after it: a burst
 * of events (a bulk create clicked through, titles added by a script) is one read per screen,
 * not one per event.
 */
function coalesced(read: () => void) {
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  return () => {
    const wait = last + REREAD_MS - Date.now();
    if (wait <= 0 && !timer) {
      last = Date.now();
      return read();
    }
    timer ??= setTimeout(() => {
      timer = null;
      last = Date.now();
      read();
    }, Math.max(0, wait));
  };
}
const rereadTopics = coalesced(() => void mutate(topicKeys));
const rereadNotifications = coalesced(() => void mutate(NOTIFICATIONS_KEY));

function open() {
  if (source || users === 0 || typeof EventSource === "undefined") return;
  openKey = linksKey();
  const query = new URLSearchParams();
  if (openKey !== null) query.set("links", openKey);
  if (lastId) query.set("lastEventId", lastId);
  const s = new EventSource(`${STREAM_URL}?${query}`);
  source = s;
  let readyBefore = false;
  const seen = (m: Event) => {
    const id = (m as MessageEvent).lastEventId;
    if (id) lastId = id;
  };
  for (const type of EVENT_TYPES) {
    s.addEventListener(type, (m) => {
      seen(m);
      let body: EventBody;
      try {
        body = JSON.parse((m as MessageEvent<string>).data);
      } catch {
        return;
      }
      if (type === "title.added") rereadTopics();
      emit(type, body);
    });
  }
  s.addEventListener("notifications", rereadNotifications);
  const resync = () => {
    void mutate(() => true);
    emit("resync", null);
  };
  s.addEventListener("reset", resync);
  s.addEventListener("ready", (m) => {
    seen(m);
    // Back after a break: what the catch-up could not carry (another instance's late commit)
    // is read afresh; the first ready of a tab follows the screens' own first reads.
    if (readyBefore) resync();
    readyBefore = true;
  });
  s.onerror = () => {
    // CLOSED: the server refused the stream (401, 429); the browser will not retry by itself.
    if (s.readyState !== EventSource.CLOSED) return;
    if (source === s) source = null;
    reopen ??= setTimeout(() => {
      reopen = null;
      open();
    }, REOPEN_MS);
  };
}

function close() {
  source?.close();
  source = null;
  if (reopen) clearTimeout(reopen);
  reopen = null;
}

let refilterTimer: ReturnType<typeof setTimeout> | null = null;
/**
 * The shown links changed: once the changes settle, the stream is opened again naming them,
 * resuming after the last event the tab had, so the server replays what the new links missed
 * (its first `ready` is not a break: nothing is read again).
 */
function refilter() {
  if (refilterTimer) return;
  refilterTimer = setTimeout(() => {
    refilterTimer = null;
    if (!source || linksKey() === openKey) return;
    source.close();
    source = null;
    open();
  }, REFILTER_MS);
}

/** Names `ids` among the links whose clicks the tab's stream carries, while mounted. */
export function useWatchedLinks(ids: readonly number[]) {
  const key = ids.join(",");
  useEffect(() => {
    const mine = key ? key.split(",").map(Number) : [];
    for (const id of mine) watched.set(id, (watched.get(id) ?? 0) + 1);
    refilter();
    return () => {
      for (const id of mine) {
        const n = (watched.get(id) ?? 1) - 1;
        if (n > 0) watched.set(id, n);
        else watched.delete(id);
      }
      refilter();
    };
  }, [key]);
}

/** Keeps the tab's stream open while mounted (the header bell of a signed-in screen). */
export function useLiveStream(enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    users++;
    open();
    return () => {
      users--;
      if (users === 0) close();
    };
  }, [enabled]);
}

/**
 * Calls `handler` for each live event of the given kinds while mounted ("resync": the stream
 * missed something, read everything again). The latest handler is used, so it may close over
 * state. `only`: which events count (checked before throttling). `throttleMs`: at most one call
 * per that long (the first at once, the last of a burst after it), for handlers that read from
 * the server (a busy link's clicks arrive every batch).
 */
export function useLiveEvent(kinds: readonly Kind[], handler: Handler, opts: { only?: (e: EventBody) => boolean; throttleMs?: number } = {}) {
  const latest = useRef(handler);
  latest.current = handler;
  const only = useRef(opts.only);
  only.current = opts.only;
  const throttleMs = opts.throttleMs ?? 0;
  useEffect(() => {
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let waiting: EventBody | null | undefined;
    const h: Handler = (e) => {
      if (e && only.current && !only.current(e)) return;
      if (throttleMs <= 0) return latest.current(e);
      const wait = last + throttleMs - Date.now();
      if (wait <= 0 && !timer) {
        last = Date.now();
        return latest.current(e);
      }
      waiting = e;
      timer ??= setTimeout(() => {
        timer = null;
        last = Date.now();
        latest.current(waiting ?? null);
      }, Math.max(0, wait));
    };
    for (const k of kinds) {
      let set = handlers.get(k);
      if (!set) handlers.set(k, (set = new Set()));
      set.add(h);
    }
    return () => {
      if (timer) clearTimeout(timer);
      for (const k of kinds) handlers.get(k)?.delete(h);
    };
  }, [kinds.join(","), throttleMs]);
}

/** A click summary in a live clicks.recorded frame (README "Live updates"). */
export type ClickSummary = EventData["clicks.recorded"];
/** The links' summaries a clicks.recorded frame carries (`data.links`: a batch's, in order); none for other events. */
export function clickSummaries(e: EventBody): ClickSummary[] {
  const links = e.type === "clicks.recorded" ? (e.data as { links?: unknown }).links : undefined;
  return Array.isArray(links) ? (links as ClickSummary[]) : [];
}
