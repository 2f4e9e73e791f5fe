package idl

import (
	"fmt"
	"slices"
	"strings"
)

// aliasCycles reports named types defined only through references to
// themselves, such as A: B and B: A, once per cycle, at its type declared
// first. Each type refers to at most one other, so one walk over the
// types finds every cycle.
func (r *resolver) aliasCycles() {
	next := func(def *TypeDef) *TypeDef {
		if t := def.Type; t != nil && t.Kind == KindRef {
			return t.Ref
		}
		return nil
	}
	index := map[*TypeDef]int{}
	for i, def := range r.p.Types {
		index[def] = i
	}
	state := map[*TypeDef]int{} // 1 on the path being walked, 2 done
	var path []*TypeDef
	for _, def := range r.p.Types {
		path = path[:0]
		d := def
		for d != nil && state[d] == 0 {
			state[d] = 1
			path = append(path, d)
			d = next(d)
		}
		if d != nil && state[d] == 1 { // the walk came back to d: a cycle
			cycle := path[slices.Index(path, d):]
			first := slices.MinFunc(cycle, func(a, b *TypeDef) int { return index[a] - index[b] })
			var chain []string
			for c := first; ; c = next(c) {
				chain = append(chain, c.Name)
				if len(chain) > 1 && c == first {
					break
				}
			}
			r.errs.add(first.Pos, "type %s is defined only in terms of itself (%s); define one of them as a real type", first.Name, arrowList(chain))
		}
		for _, p := range path {
			state[p] = 2
		}
	}
}

// maxListed bounds the items of a list quoted in a message.
const maxListed = 8

// arrowList joins steps as "a -> b -> c", leaving out the middle of long
// lists.
func arrowList(steps []string) string {
	if len(steps) <= maxListed {
		return strings.Join(steps, " -> ")
	}
	head := steps[:maxListed-2]
	return fmt.Sprintf("%s -> ... %d more ... -> %s", strings.Join(head, " -> "), len(steps)-len(head)-1, steps[len(steps)-1])
}

// requiredCycles reports objects and tuples that contain themselves
// through required, non-nullable fields or items: no finite JSON value
// could fill them.
func (r *resolver) requiredCycles() {
	type step struct {
		def   *TypeDef
		field string
	}
	state := map[*TypeDef]int{} // 1 on the stack, 2 done
	var stack []step
	at := map[*TypeDef]int{} // index in stack of the types on it
	var visit func(def *TypeDef)
	visit = func(def *TypeDef) {
		state[def] = 1
		for _, f := range requiredMembers(def.Type) {
			if f.Optional || f.Type == nil || nullableChain(f.Type) {
				continue
			}
			next := objectDef(f.Type)
			if next == nil {
				continue
			}
			if state[next] == 0 {
				at[def] = len(stack)
			}
			stack = append(stack, step{def, f.Name})
			switch state[next] {
			case 0:
				visit(next)
			case 1:
				i := len(stack) - 1
				if next != def {
					i = at[next]
				}
				// Only the steps quoted are formatted, so that long
				// cycles cost no more than short ones.
				cycle := stack[i:]
				if len(cycle) > maxListed {
					cycle = slices.Concat(cycle[:maxListed-2], cycle[len(cycle)-1:])
				}
				var parts []string
				for _, s := range cycle {
					sep := "."
					if strings.HasPrefix(s.field, "[") { // a tuple's item
						sep = ""
					}
					parts = append(parts, s.def.Name+sep+s.field)
				}
				if n := len(stack) - i; n > maxListed {
					parts = slices.Insert(parts, maxListed-2, fmt.Sprintf("... %d more ...", n-maxListed+1))
				}
				r.errs.add(f.Pos, "type %s contains itself through required fields (%s); make one of these fields optional or nullable", next.Name, strings.Join(parts, " -> "))
			}
			stack = stack[:len(stack)-1]
		}
		state[def] = 2
	}
	for _, def := range r.p.Types {
		if def.Type != nil && (def.Type.Kind == KindObject || def.Type.Kind == KindTuple) && state[def] == 0 {
			visit(def)
		}
	}
}

// requiredMembers returns the fields of an object, or the items of a
// tuple as fields named [0], [1], ...
func requiredMembers(t *Type) []*Field {
	if t.Kind != KindTuple {
		return t.Fields
	}
	var out []*Field
	for i, it := range t.Items {
		if it != nil {
			out = append(out, &Field{Name: fmt.Sprintf("[%d]", i), Type: it, Pos: it.Pos})
		}
	}
	return out
}

// objectDef returns the object or tuple type t refers to, following
// aliases.
func objectDef(t *Type) *TypeDef {
	for hops := 0; t != nil && t.Kind == KindRef && t.Ref != nil && hops < 64; hops++ {
		if t.Ref.Type != nil && (t.Ref.Type.Kind == KindObject || t.Ref.Type.Kind == KindTuple) {
			return t.Ref
		}
		t = t.Ref.Type
	}
	return nil
}
