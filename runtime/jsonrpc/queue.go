package jsonrpc

import (
	"sync"
	"sync/atomic"
)

// workQueue runs tasks on at most limit goroutines. Tasks wait in a
// bounded channel. Workers are started on demand, up to limit, and then
// stay for the life of the queue: a goroutine that has already grown its
// stack for a handler costs far less to wake than a new one. With limit
// 1 tasks run one at a time in push order.
//
// Only one goroutine (the read loop) pushes; it calls close when it will
// push no more, and the workers end once they have run what is queued.
type workQueue[T any] struct {
	tasks chan T
	run   func(T)
	limit int
	wg    *sync.WaitGroup
	done  <-chan struct{}

	// unserved is the number of tasks pushed and not yet taken by a
	// worker, minus the number of workers free to take one (started or
	// finished with a task, and not yet holding another). Taking a task
	// lowers both counts, so only a push (+1), a new worker (-1) and a
	// worker finishing a task (-1) change it. While it is positive a
	// queued task has no free worker, and push starts one unless limit
	// workers already run.
	unserved atomic.Int64

	mu      sync.Mutex // guards running
	running int        // workers started
}

func newWorkQueue[T any](limit, queued int, run func(T), wg *sync.WaitGroup, done <-chan struct{}) *workQueue[T] {
	return &workQueue[T]{tasks: make(chan T, queued), run: run, limit: limit, wg: wg, done: done}
}

// push queues t, waiting while the queue is full (backpressure). It
// reports false when the connection ended before t could be queued.
func (q *workQueue[T]) push(t T) bool {
	if q.unserved.Add(1) > 0 {
		q.mu.Lock()
		if q.running < q.limit {
			q.running++
			q.unserved.Add(-1)
			q.wg.Add(1)
			go q.work()
		}
		q.mu.Unlock()
	}
	select {
	case q.tasks <- t:
		return true
	case <-q.done:
		q.unserved.Add(-1)
		return false
	}
}

// close tells the workers that nothing more will be pushed: they end
// after running what is queued.
func (q *workQueue[T]) close() { close(q.tasks) }

// work runs tasks until the queue is closed and empty.
func (q *workQueue[T]) work() {
	defer q.wg.Done()
	for t := range q.tasks {
		q.run(t)
		q.unserved.Add(-1)
	}
}
