package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// decodeLines decodes each line of out as a record.
func decodeLines(t *testing.T, out string) []record {
	t.Helper()
	var recs []record
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestRunJSON checks that -json writes one JSON record per server and
// mode, with the run's context and the mode's measurements, for cmd/report.
func TestRunJSON(t *testing.T) {
	var out bytes.Buffer
	if err := run(testContext(t), []string{"throughput", "-json", "-calls", "100", "-conns", "2", "-commit", "abc1234"}, &out); err != nil {
		t.Fatal(err)
	}
	recs := decodeLines(t, out.String())
	if len(recs) != 2 || recs[0].Server != implRPCGen || recs[1].Server != implMinimal {
		t.Fatalf("throughput records %+v, want rpcgen then minimal", recs)
	}
	for _, r := range recs {
		if r.Mode != "throughput" || r.Calls != 100 || r.Conns != 2 || r.Errors != 0 || r.Rate <= 0 ||
			r.Latency == nil || r.Latency.P50 <= 0 || r.Latency.P99 < r.Latency.P50 || r.Latency.P999 < r.Latency.P99 ||
			r.Run.Commit != "abc1234" || r.Run.Cores <= 0 || r.Run.Go == "" || r.Run.OSArch == "" || r.Run.Date == "" {
			t.Errorf("throughput record %+v", r)
		}
	}

	out.Reset()
	if err := run(testContext(t), []string{"idle", "-json", "-levels", "3,6", "-memprofilerate", "512"}, &out); err != nil {
		t.Fatal(err)
	}
	recs = decodeLines(t, out.String())
	if len(recs) != 1 || recs[0].Mode != "idle" || recs[0].Conns != 6 || len(recs[0].Levels) != 2 {
		t.Fatalf("idle records %+v, want one for rpcgen with levels 3 and 6", recs)
	}
	if lv := recs[0].Levels[1]; lv.Conns != 6 || lv.RSS == 0 || lv.RSSFreed == 0 || lv.HeapPerConn <= 0 || lv.LivePerConn <= 0 || lv.GoroutinesPerConn < 1 {
		t.Errorf("idle level %+v", lv)
	}
	if len(recs[0].HeapSites) == 0 || len(recs[0].Waiting) == 0 || recs[0].BaseRSS == 0 || recs[0].BaseRSSFreed == 0 || recs[0].BaseLive == 0 {
		t.Errorf("idle record lacks heap sites, waiting goroutines or its base: %+v", recs[0])
	}

	out.Reset()
	if err := run(testContext(t), []string{"scale", "-json", "-conns", "4", "-interval", "50ms", "-duration", "300ms", "-sample", "100ms"}, &out); err != nil {
		t.Fatal(err)
	}
	recs = decodeLines(t, out.String())
	if len(recs) != 1 || recs[0].Mode != "scale" {
		t.Fatalf("scale records %+v, want one", recs)
	}
	r := recs[0]
	if r.Conns != 4 || r.Calls != 24 || r.Errors != 0 || r.IntervalS != 0.05 || r.DurationS != 0.3 || r.Offered != 80 ||
		r.Latency == nil || r.LateBy == nil || len(r.Samples) == 0 || r.Samples[0].RSS == 0 || r.Samples[0].Goroutines == 0 {
		t.Errorf("scale record %+v", r)
	}
}
