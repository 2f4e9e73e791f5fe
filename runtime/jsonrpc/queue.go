package jsonrpc

import "sync"

// workQueue runs tasks on at most limit goroutines, started on demand and
// ended when the queue is empty. Tasks wait in a bounded channel. With
// limit 1 tasks run one at a time in push order.
type workQueue[T any] struct {
	tasks chan T
	run   func(T)
	limit int
	wg    *sync.WaitGroup
	done  <-chan struct{}

	mu      sync.Mutex
	running int
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
	q.startWorker()
	return true
}

// startWorker starts a worker if fewer than limit are running.
func (q *workQueue[T]) startWorker() {
	q.mu.Lock()
	if q.running < q.limit {
		q.running++
		q.wg.Add(1)
		go q.work()
	}
	q.mu.Unlock()
}

// work runs queued tasks until the queue is empty.
func (q *workQueue[T]) work() {
	defer q.wg.Done()
	for {
		q.mu.Lock()
		select {
		case t := <-q.tasks:
			q.mu.Unlock()
			q.run(t)
		default:
			q.running--
			q.mu.Unlock()
			return
		}
	}
}
