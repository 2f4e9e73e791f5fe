package jsonrpc

import (
	"sync"
	"time"
)

// workQueue runs tasks on at most limit goroutines. At most max tasks
// wait; the queue's memory grows with them and is given back when it
// empties. Workers are started on demand, up to limit, and end when they
// find nothing to run, so an idle connection holds none. With limit 1
// tasks run one at a time in push order.
//
// Only one goroutine (the read loop) pushes; it calls close when it will
// push no more, and the workers end once they have run what is queued.
type workQueue[T any] struct {
	run func(T)
	// work is q.work, made once: a go statement with a method value
	// allocates, one with a func value does not.
	work  func()
	limit int
	max   int
	wg    *sync.WaitGroup
	done  <-chan struct{}

	mu      sync.Mutex
	tasks   []T
	head    int // tasks[head:] wait
	running int // workers started and not ended
	busy    int // workers running a task
	// room is closed when a task is taken while push waits for room; nil
	// while it does not wait.
	room chan struct{}
	// lingerer: the last worker waits up to linger for a task before it
	// ends; wake gets a token when one is pushed meanwhile.
	lingerer bool
	wake     chan struct{}
	linger   time.Duration // how long the last worker lingers
	closed   bool          // nothing more will be pushed: no worker lingers
}

func newWorkQueue[T any](limit, queued int, run func(T), wg *sync.WaitGroup, done <-chan struct{}) *workQueue[T] {
	q := &workQueue[T]{run: run, limit: limit, max: queued, wg: wg, done: done, linger: linger}
	q.work = q.serve
	return q
}

// push queues t, waiting while the queue is full (backpressure). It
// reports false when the connection ended before t could be queued.
func (q *workQueue[T]) push(t T) bool {
	q.mu.Lock()
	for len(q.tasks)-q.head >= q.max {
		if q.room == nil {
			q.room = make(chan struct{})
		}
		room := q.room
		q.mu.Unlock()
		select {
		case <-room:
		case <-q.done:
			return false
		}
		q.mu.Lock()
	}
	q.tasks = append(q.tasks, t)
	if q.lingerer {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
	// Start a worker when the waiting tasks outnumber the workers free
	// to take one.
	if q.running < q.limit && len(q.tasks)-q.head > q.running-q.busy {
		q.running++
		q.wg.Add(1)
		go q.work()
	}
	q.mu.Unlock()
	return true
}

// close tells the workers that nothing more will be pushed: they end once
// they have run what is queued, and a lingering worker ends at once (those
// waiting for the handlers to finish do not wait for it).
func (q *workQueue[T]) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	if q.lingerer {
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// idle reports whether no task runs or waits (a worker may still linger):
// once the queue is closed, every task pushed has run.
func (q *workQueue[T]) idle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.busy == 0 && q.head == len(q.tasks)
}

// len returns how many tasks wait for a worker.
func (q *workQueue[T]) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.tasks) - q.head
}

// serve runs tasks until none waits; the last worker lingers first.
func (q *workQueue[T]) serve() {
	defer q.wg.Done()
	var t *time.Timer // made the first time the worker lingers
	q.mu.Lock()
	for {
		q.runQueued()
		if q.running > 1 || q.lingerer || q.closed || !q.await(&t) {
			break
		}
	}
	q.running--
	q.mu.Unlock()
}

// runQueued runs tasks until none waits; q.mu is held but while a task
// runs.
func (q *workQueue[T]) runQueued() {
	for q.head < len(q.tasks) {
		t := q.tasks[q.head]
		var zero T
		q.tasks[q.head] = zero
		q.head++
		if q.head == len(q.tasks) {
			q.head = 0
			if cap(q.tasks) > keptQueue {
				q.tasks = nil
			} else {
				q.tasks = q.tasks[:0]
			}
		}
		if q.room != nil {
			close(q.room)
			q.room = nil
		}
		q.busy++
		q.mu.Unlock()
		q.run(t)
		q.mu.Lock()
		q.busy--
	}
}

// await waits, with q.mu held but while it waits, up to linger on the
// worker's timer t for a task to be pushed, and reports whether one was
// (false: the time passed or the connection ended).
func (q *workQueue[T]) await(t **time.Timer) bool {
	if q.wake == nil {
		q.wake = make(chan struct{}, 1)
	}
	q.lingerer = true
	wake := q.wake
	q.mu.Unlock()
	woken := lingerFor(t, q.linger, wake, q.done)
	q.mu.Lock()
	q.lingerer = false
	select {
	case <-wake: // a token put after the wait ended
	default:
	}
	if q.head < len(q.tasks) {
		return true
	}
	if !woken || q.closed {
		q.wake = nil // an idle connection holds none
	}
	return woken && !q.closed
}
