package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// answers are the user's answers to the extension's dialogues; a nil
// path (or nil paths) means the user cancelled.
type answers struct {
	confirm   bool
	openFile  *string
	openFiles []string
	saveFile  *string
	directory *string
}

// editor implements hermes.Host: a headless editor holding one message in
// memory, answering dialogues from answers and "showing" windows by
// fetching their page.
type editor struct {
	hermes.UnimplementedHost
	log     *slog.Logger
	answers answers
	ext     hermes.Extension // set before the extension is initialised

	mu       sync.Mutex
	ready    bool     // the extension answered initialize
	msg      *message // nil when no message is open
	filePath string   // "" for an untitled message
	changed  *hermes.EventSubscription
	windows  map[string]bool // window ID -> open
	nextWin  int
	inflight int       // requests being handled
	lastReq  time.Time // when the last request ended

	schema map[fieldKey]*fieldDef // the base schema, overrides merged
}

// begin marks a request as running and reports whether the extension may
// make requests yet.
func (e *editor) begin() (func(), error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ready {
		return nil, hermes.NewNotInitialisedError()
	}
	e.inflight++
	return func() {
		e.mu.Lock()
		e.inflight--
		e.lastReq = time.Now()
		e.mu.Unlock()
	}, nil
}

// idleSince reports whether no request is running, and since when.
func (e *editor) idleSince() (bool, time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.inflight == 0, e.lastReq
}

// current returns the message as text in format, as Hermes writes it.
func (e *editor) current(format hermes.MessageFormat) (string, error) {
	switch format {
	case hermes.MessageFormatHL7:
		return e.msg.hl7(), nil
	case hermes.MessageFormatJSON:
		return e.msg.toJSON(), nil
	case hermes.MessageFormatYAML:
		return e.msg.toYAML(), nil
	case hermes.MessageFormatTOML:
		text, err := e.msg.toTOML()
		if err != nil {
			return "", jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error", "failed to export to TOML: "+err.Error())
		}
		return text, nil
	}
	return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params",
		map[string]string{"format": fmt.Sprintf("%s is not a format this host knows", jsonrpc.Truncate(string(format)))})
}

// EditorGetMessage returns the message in the requested format.
func (e *editor) EditorGetMessage(_ context.Context, p *hermes.EditorGetMessageParams) (*hermes.EditorGetMessageResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.msg == nil {
		return nil, hermes.NewNoMessageOpenError()
	}
	text, err := e.current(p.Format)
	if err != nil {
		return nil, err
	}
	r := &hermes.EditorGetMessageResult{Message: text, HasFile: e.filePath != ""}
	if r.HasFile {
		r.FilePath = e.filePath
	}
	return r, nil
}

// EditorPatchMessage applies patches in order. A malformed path rejects
// the whole request with InvalidPath before anything changes; a path
// naming something missing fails only its patch.
func (e *editor) EditorPatchMessage(ctx context.Context, p *hermes.EditorPatchMessageParams) (*hermes.EditorPatchMessageResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	paths := make([]path, len(p.Patches))
	for i, patch := range p.Patches {
		if paths[i], err = parsePath(patch.Path); err != nil {
			return nil, jsonrpc.NewError(hermes.CodeInvalidPath, "Invalid path", hermes.PatchError{Index: int64(i), Path: patch.Path, Message: err.Error()})
		}
	}
	e.mu.Lock()
	if e.msg == nil {
		e.mu.Unlock()
		return nil, hermes.NewNoMessageOpenError()
	}
	res := &hermes.EditorPatchMessageResult{Success: true}
	for i, patch := range p.Patches {
		err := e.msg.apply(paths[i], patch.Value, patch.Remove, patch.Create)
		if err != nil {
			res.Success = false
			res.Errors = append(res.Errors, hermes.PatchError{Index: int64(i), Path: patch.Path, Message: err.Error()})
			continue
		}
		res.PatchesApplied++
	}
	e.mu.Unlock()
	e.log.Info("patched the message", "applied", res.PatchesApplied, "failed", len(res.Errors))
	if res.PatchesApplied > 0 {
		e.notifyChanged(ctx)
	}
	return res, nil
}

