package main

import (
	"context"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
)

// Version is the version the extension reports in initialize.
const Version = "1.0.0"

// commandQueue bounds how many triggered commands may wait for the one
// running; more are refused (and logged) until the queue drains.
const commandQueue = 16

// extension implements hermes.Extension. Commands are queued and run one
// at a time by a worker goroutine, since they all read and edit the same
// message; notifications are handled at once.
type extension struct {
	hermes.UnimplementedExtension

	ctx    context.Context // ends when the extension stops
	cancel context.CancelFunc
	host   hermes.Host // set by start, before the worker runs

	mu          sync.Mutex
	initialised bool
	stopping    bool
	queue       chan string
	preview     *preview // the open preview window, or nil
	lastContent string   // the HL7 content of the last message/changed

	worker   sync.WaitGroup
	stopOnce sync.Once
	stopped  chan struct{} // closed once shutdown has been answered
}

func newExtension(parent context.Context) *extension {
	ctx, cancel := context.WithCancel(parent)
	return &extension{
		ctx:     ctx,
		cancel:  cancel,
		queue:   make(chan string, commandQueue),
		stopped: make(chan struct{}),
	}
}

// start runs the command worker, which calls Hermes through host.
func (e *extension) start(host hermes.Host) {
	e.host = host
	e.worker.Add(1)
	go func() {
		defer e.worker.Done()
		for {
			select {
			case <-e.ctx.Done():
				return
			case cmd := <-e.queue:
				e.execute(e.ctx, cmd)
			}
		}
	}()
}

// stop cancels the running command, waits for the worker and closes the
// preview server. It is safe to call more than once.
func (e *extension) stop() {
	e.cancel()
	e.worker.Wait()
	e.mu.Lock()
	p := e.preview
	e.preview = nil
	e.mu.Unlock()
	if p != nil {
		p.close()
	}
}

// Initialize answers the handshake with the extension's commands, buttons,
// event subscriptions and schema overrides.
func (e *extension) Initialize(_ context.Context, params *hermes.InitializeParams) (*hermes.InitializeResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.initialised {
		return nil, hermes.NewAlreadyInitialisedError()
	}
	e.initialised = true
	logf("initialised by Hermes %s, API %s", params.HermesVersion, params.APIVersion)
	return initializeResult(), nil
}

// Shutdown stops taking commands, abandons the running one (waiting at
// most a second for it), closes the preview and answers. The process
// exits once Hermes closes stdin.
func (e *extension) Shutdown(_ context.Context, params *hermes.ShutdownParams) (*hermes.ShutdownResult, error) {
	reason := "unspecified"
	if params.Reason != "" {
		reason = string(params.Reason)
	}
	logf("shutting down (reason: %s)", reason)
	e.mu.Lock()
	e.stopping = true
	e.mu.Unlock()

	done := make(chan struct{})
	go func() { e.stop(); close(done) }()
	clean := true
	t := time.NewTimer(time.Second)
	select {
	case <-done:
	case <-t.C:
		warnf("a command did not stop within a second")
		clean = false
	}
	t.Stop()
	e.stopOnce.Do(func() { close(e.stopped) })
	return &hermes.ShutdownResult{Success: clean}, nil
}

// CommandExecute queues a command. It is a notification, so problems are
// only logged.
func (e *extension) CommandExecute(_ context.Context, params *hermes.CommandExecuteParams) error {
	e.mu.Lock()
	ready, stopping := e.initialised, e.stopping
	e.mu.Unlock()
	switch {
	case !ready:
		errorf("command %s before initialize: ignored", params.Command)
	case stopping:
		warnf("command %s during shutdown: ignored", params.Command)
	case commands[params.Command] == nil:
		errorf("command %s: %v", params.Command, hermes.NewCommandNotFoundError())
	default:
		select {
		case e.queue <- params.Command:
			logf("command %s queued", params.Command)
		default:
			warnf("command %s: %d commands already waiting, ignored", params.Command, commandQueue)
		}
	}
	return nil
}

// WindowClosed forgets the preview when its window closes.
func (e *extension) WindowClosed(_ context.Context, params *hermes.WindowClosedParams) error {
	logf("window %s closed (reason: %s)", params.WindowID, params.Reason)
	e.mu.Lock()
	p := e.preview
	if p != nil && p.windowID == params.WindowID {
		e.preview = nil
	} else {
		p = nil
	}
	e.mu.Unlock()
	if p != nil {
		p.close()
		logf("preview stopped")
	}
	return nil
}

// MessageChanged keeps the preview up to date.
func (e *extension) MessageChanged(_ context.Context, params *hermes.MessageChangedParams) error {
	if params.Message == "" {
		logf("message changed")
		return nil
	}
	content := params.Message
	e.mu.Lock()
	e.lastContent = content
	p := e.preview
	e.mu.Unlock()
	if p != nil {
		p.update(content)
	}
	// Logged last, so that a host seeing this line sees the new page.
	logf("message changed: %d segments", len(segments(content)))
	return nil
}

// MessageOpened logs which message is open now.
func (e *extension) MessageOpened(_ context.Context, params *hermes.MessageOpenedParams) error {
	if params.IsNew || params.FilePath == "" {
		logf("message opened: new message")
		return nil
	}
	logf("message opened: %s", params.FilePath)
	return nil
}

// MessageSaved logs where the message was saved.
func (e *extension) MessageSaved(_ context.Context, params *hermes.MessageSavedParams) error {
	how := "saved"
	if params.SaveAs {
		how = "saved as"
	}
	logf("message %s %s", how, params.FilePath)
	return nil
}

// execute runs one command, reporting failures to the user.
func (e *extension) execute(ctx context.Context, name string) {
	logf("command %s started", name)
	if err := commands[name](ctx, e); err != nil {
		errorf("command %s: %v", name, err)
		e.show(ctx, hermes.MessageKindError, name, err.Error())
		return
	}
	logf("command %s done", name)
}

// show displays a message box, logging when it cannot.
func (e *extension) show(ctx context.Context, kind hermes.MessageKind, title, text string) {
	_, err := e.host.UIShowMessage(ctx, &hermes.UIShowMessageParams{Message: text, Title: title, Kind: kind})
	if err != nil {
		errorf("showing %q: %v", text, err)
	}
}
