-- Every slug a title series has had, so message links copied before a rename keep working
-- (as topic_slugs does for topics). A series is its name inside a topic, so each old slug
-- points at the series' current name; a rename re-points the older entries too.
CREATE TABLE title_slugs (
  topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (topic_id, slug)
);
CREATE INDEX title_slugs_name ON title_slugs(topic_id, name);
