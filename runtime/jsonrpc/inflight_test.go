package jsonrpc

import "testing"

// TestInflightSetMapOnlyForTwo checks that one request in flight needs no
// map, that the map is made exactly when a second comes, that every
// request is found while in flight and not after, and that the map is
// kept once made (a connection that had concurrent requests will likely
// have them again: remaking it costs an allocation each time).
func TestInflightSetMapOnlyForTwo(t *testing.T) {
	req := func(raw string) *incoming { return &incoming{req: Request{ID: ID{raw: raw}}} }
	var s inflightSet
	a, b, c := req("1"), req(`"two"`), req("3")
	s.put(a)
	if s.more != nil || s.len() != 1 || s.get("1") != a {
		t.Fatalf("one request: map %v, len %d, get %v", s.more, s.len(), s.get("1"))
	}
	s.put(b)
	s.put(c)
	if s.more == nil || s.len() != 3 {
		t.Fatalf("three requests: map %v, len %d", s.more, s.len())
	}
	for _, in := range []*incoming{a, b, c} {
		if s.get(in.req.ID.raw) != in {
			t.Errorf("request %s not found in flight", in.req.ID.raw)
		}
	}
	s.remove(a)
	if s.get("1") != nil || s.len() != 2 {
		t.Fatalf("after removing 1: get %v, len %d", s.get("1"), s.len())
	}
	s.remove(req(`"two"`)) // another request with the same id: not removed
	if s.get(`"two"`) != b {
		t.Fatal("removing another request with the same id removed the one in flight")
	}
	s.remove(b)
	s.remove(c)
	if s.one != nil || s.len() != 0 || s.more == nil {
		t.Fatalf("emptied: one %v, len %d, map kept %v (want kept, against churn)", s.one, s.len(), s.more != nil)
	}
	s.put(c) // and it works again after
	s.put(a)
	if s.get("3") != c || s.get("1") != a || s.len() != 2 {
		t.Fatal("requests put after emptying are not found")
	}
}
