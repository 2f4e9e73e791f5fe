package jsonrpc

// Member is one member of a JSON object: its name and its value.
type Member[T any] struct {
	Name  string
	Value T
}

// Members holds the members of an object that its type does not declare,
// in the order they were received; generated types keep them in a field
// named Extra and write them back, in that order, after the declared
// members. A name received twice is kept twice, so that the object is
// written back as it came; Get then returns the last value, as
// encoding/json would.
type Members[T any] []Member[T]

// Get returns the value of the member named name and whether there is
// one.
func (m Members[T]) Get(name string) (T, bool) {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i].Name == name {
			return m[i].Value, true
		}
	}
	var zero T
	return zero, false
}

// Set sets the member named name to v: in place when there is one (its
// last occurrence), else at the end.
func (m *Members[T]) Set(name string, v T) {
	for i := len(*m) - 1; i >= 0; i-- {
		if (*m)[i].Name == name {
			(*m)[i].Value = v
			return
		}
	}
	*m = append(*m, Member[T]{Name: name, Value: v})
}

// Delete removes every member named name, keeping the order of the
// others.
func (m *Members[T]) Delete(name string) {
	out := (*m)[:0]
	for _, x := range *m {
		if x.Name != name {
			out = append(out, x)
		}
	}
	clear((*m)[len(out):])
	*m = out
}
