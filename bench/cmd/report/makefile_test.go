package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakefileInStep checks that make bench's benchstat columns name every
// implementation the report shows, and that its default count is the one
// the report calls a full run.
func TestMakefileInStep(t *testing.T) {
	mk, err := os.ReadFile("../../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^BENCHCOLS\s*:=\s*/impl@\(([^)]*)\)`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no BENCHCOLS := /impl@(...) in the Makefile")
	}
	cols := strings.Fields(string(m[1]))
	if len(cols) == 0 || cols[0] != "rpcgen" {
		t.Errorf("BENCHCOLS %v: want rpcgen first, the base of benchstat's comparisons", cols)
	}
	for _, im := range slices.Concat(columns, mcpSDKs) {
		if !slices.Contains(cols, im) {
			t.Errorf("BENCHCOLS %v lacks %s", cols, im)
		}
	}
	c := regexp.MustCompile(`(?m)^BENCHCOUNT\s*\?=\s*(\d+)`).FindSubmatch(mk)
	if c == nil || string(c[1]) != "6" || fullRuns != 6 {
		t.Errorf("the Makefile's BENCHCOUNT default %q and the report's fullRuns %d differ, or are not 6", c, fullRuns)
	}
}
