-- Repeated notices of one kind about one thing (someone added titles to your topic) collapse
-- into one unread notification that counts them (issue 21: 3,000 titles made 3,001 notices).
ALTER TABLE notifications ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
