package jsonrpc

import (
	"encoding/json"
	"testing"
)

// versionByDecoding is what learnVersion did before it scanned: decode the
// result into a map, then the member into a string.
func versionByDecoding(result []byte, field string) (string, bool) {
	var members map[string]json.RawMessage
	var v string
	if json.Unmarshal(result, &members) != nil || json.Unmarshal(members[field], &v) != nil {
		return "", false
	}
	return v, true
}

var versionResults = []string{
	`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`,
	` { "capabilities" : {"protocolVersion":"nested"} , "protocolVersion" : "2025-03-26" } `,
	`{"protocolVersion":"a","protocolVersion":"b"}`,
	`{"protocolVersion":"a","protocolVersion":7}`,
	`{"protocolVersion":null}`,
	`{"protocolVersion":20250326}`,
	`{"protocolVersion":["2025"]}`,
	`{"protocol\u0056ersion":"escaped key"}`,
	`{"ProtocolVersion":"other case"}`,
	`{"protocolVersion":"caf\u00e9 \"q\" \ud800"}`,
	`{"capabilities":{}}`,
	`{}`,
	`"2025-03-26"`,
	`null`,
	`[{"protocolVersion":"x"}]`,
}

// TestVersionInSameAsDecoding: the scan finds the version decoding into a
// map found, for duplicates, null, escapes, other cases and non-objects.
func TestVersionInSameAsDecoding(t *testing.T) {
	for _, r := range versionResults {
		got, gotOK := versionIn([]byte(r), "protocolVersion")
		want, wantOK := versionByDecoding([]byte(r), "protocolVersion")
		if got != want || gotOK != wantOK {
			t.Errorf("%s: versionIn = %q, %v; decoding gives %q, %v", r, got, gotOK, want, wantOK)
		}
	}
}

// TestVersionInAllocations: reading the version of an MCP initialize
// result allocates only the version string (decoding it into a map took
// about 35 allocations per handshake on both sides).
func TestVersionInAllocations(t *testing.T) {
	result := []byte(versionResults[0])
	response := []byte(`{"jsonrpc":"2.0","id":1,"result":` + versionResults[0] + `}`)
	if n := testing.AllocsPerRun(100, func() {
		raw, _ := memberOf(response, "result")
		_, _ = versionIn(raw, "protocolVersion")
		_, _ = versionIn(result, "protocolVersion")
	}); n > 2 {
		t.Errorf("%v allocations to read the version twice, want at most 2", n)
	}
}

// FuzzVersionIn compares the scan with decoding on valid JSON.
func FuzzVersionIn(f *testing.F) {
	for _, r := range versionResults {
		f.Add(r)
	}
	f.Fuzz(func(t *testing.T, r string) {
		if !json.Valid([]byte(r)) {
			return
		}
		got, gotOK := versionIn([]byte(r), "protocolVersion")
		want, wantOK := versionByDecoding([]byte(r), "protocolVersion")
		if got != want || gotOK != wantOK {
			t.Errorf("%q: versionIn = %q, %v; decoding gives %q, %v", r, got, gotOK, want, wantOK)
		}
	})
}
