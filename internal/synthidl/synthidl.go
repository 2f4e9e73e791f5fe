// Package synthidl writes large seeded protocols in the rpcgen IDL, to
// time the generator and to check its output on more than the shipped
// protocols.
package synthidl

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Protocol returns a protocol of types named types T0... and methods
// m0..., drawn from a generator seeded with seed: objects of three to eight
// members of mixed kinds (scalars, lists, maps, optional and nullable
// members, references to earlier types), string and integer enums, and
// unions told apart by JSON kind; requests and notifications from both
// sides.
func Protocol(seed uint64, types, methods int) []byte {
	r := rand.New(rand.NewPCG(seed, 2000))
	var s strings.Builder
	s.WriteString("protocol:\n  name: synthetic\n  version: 1.0.0\n  doc: A large generated protocol to time the generator.\n" +
		"  roles:\n    client: Starts the connection.\n    server: Answers it.\n  framing: content-length\n  timeout: 5s\ntypes:\n")
	objects := []int{}     // indices of object types, which params and results can use
	ref := func() string { // an earlier object, or a scalar before the first
		if len(objects) == 0 {
			return "string"
		}
		return fmt.Sprintf("T%d", objects[r.IntN(len(objects))])
	}
	for i := range types {
		switch k := r.IntN(20); {
		case k == 0:
			fmt.Fprintf(&s, "  T%d: \"'red%d' | 'green%d' | 'blue%d' | 'cyan%d'\"\n", i, i, i, i, i)
			continue
		case k == 1:
			fmt.Fprintf(&s, "  T%d:\n    type: enum\n    base: int32\n    doc: Synthetic enum %d.\n    values:\n", i, i)
			for v := 1; v <= 4; v++ {
				fmt.Fprintf(&s, "      - {value: %d, name: V%dx%d}\n", v, i, v)
			}
			continue
		case k == 2 && len(objects) > 0:
			fmt.Fprintf(&s, "  T%d: \"string | %s | []integer\"\n", i, ref())
			continue
		}
		fmt.Fprintf(&s, "  T%d:\n    doc: Synthetic object %d.\n    fields:\n      id: integer\n", i, i)
		for f := range 2 + r.IntN(6) {
			name := fmt.Sprintf("f%d", f)
			switch r.IntN(9) {
			case 0:
				fmt.Fprintf(&s, "      %s: {type: string, doc: Member %d of %d.}\n", name, f, i)
			case 1:
				fmt.Fprintf(&s, "      %s?: number\n", name)
			case 2:
				fmt.Fprintf(&s, "      %s: \"[]string\"\n", name)
			case 3:
				fmt.Fprintf(&s, "      %s?: \"map<string, integer>\"\n", name)
			case 4:
				fmt.Fprintf(&s, "      %s: boolean?\n", name)
			case 5:
				fmt.Fprintf(&s, "      %s?: %s\n", name, ref())
			case 6:
				fmt.Fprintf(&s, "      %s?: \"[]%s\"\n", name, ref())
			case 7:
				fmt.Fprintf(&s, "      %s: \"integer | string\"\n", name)
			default:
				fmt.Fprintf(&s, "      %s?: uint32\n", name)
			}
		}
		objects = append(objects, i)
	}
	s.WriteString("methods:\n")
	for i := range methods {
		from := "client"
		if r.IntN(2) == 1 {
			from = "server"
		}
		param := fmt.Sprintf("T%d", objects[r.IntN(len(objects))])
		if r.IntN(4) == 0 {
			fmt.Fprintf(&s, "  m%d:\n    from: %s\n    kind: notification\n    doc: Notification %d.\n    params: %s\n", i, from, i, param)
			continue
		}
		fmt.Fprintf(&s, "  m%d:\n    from: %s\n    kind: request\n    doc: Request %d.\n    params: %s\n", i, from, i, param)
		fmt.Fprintf(&s, "    result: {fields: {item: T%d, items: \"[]T%d\", ok: boolean}}\n",
			objects[r.IntN(len(objects))], objects[r.IntN(len(objects))])
	}
	return []byte(s.String())
}
