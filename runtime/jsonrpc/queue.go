package jsonrpc

import "sync"

// workQueue runs tasks on at most limit goroutines. Tasks wait in a
// bounded channel. A task pushed while no worker waits for one starts a
// new worker (up to limit), and workers then stay for the life of the
// queue: a
// goroutine that has already grown its stack for a handler costs far less
// to wake than a new one. With limit 1 tasks run one at a time in push
// order.
//
// Only one goroutine (the read loop) pushes; it calls close when it will
// push no more, and the workers end once they have run what is queued.
type workQueue[T any] struct {
	tasks chan T
	run   func(T)
	limit int
	wg    *sync.WaitGroup
	done  <-chan struct{}

	mu      sync.Mutex
	running int // workers started
	// idle counts workers waiting for a task that no push has claimed
	// yet. It may fall below the true number (a busy worker can take a
	// task meant for a waiting one), which at worst starts a worker too
	// many; it never exceeds it, so a task never waits while fewer than
	// limit workers could run it.
	idle int
}

func newWorkQueue[T any](limit, queued int, run func(T), wg *sync.WaitGroup, done <-chan struct{}) *workQueue[T] {
	return &workQueue[T]{tasks: make(chan T, queued), run: run, limit: limit, wg: wg, done: done}
}

// push queues t, waiting while the queue is full (backpressure). It
// reports false when the connection ended before t could be queued.
func (q *workQueue[T]) push(t T) bool {
	select {
	case q.tasks <- t:
	case <-q.done:
		return false
	}
	q.mu.Lock()
	if q.idle > 0 {
		q.idle-- // a waiting worker will take it
	} else if q.running < q.limit {
		q.running++
		q.wg.Add(1)
		go q.work()
	}
	q.mu.Unlock()
	return true
}

// close tells the workers that nothing more will be pushed: they end
// after running what is queued.
func (q *workQueue[T]) close() { close(q.tasks) }

// work runs tasks until the queue is closed and empty.
func (q *workQueue[T]) work() {
	defer q.wg.Done()
	for {
		select {
		case t, ok := <-q.tasks:
			if !ok {
				return
			}
			q.run(t)
			continue
		default:
		}
		q.mu.Lock()
		q.idle++
		q.mu.Unlock()
		t, ok := <-q.tasks
		if !ok {
			return
		}
		q.run(t)
	}
}