// EditorSetMessage replaces the message. Text that does not parse in the
// given format is InvalidMessage; a parsed message without MSH first is
// refused in the result.
func (e *editor) EditorSetMessage(ctx context.Context, p *hermes.EditorSetMessageParams) (*hermes.EditorSetMessageResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	var m *message
	switch p.Format {
	case hermes.MessageFormatHL7:
		m, err = parseHL7(p.Message)
		if err != nil {
			text := err.Error()
			return &hermes.EditorSetMessageResult{Success: false, Error: text}, nil
		}
	default:
		m, err = parseStructured(p.Format, p.Message)
		if err != nil {
			return nil, jsonrpc.NewError(hermes.CodeInvalidMessage, "Invalid message", jsonrpc.Truncate(fmt.Sprintf("failed to import from %s: %v", p.Format, err)))
		}
	}
	e.mu.Lock()
	e.msg = m
	e.mu.Unlock()
	e.log.Info("replaced the message", "segments", len(m.segs))
	e.notifyChanged(ctx)
	return &hermes.EditorSetMessageResult{Success: true}, nil
}

// notifyChanged sends message/changed when the extension subscribed.
func (e *editor) notifyChanged(ctx context.Context) {
	e.mu.Lock()
	sub := e.changed
	params := &hermes.MessageChangedParams{HasFile: e.filePath != ""}
	if params.HasFile {
		params.FilePath = e.filePath
	}
	if sub != nil && sub.Options != nil && sub.Options.IncludeContent {
		format := hermes.MessageFormatHL7
		if sub.Options.Format != "" {
			format = sub.Options.Format
		}
		if text, err := e.current(format); err == nil {
			params.Message, params.Format = text, format
		}
	}
	e.mu.Unlock()
	if sub == nil {
		return
	}
	if err := e.ext.MessageChanged(ctx, params); err != nil {
		e.log.Warn("sending message/changed", "error", err)
	}
}

// UIOpenWindow "opens" a window by fetching its page.
func (e *editor) UIOpenWindow(ctx context.Context, p *hermes.UIOpenWindowParams) (*hermes.UIOpenWindowResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, jsonrpc.NewError(hermes.CodeInvalidURL, "Invalid URL", "an absolute http or https URL is required")
	}
	size, err := fetch(ctx, p.URL)
	if err != nil {
		return nil, jsonrpc.NewError(hermes.CodeWindow, "Window error", jsonrpc.Truncate(err.Error()))
	}
	e.mu.Lock()
	if len(e.windows) >= maxWindows {
		// Forget the closed windows first: closing one again is then an
		// unknown window.
		for id, open := range e.windows {
			if !open {
				delete(e.windows, id)
			}
		}
	}
	if len(e.windows) >= maxWindows {
		e.mu.Unlock()
		return nil, jsonrpc.NewError(hermes.CodeWindow, "Window error", fmt.Sprintf("at most %d windows are open at once", maxWindows))
	}
	e.nextWin++
	id := fmt.Sprintf("ext-window-%d", e.nextWin)
	e.windows[id] = true
	e.mu.Unlock()
	e.log.Info("window opened", "id", id, "title", jsonrpc.Truncate(p.Title), "url", jsonrpc.Truncate(p.URL), "bytes", size)
	return &hermes.UIOpenWindowResult{WindowID: id}, nil
}

// maxWindows is the most windows an extension keeps open at once.
const maxWindows = 64

// fetch loads a page the way a window would, returning its size; the page
// is counted, not kept.
func fetch(ctx context.Context, u string) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, fmt.Errorf("loading %s: %w", u, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("loading %s: %w", u, err)
	}
	defer resp.Body.Close()
	size, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return 0, fmt.Errorf("loading %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("loading %s: %s", u, resp.Status)
	}
	return size, nil
}

