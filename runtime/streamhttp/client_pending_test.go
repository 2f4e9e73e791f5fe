package streamhttp

import (
	"slices"
	"testing"
)

// pendingOf returns the set of ids.
func pendingOf(ids ...string) *pendingIDs {
	p := new(pendingIDs)
	for _, id := range ids {
		p.add([]byte(id))
	}
	return p
}

// TestPendingIDs: the set holds each id once, inline or in its map, and
// every operation sees both.
func TestPendingIDs(t *testing.T) {
	p := pendingOf("1", `"a"`, "1", "2", `"a"`)
	if p.len() != 3 {
		t.Fatalf("len %d, want 3: %+v", p.len(), p)
	}
	p.remove([]byte("1"))
	p.add([]byte("2")) // already there, in the map
	if p.len() != 2 {
		t.Fatalf("len %d after removing 1 and adding 2 again, want 2: %+v", p.len(), p)
	}
	if n := p.retain(map[string]bool{"2": true, "1": true}); n != 1 {
		t.Fatalf("retain left %d, want 1: %+v", n, p)
	}
	var got []string
	for id := p.pop(); id != nil; id = p.pop() {
		got = append(got, string(id))
	}
	if !slices.Equal(got, []string{"2"}) || p.len() != 0 {
		t.Errorf("popped %q, left %d", got, p.len())
	}
	var none *pendingIDs
	none.remove([]byte("1"))
	if none.len() != 0 || none.pop() != nil || none.retain(nil) != 0 {
		t.Error("a nil set is not empty")
	}
}

// TestPendingOneAllocatesNothing: noting and removing the one request of
// a POST costs no allocation (a map of one cost about 3).
func TestPendingOneAllocatesNothing(t *testing.T) {
	id, awaited := []byte("12"), map[string]bool{"12": true}
	if n := testing.AllocsPerRun(100, func() {
		var p pendingIDs
		p.add(id)
		if p.retain(awaited) != 1 {
			t.Fatal("lost the id")
		}
		p.remove(id)
		if p.len() != 0 {
			t.Fatal("the id stayed")
		}
	}); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
