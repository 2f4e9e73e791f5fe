package reliability

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// killPending is how many calls are pending on a child when it is killed.
const killPending = 20

// startPending starts n calls to the child's "hang" method on c and
// returns once the child runs them all, as its n notifications on hanging
// tell; each call's error arrives on the returned channel when it ends.
func startPending(tb testing.TB, ctx context.Context, c *jsonrpc.Conn, n int, hanging <-chan struct{}) <-chan error {
	tb.Helper()
	errs := make(chan error, n)
	for range n {
		go func() { errs <- c.Call(ctx, "hang", nil, nil) }()
	}
	for range n {
		within(tb, hanging, "the child running a hang call")
	}
	return errs
}

// BenchmarkKilledPeer measures the time from killing a child process
// with SIGKILL, while killPending calls to it are pending, to the last of
// those calls failing: ms/kill is the mean, max-ms/kill the worst kill of
// the run (the hardening issue asks for every call to fail within 100
// ms). Spawning the child and starting the calls are not timed, but take
// tens of milliseconds per op: run it with a fixed count, as in
//
//	go test ./runtime/reliability -run '^$' -bench KilledPeer -benchtime 50x
func BenchmarkKilledPeer(b *testing.B) {
	var total, worst time.Duration
	for range b.N {
		b.StopTimer()
		opts, hanging := hangingOptions()
		c, p := spawn(b, "serve", opts)
		ctx := ctxLimit(b)
		errs := startPending(b, ctx, c, killPending, hanging)
		b.StartTimer()
		killed := time.Now()
		if err := p.Kill(); err != nil {
			b.Fatal(err)
		}
		for range killPending {
			if err := within(b, errs, "a pending call failing"); !errors.Is(err, jsonrpc.ErrClosed) {
				b.Fatalf("pending call ended with %v, want jsonrpc.ErrClosed", err)
			}
		}
		took := time.Since(killed)
		b.StopTimer()
		total += took
		worst = max(worst, took)
		c.Close()
	}
	b.ReportMetric(float64(total.Microseconds())/1e3/float64(b.N), "ms/kill")
	b.ReportMetric(float64(worst.Microseconds())/1e3, "max-ms/kill")
}
