package jsonrpc

import (
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/timerpool"
)

// outQueue holds the messages waiting to be written, and knows whether a
// writer goroutine runs. A writer is started by the put that finds none
// running, and ends when it finds the queue empty, so an idle connection
// has none. The queue's memory grows with what is queued, up to max
// messages, and is given back when it empties.
type outQueue struct {
	mu    sync.Mutex
	items []queued
	// head and max are int32 so that the queue, a part of each Conn, is
	// small (see TestConnSizeClass).
	head    int32 // items[head:] are queued
	max     int32
	writing bool // a writer runs, or the final drain has taken its place
	sealed  bool // the connection ended: no new writer starts
	// room is closed when a message is taken while senders wait for room;
	// nil while none waits.
	room chan struct{}
	// idle is closed when the writer ends after seal; nil until then.
	idle chan struct{}
	// wake, while the writer lingers (see linger), gets a token when a
	// message is queued; nil otherwise.
	wake chan struct{}
}

// linger is how long a worker or writer that found nothing to do waits for
// more before it ends: long enough that a connection in use keeps its
// goroutines (and their grown stacks) from one message to the next, short
// enough that an idle connection soon holds none.
const linger = 2 * time.Millisecond

// keptQueue is the largest backing array an empty queue keeps.
const keptQueue = 16

// closedChan is a channel that is always closed.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// put queues q unless the queue is full. start reports that the caller
// must start a writer.
func (o *outQueue) put(q queued) (ok, start bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.items)-int(o.head) >= int(o.max) {
		return false, false
	}
	o.items = append(o.items, q)
	if o.wake != nil {
		select {
		case o.wake <- struct{}{}:
		default:
		}
	}
	if !o.writing && !o.sealed {
		o.writing, start = true, true
	}
	return true, start
}

// claim takes the writer's place for a sender that writes its own message
// (see Conn.writeDirect): it succeeds when no writer runs, nothing is
// queued and the connection has not ended. It adds one to wg, under the
// lock, before seal can run, so that Close waits for the sender's write.
func (o *outQueue) claim(wg *sync.WaitGroup) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.writing || o.sealed || int(o.head) < len(o.items) {
		return false
	}
	o.writing = true
	wg.Add(1)
	return true
}

// release gives up the writer's place that claim took. It reports true,
// keeping the place, when messages were queued meanwhile: the caller must
// then start a writer for them.
func (o *outQueue) release() (handOff bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if int(o.head) < len(o.items) {
		return true
	}
	o.stopLocked()
	return false
}

// wait returns a channel closed once the queue may have room.
func (o *outQueue) wait() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.items)-int(o.head) < int(o.max) {
		return closedChan
	}
	if o.room == nil {
		o.room = make(chan struct{})
	}
	return o.room
}

// take returns the next queued message, if any.
func (o *outQueue) take() (queued, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.takeLocked()
}

func (o *outQueue) takeLocked() (queued, bool) {
	if int(o.head) == len(o.items) {
		return queued{}, false
	}
	q := o.items[o.head]
	o.items[o.head] = queued{}
	o.head++
	if int(o.head) == len(o.items) {
		o.head = 0
		if cap(o.items) > keptQueue {
			o.items = nil
		} else {
			o.items = o.items[:0]
		}
	}
	if o.room != nil {
		close(o.room)
		o.room = nil
	}
	return q, true
}

// finishLater records that the writer has ended, after waiting up to
// linger for a message to be queued or the connection to end (done). It
// reports false when there is a message to write. The writer's channel
// wake is made on its first wait and kept for the next.
func (o *outQueue) finishLater(wake *chan struct{}, done <-chan struct{}) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if int(o.head) < len(o.items) {
		return false
	}
	if o.sealed {
		o.stopLocked()
		return true
	}
	if *wake == nil {
		*wake = make(chan struct{}, 1)
	}
	o.wake = *wake
	o.mu.Unlock()
	lingerFor(linger, *wake, done)
	o.mu.Lock()
	o.wake = nil
	select {
	case <-*wake: // a token put after the wait ended
	default:
	}
	if int(o.head) < len(o.items) {
		return false
	}
	o.stopLocked()
	return true
}

// lingerFor waits up to d, on a reused timer (see startTimer), for a
// token on wake or for done, and reports whether the token came.
func lingerFor(d time.Duration, wake, done <-chan struct{}) bool {
	t := timerpool.Get(d)
	defer timerpool.Put(t)
	select {
	case <-wake:
		return true
	case <-t.C:
	case <-done:
	}
	return false
}

// stop records that the writer has ended.
func (o *outQueue) stop() {
	o.mu.Lock()
	o.stopLocked()
	o.mu.Unlock()
}

func (o *outQueue) stopLocked() {
	o.writing = false
	if o.idle != nil {
		close(o.idle)
		o.idle = nil
	}
}

// seal stops new writers from starting, once the connection has ended.
// It returns a channel closed when no writer runs any more; with drain,
// start reports that the caller must start a writer to write what is
// queued.
func (o *outQueue) seal(drain bool) (idle <-chan struct{}, start bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sealed = true
	if !o.writing {
		if !drain || int(o.head) == len(o.items) {
			return closedChan, false
		}
		o.writing, start = true, true
	}
	o.idle = make(chan struct{})
	return o.idle, start
}

// len returns how many messages are queued.
func (o *outQueue) len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.items) - int(o.head)
}
