// Package tasks is the MCP task store the example server and client share:
// requests run as tasks (tasks/get, tasks/list, tasks/cancel, tasks/result).
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/internal/ptr"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// defaultTTL is how long a task is kept when the requester asks for no TTL.
const defaultTTL = int64(10 * time.Minute / time.Millisecond)

// pollInterval is the tasks/get interval suggested to requesters.
const pollInterval = int64(50)

// The defaults of [Limits].
const (
	DefaultMaxTasks = 64
	DefaultMaxTTL   = time.Hour
)

// Limits bound what a Store keeps for its peer, so that a peer cannot make
// it grow with the task requests it sends.
type Limits struct {
	// MaxTasks is the most tasks kept at once, working or final, until
	// their TTL ends; past it a new task is refused with -32603.
	// 0 means DefaultMaxTasks.
	MaxTasks int
	// MaxTTL is the longest TTL granted: a longer one asked for is
	// shortened to it (the task reports the TTL granted). 0 means
	// DefaultMaxTTL.
	MaxTTL time.Duration
}

// Store keeps the tasks this side runs for its peer (MCP tasks).
type Store struct {
	limits Limits
	mu     sync.Mutex
	tasks  map[string]*task
	wg     sync.WaitGroup
}

// task is one task and, once final, its outcome.
type task struct {
	info    mcp.Task
	expires time.Time
	done    chan struct{}
	cancel  context.CancelFunc
	notify  func(mcp.Task)
	inputs  chan *input // requests to the requestor, waiting for its tasks/result
	asking  int         // Input calls under way
	result  json.RawMessage
	err     error
}

// input is a request the task makes of its requestor: ask runs it on the
// connection of a tasks/result request, and its outcome goes to done.
type input struct {
	ask  func(context.Context) error
	done chan outcome
}

// outcome is how an input went: its error, and whether it failed because
// the tasks/result request delivering it ended first (the requestor
// cancelled it or went away), in which case the next one asks again.
type outcome struct {
	err       error
	abandoned bool
}

// taskKey is the context key under which Start passes the task to fn.
type taskKey struct{}

// NewStore returns an empty task store bounded by limits.
func NewStore(limits Limits) *Store {
	if limits.MaxTasks <= 0 {
		limits.MaxTasks = DefaultMaxTasks
	}
	if limits.MaxTTL <= 0 {
		limits.MaxTTL = DefaultMaxTTL
	}
	return &Store{limits: limits, tasks: map[string]*task{}}
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

// Start runs fn as a new task and returns its state. notify, unless nil,
// is told of every later change of state. When the store already holds
// [Limits.MaxTasks] live tasks it runs nothing and returns a -32603 error.
func (s *Store) Start(meta *mcp.TaskMetadata, notify func(mcp.Task), fn func(context.Context) (any, error)) (mcp.Task, error) {
	ttl := defaultTTL
	if meta != nil && meta.TTL != nil && *meta.TTL > 0 {
		ttl = *meta.TTL
	}
	ttl = min(ttl, s.limits.MaxTTL.Milliseconds())
	var b [16]byte
	_, _ = rand.Read(b[:])
	ctx, cancel := context.WithCancel(context.Background())
	t := &task{
		info: mcp.Task{
			TaskID: hex.EncodeToString(b[:]), Status: mcp.TaskStatusWorking,
			CreatedAt: now(), LastUpdatedAt: now(), TTL: &ttl, PollInterval: ptr.To(pollInterval),
		},
		expires: time.Now().Add(time.Duration(ttl) * time.Millisecond),
		done:    make(chan struct{}),
		cancel:  cancel,
		notify:  notify,
		inputs:  make(chan *input),
	}
	ctx = context.WithValue(ctx, taskKey{}, t)
	s.mu.Lock()
	if s.full() {
		s.mu.Unlock()
		cancel()
		return mcp.Task{}, jsonrpc.NewError(jsonrpc.CodeInternalError,
			fmt.Sprintf("Too many tasks: this session keeps at most %d; cancel one or wait until one expires", s.limits.MaxTasks),
			map[string]int{"maxTasks": s.limits.MaxTasks})
	}
	s.tasks[t.info.TaskID] = t
	info := t.info
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		v, err := fn(ctx)
		s.finish(t, v, err)
	}()
	return info, nil
}

