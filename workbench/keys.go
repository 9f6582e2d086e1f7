package workbench

import (
	"fmt"

	"go.starlark.net/starlark"
)

// interner gives every distinct key (and every distinct event) a dense id, so that the world's
// tables are slices and a replayed operation compares integers. Two values are the same key when
// Starlark writes them the same way: 17 and "17" differ, (17, 1) and (17, 1) do not.
type interner struct {
	ids   map[string]int32
	texts []string
}

// maxKeyLen bounds a string key: a dedup key is an id, not a document.
const maxKeyLen = 200

func newInterner() *interner { return &interner{ids: map[string]int32{}} }

// id interns v, which must be a value a dedup table can hold: a whole number, a string, a bool or
// a tuple of those.
func (in *interner) id(v starlark.Value) (int32, error) {
	if err := keyable(v, 0); err != nil {
		return 0, err
	}
	s := v.String()
	if id, ok := in.ids[s]; ok {
		return id, nil
	}
	id := int32(len(in.texts))
	in.ids[s] = id
	in.texts = append(in.texts, s)
	return id, nil
}

// text is how the key with this id is written.
func (in *interner) text(id int32) string {
	if id < 0 || int(id) >= len(in.texts) {
		return "?"
	}
	return in.texts[id]
}

func keyable(v starlark.Value, depth int) error {
	switch v := v.(type) {
	case starlark.Bool:
		return nil
	case starlark.Int:
		if _, ok := v.Int64(); !ok {
			return fmt.Errorf("a key's numbers must fit in 64 bits")
		}
		return nil
	case starlark.String:
		if len(v) > maxKeyLen {
			return fmt.Errorf("a key may be at most %d bytes long, not %s", maxKeyLen, thousands(int64(len(v))))
		}
		return nil
	case starlark.Tuple:
		if depth > 4 {
			return fmt.Errorf("a key may nest tuples at most 4 deep")
		}
		if len(v) > 16 {
			return fmt.Errorf("a key tuple may hold at most 16 items, not %d", len(v))
		}
		for _, x := range v {
			if err := keyable(x, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("a key must be a whole number, a string, a bool or a tuple of those, not a %s", v.Type())
}
