-- Tags on links (issue 23): a user's own labels, shared by both trackers, several per link.
-- name_key is the name lower-cased: "Sale" and "sale" are one tag.
CREATE TABLE tags (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  color TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (user_id, name_key)
);
CREATE TABLE link_tags (
  link_id INTEGER NOT NULL REFERENCES short_links(id) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (link_id, tag_id)
);
-- A tag's links (the list's filter, a tag's analytics, deleting a tag).
CREATE INDEX link_tags_tag ON link_tags(tag_id, link_id);
