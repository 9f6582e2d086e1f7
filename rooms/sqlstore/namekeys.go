package sqlstore

import (
	"context"
	"database/sql"

	"effectivelyonce/rooms"
)

// A member's name_key is derived data: rooms.NameKey of the name, which the unique index per room
// holds. When NameKey changes (a stricter comparison, newer Unicode data), the rows written under
// the old one would let a look-alike of a seated name in, so every store brings the stored keys in
// line with the current NameKey when it opens, before it serves anyone. Two seated names that the
// new key finds alike keep their seats: the one who joined first keeps the key, and the later one
// gets a key of its own that no name can have (its id after U+FFFF, a noncharacter that CleanName
// refuses), so nobody new can take either name.
func rekeyNames(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, room_id, name, name_key FROM members ORDER BY room_id, pos`)
	if err != nil {
		return err
	}
	type change struct{ id, room, key string }
	var changes []change
	taken := map[[2]string]bool{}
	for rows.Next() {
		var id, room, name, old string
		if err := rows.Scan(&id, &room, &name, &old); err != nil {
			rows.Close()
			return err
		}
		key := rooms.NameKey(name)
		if taken[[2]string{room, key}] {
			key = "\uffff" + id
		}
		taken[[2]string{room, key}] = true
		if key != old {
			changes = append(changes, change{id, room, key})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(changes) == 0 {
		return err
	}
	// Every changed row first moves to a key of its own, so that no row's new key meets an old
	// key that is about to change too.
	for _, c := range changes {
		if _, err := tx.ExecContext(ctx, `UPDATE members SET name_key = $3 WHERE room_id = $1 AND id = $2`, c.room, c.id, "\uffff"+c.id); err != nil {
			return err
		}
	}
	for _, c := range changes {
		if _, err := tx.ExecContext(ctx, `UPDATE members SET name_key = $3 WHERE room_id = $1 AND id = $2`, c.room, c.id, c.key); err != nil {
			return err
		}
	}
	return tx.Commit()
}
