import { mutate } from "swr";
import { api } from "../lib/api";
import { SHARED_TOPICS_KEY, SHARING_USERS_KEY } from "../topics/data";

import type { Invite, InviteInfo } from "../../src/invites/schema";

export type { Invite, InviteInfo };

/** Spec §9: the copied invite link is {origin}/invite/{code}. */
export const inviteLink = (code: string) => `${location.origin}/invite/${code}`;

/** Accepts a bare code or a pasted invite link. */
export function codeFrom(input: string) {
  const s = input.trim();
  const m = s.match(/\/invite\/([^/?#\s]+)/);
  return m ? m[1]! : s;
}

export async function createInvite() {
  const invite = await api<Invite>("/api/invites", { method: "POST" });
  // Spec §4: after an invite is created, the sharing-users list is refreshed.
  void mutate(SHARING_USERS_KEY);
  return invite;
}

export async function acceptInvite(code: string) {
  const r = await api<{ ok: true; owner: { id: number; username: string } }>(`/api/invites/${encodeURIComponent(code)}/accept`, { method: "POST" });
  // Spec §4: after acceptance, shared topics and sharing users are refreshed.
  await Promise.all([mutate(SHARED_TOPICS_KEY), mutate(SHARING_USERS_KEY)]);
  return r;
}
