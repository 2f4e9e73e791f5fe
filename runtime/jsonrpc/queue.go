package jsonrpc

import (
	"math"
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
	run taskRunner[T]
	// work is q.serve, made by the first worker's start and kept: a go
	// statement with a method value allocates, one with a func value
	// does not.
	work func()

	mu    sync.Mutex
	tasks []T
	// first holds tasks while one at a time waits (the usual case), so
	// that a queue used once holds no allocation of its own.
	first [1]T
	// room is closed when a task is taken while push waits for room; nil
	// while it does not wait.
	room chan struct{}
	// wake gets a token when a task is pushed while the last worker
	// lingers (waits up to run's linger for a task before it ends).
	wake chan struct{}
	// The counts are int32 so that the queue, a part of each Conn, is
	// small (see TestConnSizeClass).
	limit   int32
	max     int32
	head    int32 // tasks[head:] wait
	running int32 // workers started and not ended
	busy    int32 // workers running a task
	// lingerer: the last worker is lingering.
	lingerer bool
	closed   bool // nothing more will be pushed: no worker lingers
}

// taskRunner runs a queue's tasks and says what the queue's workers are
// counted in, when the connection ends and how long the last worker
// lingers. A Conn's queues have the Conn itself as their runner
// (requestRunner, noteRunner): no closure and no copy of these is kept
// per queue.
type taskRunner[T any] interface {
	runTask(T)
	workers() *sync.WaitGroup
	ended() <-chan struct{}
	lingerTime() time.Duration
}

// funcRunner runs tasks with a function.
type funcRunner[T any] struct {
	f      func(T)
	wg     *sync.WaitGroup
	done   <-chan struct{}
	linger time.Duration
}

func (r *funcRunner[T]) runTask(t T)               { r.f(t) }
func (r *funcRunner[T]) workers() *sync.WaitGroup  { return r.wg }
func (r *funcRunner[T]) ended() <-chan struct{}    { return r.done }
func (r *funcRunner[T]) lingerTime() time.Duration { return r.linger }

// newWorkQueue returns a queue running tasks with run, its workers
// counted in wg, until done is closed.
func newWorkQueue[T any](limit, queued int, run func(T), wg *sync.WaitGroup, done <-chan struct{}) *workQueue[T] {
	q := new(workQueue[T])
	q.init(limit, queued, &funcRunner[T]{f: run, wg: wg, done: done, linger: linger})
	return q
}

// init prepares a zero queue to run at most limit tasks at once with run,
// with at most queued tasks waiting.
func (q *workQueue[T]) init(limit, queued int, run taskRunner[T]) {
	q.run = run
	q.limit, q.max = int32(min(limit, math.MaxInt32)), int32(min(queued, math.MaxInt32))
}

// push queues t, waiting while the queue is full (backpressure). It
// reports false when the connection ended before t could be queued.
func (q *workQueue[T]) push(t T) bool {
	q.mu.Lock()
	for int32(len(q.tasks))-q.head >= q.max {
		if q.room == nil {
			q.room = make(chan struct{})
		}
		room := q.room
		q.mu.Unlock()
		select {
		case <-room:
		case <-q.run.ended():
			return false
		}
		q.mu.Lock()
	}
	if q.tasks == nil {
		q.tasks = q.first[:0]
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
	if q.running < q.limit && int32(len(q.tasks))-q.head > q.running-q.busy {
		q.running++
		q.run.workers().Add(1)
		if q.work == nil {
			q.work = q.serve
		}
		go q.work()
	}
	q.mu.Unlock()
	return true
}

// close tells the workers that nothing more will be pushed (again is
// harmless): they end once
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
	return q.busy == 0 && int(q.head) == len(q.tasks)
}

// len returns how many tasks wait for a worker.
func (q *workQueue[T]) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.tasks) - int(q.head)
}

// serve runs tasks until none waits; the last worker lingers first.
func (q *workQueue[T]) serve() {
	defer q.run.workers().Done()
	q.mu.Lock()
	for {
		q.runQueued()
		if q.running > 1 || q.lingerer || q.closed || !q.await() {
			break
		}
	}
	q.running--
	q.mu.Unlock()
}

// runQueued runs tasks until none waits; q.mu is held but while a task
// runs.
func (q *workQueue[T]) runQueued() {
	for int(q.head) < len(q.tasks) {
		t := q.tasks[q.head]
		var zero T
		q.tasks[q.head] = zero
		q.head++
		if int(q.head) == len(q.tasks) {
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
		q.run.runTask(t)
		q.mu.Lock()
		q.busy--
	}
}

// await waits, with q.mu held but while it waits, up to the runner's
// linger for a task to be pushed, and reports whether one was (false: the
// time passed or the connection ended).
func (q *workQueue[T]) await() bool {
	if q.wake == nil {
		q.wake = make(chan struct{}, 1)
	}
	q.lingerer = true
	wake := q.wake
	q.mu.Unlock()
	woken := lingerFor(q.run.lingerTime(), wake, q.run.ended())
	q.mu.Lock()
	q.lingerer = false
	select {
	case <-wake: // a token put after the wait ended
	default:
	}
	if int(q.head) < len(q.tasks) {
		return true
	}
	if !woken || q.closed {
		q.wake = nil // an idle connection holds none
	}
	return woken && !q.closed
}
