-- Saved QR styles (issue 25): a user's named looks for QR codes (colours, dot and corner
-- shapes, frame text). The drawing happens in the browser; only the choices are kept.
CREATE TABLE qr_styles (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  foreground TEXT NOT NULL,
  background TEXT NOT NULL,
  dots TEXT NOT NULL CHECK (dots IN ('square', 'rounded', 'dots')),
  corners TEXT NOT NULL CHECK (corners IN ('square', 'rounded', 'dots')),
  frame_text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- One name per user: picking a style by name must be unambiguous.
  UNIQUE (user_id, name)
);
