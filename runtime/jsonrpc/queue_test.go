package jsonrpc

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWorkQueueNeverStrands pushes tasks that hold their worker until the
// round ends, mixed with quick ones, into queues with room for all of
// them. Every quick task must run while the held ones still hold: a task
// left in the channel with no free worker, while fewer than limit
// workers run, would wait for ever behind handlers that never return.
func TestWorkQueueNeverStrands(t *testing.T) {
	const (
		rounds = 2000
		held   = 20
		quick  = 20
	)
	for round := range rounds {
		var wg sync.WaitGroup
		done := make(chan struct{})
		release := make(chan struct{})
		ran := make(chan int, quick)
		q := newWorkQueue(held+quick, held+quick, func(i int) {
			if i < 0 {
				<-release
				return
			}
			runtime.Gosched()
			ran <- i
		}, &wg, done)
		for i := range held + quick {
			task := i / 2 // quick tasks numbered 0..quick-1
			if i%2 == 0 {
				task = -1
			}
			if !q.push(task) {
				t.Fatalf("round %d: push refused with the connection open", round)
			}
			if i%3 == round%3 {
				// Let workers finish and go idle between pushes.
				runtime.Gosched()
			}
		}
		seen := make(map[int]bool)
		timeout := time.After(10 * time.Second)
		for len(seen) < quick {
			select {
			case i := <-ran:
				seen[i] = true
			case <-timeout:
				t.Fatalf("round %d: %d of %d quick tasks ran while %d tasks held their workers", round, len(seen), quick, held)
			}
		}
		close(release)
		q.close()
		wg.Wait()
		close(done)
	}
}

// TestWorkQueueLimit checks that no more than limit tasks run at once and
// that limit 1 runs tasks in push order.
func TestWorkQueueLimit(t *testing.T) {
	for _, limit := range []int{1, 3} {
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			now, max int
			order    []int
		)
		done := make(chan struct{})
		q := newWorkQueue(limit, 4, func(i int) {
			mu.Lock()
			now++
			if now > max {
				max = now
			}
			order = append(order, i)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			now--
			mu.Unlock()
		}, &wg, done)
		for i := range 30 {
			q.push(i)
		}
		q.close()
		wg.Wait()
		close(done)
		if len(order) != 30 {
			t.Fatalf("limit %d: %d tasks ran, want 30", limit, len(order))
		}
		if max > limit {
			t.Errorf("limit %d: %d tasks ran at once", limit, max)
		}
		if limit == 1 {
			for i, got := range order {
				if got != i {
					t.Fatalf("limit 1: task %d ran at position %d, want push order", got, i)
				}
			}
		}
	}
}

// TestWorkQueueLingers: the last worker waits for the next task instead
// of ending, so tasks pushed one after another run on one goroutine (its
// stack already grown); the connection's end ends it.
func TestWorkQueueLingers(t *testing.T) {
	var wg sync.WaitGroup
	done := make(chan struct{})
	ran := make(chan string, 1)
	q := newWorkQueue(1, 10, func(int) {
		buf := make([]byte, 64)
		buf = buf[:runtime.Stack(buf, false)]
		ran <- strings.Fields(string(buf))[1] // "goroutine N [running]:"
	}, &wg, done)
	q.run.(*funcRunner[int]).linger = time.Hour
	q.push(1)
	first := <-ran
	q.push(2)
	if second := <-ran; second != first {
		t.Errorf("the second task ran on goroutine %s, the first on %s: the worker did not linger", second, first)
	}
	close(done)
	wg.Wait() // returns once the lingering worker saw the end
}

// TestWorkQueueCloseEndsLingerer: once nothing more will be pushed (the
// peer's end of input), a lingering worker ends at once, so waiting for
// the handlers (FinishTimeout, Close) does not wait out its linger.
func TestWorkQueueCloseEndsLingerer(t *testing.T) {
	var wg sync.WaitGroup
	done := make(chan struct{})
	defer close(done)
	ran := make(chan struct{}, 1)
	q := newWorkQueue(1, 10, func(int) { ran <- struct{}{} }, &wg, done)
	q.run.(*funcRunner[int]).linger = time.Hour
	q.push(1)
	<-ran
	q.close()
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the lingering worker did not end when the queue closed")
	}
}

// TestWorkerStartAllocations checks that starting a worker again, after
// the last one ended, allocates only the channel its linger is woken on
// (given up when the linger ends, so that an idle connection holds none):
// no closure for the go statement, no timer to linger (3 before timers
// were reused).
func TestWorkerStartAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates more")
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	defer close(done)
	ran := make(chan struct{}, 1)
	q := newWorkQueue(1, 10, func(int) { ran <- struct{}{} }, &wg, done)
	q.run.(*funcRunner[int]).linger = time.Nanosecond
	n := testing.AllocsPerRun(100, func() {
		q.push(1)
		<-ran
		wg.Wait() // the worker has lingered and ended
	})
	if n > 1 {
		t.Errorf("a worker's start, task and end allocate %v times, want at most 1", n)
	}
}
