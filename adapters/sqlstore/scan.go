package sqlstore

import (
	"fmt"
	"time"
)

// Time scans a timestamp column as either database answers it: pgx decodes
// PostgreSQL's binary timestamp into a time.Time, SQLite answers the text bun
// wrote ("2006-01-02 15:04:05.999999-07:00"). A hot read that scans its rows
// itself, with no model, uses it where bun's scanner would convert through
// reflection. NULL is the zero time.
type Time struct{ time.Time }

// sqliteTime is how bun's SQLite dialect writes a time.
const sqliteTime = "2006-01-02 15:04:05.999999999-07:00"

// Scan implements sql.Scanner.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		t.Time = v.UTC()
		return nil
	case nil:
		t.Time = time.Time{}
		return nil
	case []byte:
		return t.parse(string(v))
	case string:
		return t.parse(v)
	}
	return fmt.Errorf("sqlstore: cannot scan %T into a time", src)
}

func (t *Time) parse(s string) error {
	v, err := time.Parse(sqliteTime, s)
	if err != nil {
		if v, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return fmt.Errorf("sqlstore: %q is not a time", s)
		}
	}
	t.Time = v.UTC()
	return nil
}
