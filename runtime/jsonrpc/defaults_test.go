package jsonrpc

import "testing"

// TestDefaultsAllocateNothing: filling in the defaults of a connection's
// options allocates nothing (a Logger was made per connection).
func TestDefaultsAllocateNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = Options{}.withDefaults() }); n != 0 {
		t.Errorf("Options.withDefaults: %v allocations, want none", n)
	}
}