// full drops the expired tasks and reports whether the store still holds
// Limits.MaxTasks of them; the caller holds s.mu.
func (s *Store) full() bool {
	if len(s.tasks) < s.limits.MaxTasks {
		return false
	}
	now := time.Now()
	for id, t := range s.tasks {
		if now.After(t.expires) {
			delete(s.tasks, id)
		}
	}
	return len(s.tasks) >= s.limits.MaxTasks
}

// finish records the outcome of t unless it was cancelled first.
func (s *Store) finish(t *task, v any, err error) {
	s.mu.Lock()
	if t.info.Status != mcp.TaskStatusWorking && t.info.Status != mcp.TaskStatusInputRequired {
		s.mu.Unlock()
		return
	}
	t.info.Status = mcp.TaskStatusCompleted
	if err != nil {
		t.err = err
		t.info.Status = mcp.TaskStatusFailed
		t.info.StatusMessage = err.Error()
	} else if t.result, t.err = json.Marshal(v); t.err != nil {
		t.info.Status = mcp.TaskStatusFailed
	} else if r, ok := v.(*mcp.CallToolResult); ok && r.IsError {
		t.info.Status = mcp.TaskStatusFailed
	}
	t.info.LastUpdatedAt = now()
	info := t.info
	close(t.done)
	s.mu.Unlock()
	if t.notify != nil {
		t.notify(info)
	}
}

// Input makes a request of the requestor on behalf of the task whose fn
// got ctx, the way MCP tasks do it: the task moves to input_required and
// ask waits until the requestor calls tasks/result, then runs with the
// context of that tasks/result request, so that it goes out on the same
// connection and, over HTTP, on the same response stream. When that
// tasks/result ends before ask has its answer, the next tasks/result asks
// again. The task returns to working once ask is done. Outside a task,
// Input runs ask at once with ctx.
func (s *Store) Input(ctx context.Context, ask func(context.Context) error) error {
	t, ok := ctx.Value(taskKey{}).(*task)
	if !ok {
		return ask(ctx)
	}
	s.setAsking(t, +1)
	defer s.setAsking(t, -1)
	for {
		in := &input{ask: ask, done: make(chan outcome, 1)}
		select {
		case t.inputs <- in:
		case <-ctx.Done():
			return fmt.Errorf("waiting for tasks/result to deliver a request: %w", ctx.Err())
		}
		select {
		case out := <-in.done:
			if !out.abandoned {
				return out.err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// ID returns the id of the task whose fn got ctx, if any.
func ID(ctx context.Context) (string, bool) {
	t, ok := ctx.Value(taskKey{}).(*task)
	if !ok {
		return "", false
	}
	return t.info.TaskID, true
}

// setAsking counts an Input call in or out, moving t between working and
// input_required and telling the requestor.
func (s *Store) setAsking(t *task, delta int) {
	s.mu.Lock()
	t.asking += delta
	want := mcp.TaskStatusWorking
	if t.asking > 0 {
		want = mcp.TaskStatusInputRequired
	}
	if t.info.Status == want || (t.info.Status != mcp.TaskStatusWorking && t.info.Status != mcp.TaskStatusInputRequired) {
		s.mu.Unlock()
		return
	}
	t.info.Status = want
	t.info.LastUpdatedAt = now()
	info := t.info
	s.mu.Unlock()
	if t.notify != nil {
		t.notify(info)
	}
}

// lookup returns the live task id, or the -32602 error for an unknown one.
func (s *Store) lookup(id string) (*task, error) {
	t := s.tasks[id]
	if t == nil || time.Now().After(t.expires) {
		delete(s.tasks, id)
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "No such task", map[string]string{"taskId": jsonrpc.Truncate(id)})
	}
	return t, nil
}

// Get answers tasks/get.
func (s *Store) Get(id string) (*mcp.GetTaskResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	return taskResult(t.info), nil
}

// List answers tasks/list, pageSize tasks at a time, oldest first.
func (s *Store) List(cursor mcp.Cursor, pageSize int) (*mcp.ListTasksResult, error) {
	s.mu.Lock()
	var all []mcp.Task
	for id := range s.tasks {
		if t, err := s.lookup(id); err == nil {
			all = append(all, t.info)
		}
	}
	s.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].CreatedAt < all[j].CreatedAt })
	page, next, err := Paginate(all, cursor, pageSize)
	if err != nil {
		return nil, err
	}
	return &mcp.ListTasksResult{Tasks: page, NextCursor: next}, nil
}