// UICloseWindow closes a window and tells the extension with window/closed.
func (e *editor) UICloseWindow(ctx context.Context, p *hermes.UICloseWindowParams) (*hermes.UICloseWindowResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	e.mu.Lock()
	open, known := e.windows[p.WindowID]
	e.windows[p.WindowID] = false
	if !known {
		delete(e.windows, p.WindowID)
	}
	e.mu.Unlock()
	if !known {
		return nil, jsonrpc.NewError(hermes.CodeWindow, "Window error", "unknown window "+jsonrpc.Truncate(p.WindowID))
	}
	if open {
		e.log.Info("window closed", "id", p.WindowID) // a known ID: ours
		e.closed(ctx, p.WindowID, hermes.WindowCloseReasonExtension)
	}
	return &hermes.UICloseWindowResult{Success: true}, nil
}

// closeAll closes the windows still open, as at shutdown.
func (e *editor) closeAll(ctx context.Context) {
	e.mu.Lock()
	var ids []string
	for id, open := range e.windows {
		if open {
			ids = append(ids, id)
			e.windows[id] = false
		}
	}
	e.mu.Unlock()
	for _, id := range ids {
		e.closed(ctx, id, hermes.WindowCloseReasonShutdown)
	}
}

func (e *editor) closed(ctx context.Context, id string, reason hermes.WindowCloseReason) {
	if err := e.ext.WindowClosed(ctx, &hermes.WindowClosedParams{WindowID: id, Reason: reason}); err != nil && !errors.Is(err, jsonrpc.ErrClosed) {
		e.log.Warn("sending window/closed", "error", err)
	}
}

// UIShowMessage logs the message as the user would read it.
func (e *editor) UIShowMessage(_ context.Context, p *hermes.UIShowMessageParams) (*hermes.UIShowMessageResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	kind := hermes.MessageKindInfo
	if p.Kind != "" {
		kind = p.Kind
	}
	e.log.Info("dialogue", "kind", jsonrpc.Truncate(string(kind)), "title", jsonrpc.Truncate(p.Title), "message", jsonrpc.Truncate(p.Message))
	return &hermes.UIShowMessageResult{Acknowledged: true}, nil
}

// UIShowConfirm answers with -confirm.
func (e *editor) UIShowConfirm(_ context.Context, p *hermes.UIShowConfirmParams) (*hermes.UIShowConfirmResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	e.log.Info("confirmation", "title", jsonrpc.Truncate(p.Title), "message", jsonrpc.Truncate(p.Message), "answer", e.answers.confirm)
	return &hermes.UIShowConfirmResult{Confirmed: e.answers.confirm}, nil
}

// UIOpenFile answers with -open-file.
func (e *editor) UIOpenFile(_ context.Context, p *hermes.UIOpenFileParams) (*hermes.UIOpenFileResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	e.log.Info("open file dialogue", "title", jsonrpc.Truncate(p.Title), "answer", deref(e.answers.openFile))
	return &hermes.UIOpenFileResult{Path: e.answers.openFile}, nil
}

// UIOpenFiles answers with -open-files.
func (e *editor) UIOpenFiles(_ context.Context, p *hermes.UIOpenFilesParams) (*hermes.UIOpenFilesResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	e.log.Info("open files dialogue", "title", jsonrpc.Truncate(p.Title), "answer", e.answers.openFiles)
	return &hermes.UIOpenFilesResult{Paths: e.answers.openFiles}, nil
}

// UISaveFile answers with -save-file.
func (e *editor) UISaveFile(_ context.Context, p *hermes.UISaveFileParams) (*hermes.UISaveFileResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	e.log.Info("save file dialogue", "title", jsonrpc.Truncate(p.Title), "answer", deref(e.answers.saveFile))
	return &hermes.UISaveFileResult{Path: e.answers.saveFile}, nil
}

// UISelectDirectory answers with -select-dir.
func (e *editor) UISelectDirectory(_ context.Context, p *hermes.UISelectDirectoryParams) (*hermes.UISelectDirectoryResult, error) {
	end, err := e.begin()
	if err != nil {
		return nil, err
	}
	defer end()
	e.log.Info("directory dialogue", "title", jsonrpc.Truncate(p.Title), "answer", deref(e.answers.directory))
	return &hermes.UISelectDirectoryResult{Path: e.answers.directory}, nil
}

func deref(s *string) string {
	if s == nil {
		return "(none)"
	}
	return *s
}
