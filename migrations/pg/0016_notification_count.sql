-- Twin of migrations/0016_notification_count.sql: one unread notification counts repeated notices.
ALTER TABLE notifications ADD COLUMN count integer NOT NULL DEFAULT 1;