// Cancel answers tasks/cancel; a task in a final state is refused.
func (s *Store) Cancel(id string, notify func(mcp.Task)) (*mcp.CancelTaskResult, error) {
	s.mu.Lock()
	t, err := s.lookup(id)
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if t.info.Status != mcp.TaskStatusWorking && t.info.Status != mcp.TaskStatusInputRequired {
		s.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams,
			fmt.Sprintf("Task %s is already %s", id, t.info.Status), nil)
	}
	t.info.Status = mcp.TaskStatusCancelled
	t.info.StatusMessage = "Cancelled by request"
	t.info.LastUpdatedAt = now()
	t.err = jsonrpc.NewError(jsonrpc.CodeInternalError, "Task cancelled", nil)
	t.cancel()
	close(t.done)
	info := t.info
	s.mu.Unlock()
	if notify != nil {
		notify(info)
	}
	return (*mcp.CancelTaskResult)(taskResult(info)), nil
}

// Result answers tasks/result: it waits until the task is final, making
// meanwhile, with ctx, the requests the task waits on (see [Store.Input]).
func (s *Store) Result(ctx context.Context, id string) (*mcp.GetTaskPayloadResult, error) {
	s.mu.Lock()
	t, err := s.lookup(id)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	for final := false; !final; {
		select {
		case <-t.done: // a final task asks nothing more
			final = true
			continue
		default:
		}
		select {
		case <-t.done:
			final = true
		case in := <-t.inputs:
			err := in.ask(ctx)
			in.done <- outcome{err: err, abandoned: err != nil && ctx.Err() != nil}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if t.err != nil {
		return nil, t.err
	}
	var res mcp.GetTaskPayloadResult
	if err := json.Unmarshal(t.result, &res); err != nil {
		return nil, fmt.Errorf("decoding the result of task %s: %w", id, err)
	}
	related, _ := json.Marshal(mcp.RelatedTaskMetadata{TaskID: id})
	if res.Meta == nil {
		res.Meta = &mcp.Meta{}
	}
	res.Meta.Extra.Set("io.modelcontextprotocol/related-task", related)
	return &res, nil
}

// Close cancels every running task and waits for them.
func (s *Store) Close() {
	s.mu.Lock()
	for _, t := range s.tasks {
		t.cancel()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// taskResult is the tasks/get answer for t.
func taskResult(t mcp.Task) *mcp.GetTaskResult {
	return &mcp.GetTaskResult{
		TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage,
		CreatedAt: t.CreatedAt, LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTL, PollInterval: t.PollInterval,
	}
}

// Paginate returns the page of items at cursor (an offset written in
// decimal) and the cursor of the next page, if any.
func Paginate[T any](items []T, cursor mcp.Cursor, pageSize int) ([]T, mcp.Cursor, error) {
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(string(cursor))
		if err != nil || n < 0 || n > len(items) {
			return nil, "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid cursor", map[string]string{"cursor": jsonrpc.Truncate(string(cursor))})
		}
		start = n
	}
	end := min(start+pageSize, len(items))
	page := append([]T{}, items[start:end]...)
	if end < len(items) {
		return page, mcp.Cursor(strconv.Itoa(end)), nil
	}
	return page, "", nil
}
