package jsonrpc

import (
	"fmt"
	"testing"
)

// TestNameCacheRecentNoMap checks that the first recentNames method names
// are cached without a map, that the map is made exactly when one more
// name comes, and that every cached name then costs no allocation.
func TestNameCacheRecentNoMap(t *testing.T) {
	var c nameCache
	quoted := func(i int) []byte { return fmt.Appendf(nil, `"method/%d"`, i) }
	for i := range recentNames {
		if got, want := c.unquote(quoted(i)), fmt.Sprintf("method/%d", i); got != want {
			t.Fatalf("unquote = %q, want %q", got, want)
		}
		if c.names != nil {
			t.Fatalf("a map was made after %d names, want none until %d", i+1, recentNames+1)
		}
	}
	if got := c.unquote(quoted(recentNames)); got != fmt.Sprintf("method/%d", recentNames) {
		t.Fatalf("unquote = %q", got)
	}
	if len(c.names) != 1 {
		t.Fatalf("the map holds %d names after %d, want 1", len(c.names), recentNames+1)
	}
	for i := range recentNames + 1 {
		b := quoted(i)
		if n := testing.AllocsPerRun(10, func() { c.unquote(b) }); n != 0 {
			t.Errorf("cached name %d: %v allocations, want 0", i, n)
		}
	}
}

// TestNameCacheBounded checks that a peer sending ever new names cannot
// grow a nameCache past maxCachedNames, and that escaped and empty names
// are unquoted but not cached.
func TestNameCacheBounded(t *testing.T) {
	var c nameCache
	for i := range 3 * maxCachedNames {
		want := fmt.Sprintf("m%d", i)
		if got := c.unquote([]byte(`"` + want + `"`)); got != want {
			t.Fatalf("unquote = %q, want %q", got, want)
		}
	}
	if got := recentNames + len(c.names); got != maxCachedNames {
		t.Errorf("%d names cached, want %d", got, maxCachedNames)
	}
	var e nameCache
	if got := e.unquote([]byte(`"a\u0062"`)); got != "ab" {
		t.Errorf("escaped name unquoted as %q, want %q", got, "ab")
	}
	if got := e.unquote([]byte(`""`)); got != "" {
		t.Errorf("empty name unquoted as %q", got)
	}
	if e.recent != [recentNames]string{} || e.names != nil {
		t.Errorf("escaped or empty names were cached: %q %v", e.recent, e.names)
	}
}
