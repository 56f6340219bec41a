// The notifications API's response shapes, shared with the web app (which may import only
// schema.ts files and src/shared/ from the server).

/** A notification as GET /api/notifications lists it. */
export type Notification = {
  id: number;
  kind: string;
  message: string;
  link: string | null;
  read: boolean;
  readAt: string | null;
  createdAt: string;
};
