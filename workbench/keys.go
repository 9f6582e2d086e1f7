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
	ints  map[int64]int32   // whole-number keys, the commonest, without writing them out
	pairs map[pairKey]int32 // (string or int, int) tuples: ("done", job.id), (job.id, job.attempt)
	vals  []starlark.Value  // by id; written out only when a message or a timeline needs it
}

// maxKeyLen bounds a string key: a dedup key is an id, not a document.
const maxKeyLen = 200

// pairKey is a two-item tuple whose second item is a whole number.
type pairKey struct {
	s    string
	a, b int64
	str  bool
}

func newInterner() *interner {
	return &interner{ids: map[string]int32{}, ints: map[int64]int32{}, pairs: map[pairKey]int32{}}
}

// fast interns the common shapes of key without writing them out; ok is false for other shapes.
func (in *interner) fast(v starlark.Value) (id int32, ok bool) {
	var pk pairKey
	switch v := v.(type) {
	case starlark.Int:
		n, exact := v.Int64()
		if !exact {
			return 0, false
		}
		if id, ok := in.ints[n]; ok {
			return id, true
		}
		id = in.add(v)
		in.ints[n] = id
		return id, true
	case starlark.Tuple:
		if len(v) != 2 {
			return 0, false
		}
		b, isInt := v[1].(starlark.Int)
		if !isInt {
			return 0, false
		}
		var exact bool
		if pk.b, exact = b.Int64(); !exact {
			return 0, false
		}
		switch x := v[0].(type) {
		case starlark.String:
			if len(x) > maxKeyLen {
				return 0, false
			}
			pk.s, pk.str = string(x), true
		case starlark.Int:
			if pk.a, exact = x.Int64(); !exact {
				return 0, false
			}
		default:
			return 0, false
		}
		if id, ok := in.pairs[pk]; ok {
			return id, true
		}
		id = in.add(v)
		in.pairs[pk] = id
		return id, true
	}
	return 0, false
}

// add gives v the next id. The fast shapes and the written-out ones never meet: a whole number or
// a (string or int, int) pair is written differently from every other value.
func (in *interner) add(v starlark.Value) int32 {
	in.vals = append(in.vals, v)
	return int32(len(in.vals) - 1)
}

func (in *interner) intern(v starlark.Value) int32 {
	s := v.String()
	if id, ok := in.ids[s]; ok {
		return id
	}
	id := in.add(v)
	in.ids[s] = id
	return id
}

// id interns v, which must be a value a dedup table can hold: a whole number, a string, a bool or
// a tuple of those.
func (in *interner) id(v starlark.Value) (int32, error) {
	if id, ok := in.fast(v); ok {
		return id, nil
	}
	if err := keyable(v, 0); err != nil {
		return 0, err
	}
	return in.intern(v), nil
}

// text is how the key with this id is written.
func (in *interner) text(id int32) string {
	if id < 0 || int(id) >= len(in.vals) {
		return "?"
	}
	return in.vals[id].String()
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
