package main

import (
	"context"
	"testing"

	"github.com/rpcgen/rpcgen/generated/supex"
)

// Ping answers with one value made once: no allocation per call, the
// demo's part of the garbage a busy connection makes.
func TestPingAllocatesNothing(t *testing.T) {
	s := &session{}
	res, err := s.Ping(context.Background())
	if err != nil || res.Status != "ok" || res.Version != version {
		t.Fatalf("Ping: %+v, %v", res, err)
	}
	if n := testing.AllocsPerRun(100, func() { pinged, _ = s.Ping(context.Background()) }); n != 0 {
		t.Errorf("Ping: %.0f allocations per call, want 0", n)
	}
}

// pinged keeps Ping's result, so that it escapes as when the connection
// encodes it.
var pinged *supex.PingResult
