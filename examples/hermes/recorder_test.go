package hermes_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/generated/hermes"
)

// recorder plays Hermes for the tests: it answers the extension's
// requests from its script fields and records what it was asked.
type recorder struct {
	hermes.UnimplementedHost

	mu sync.Mutex
	// The script: answers and errors for the next requests.
	message    string
	getErr     error
	patchRes   *hermes.EditorPatchMessageResult
	patchErr   error
	setRes     *hermes.EditorSetMessageResult
	setErr     error
	windowErr  error
	closeErr   error
	confirm    bool
	openFile   *string
	openFiles  []string
	saveFile   *string
	saveErr    error
	directory  *string
	nextWindow string
	// The record.
	patches  []hermes.Patch
	set      []string
	windows  []*hermes.UIOpenWindowParams
	closed   []string
	confirms []string
	shown    chan *hermes.UIShowMessageParams
}

func newRecorder() *recorder {
	return &recorder{shown: make(chan *hermes.UIShowMessageParams, 16), nextWindow: "ext-window-1"}
}

// script changes the script under the lock.
func (r *recorder) script(f func(r *recorder)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r)
}

// nextShown waits for the next ui/showMessage.
func (r *recorder) nextShown(t *testing.T) *hermes.UIShowMessageParams {
	t.Helper()
	select {
	case p := <-r.shown:
		return p
	case <-time.After(wait):
		t.Fatalf("no ui/showMessage within %v", wait)
		return nil
	}
}

func (r *recorder) EditorGetMessage(_ context.Context, p *hermes.EditorGetMessageParams) (*hermes.EditorGetMessageResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.getErr != nil {
		return nil, r.getErr
	}
	return &hermes.EditorGetMessageResult{Message: r.message, HasFile: true, FilePath: "/work/a01.hl7"}, nil
}

func (r *recorder) EditorPatchMessage(_ context.Context, p *hermes.EditorPatchMessageParams) (*hermes.EditorPatchMessageResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.patches = append(r.patches, p.Patches...)
	if r.patchErr != nil {
		return nil, r.patchErr
	}
	if r.patchRes != nil {
		return r.patchRes, nil
	}
	return &hermes.EditorPatchMessageResult{Success: true, PatchesApplied: int64(len(p.Patches))}, nil
}

func (r *recorder) EditorSetMessage(_ context.Context, p *hermes.EditorSetMessageParams) (*hermes.EditorSetMessageResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.set = append(r.set, p.Message)
	if r.setErr != nil {
		return nil, r.setErr
	}
	if r.setRes != nil {
		return r.setRes, nil
	}
	return &hermes.EditorSetMessageResult{Success: true}, nil
}

func (r *recorder) UIOpenWindow(_ context.Context, p *hermes.UIOpenWindowParams) (*hermes.UIOpenWindowResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.windows = append(r.windows, p)
	if r.windowErr != nil {
		return nil, r.windowErr
	}
	return &hermes.UIOpenWindowResult{WindowID: r.nextWindow}, nil
}

func (r *recorder) UICloseWindow(_ context.Context, p *hermes.UICloseWindowParams) (*hermes.UICloseWindowResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = append(r.closed, p.WindowID)
	if r.closeErr != nil {
		return nil, r.closeErr
	}
	return &hermes.UICloseWindowResult{Success: true}, nil
}

func (r *recorder) UIShowMessage(_ context.Context, p *hermes.UIShowMessageParams) (*hermes.UIShowMessageResult, error) {
	r.shown <- p
	return &hermes.UIShowMessageResult{Acknowledged: true}, nil
}

func (r *recorder) UIShowConfirm(_ context.Context, p *hermes.UIShowConfirmParams) (*hermes.UIShowConfirmResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.confirms = append(r.confirms, p.Message)
	return &hermes.UIShowConfirmResult{Confirmed: r.confirm}, nil
}

func (r *recorder) UIOpenFile(context.Context, *hermes.UIOpenFileParams) (*hermes.UIOpenFileResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &hermes.UIOpenFileResult{Path: r.openFile}, nil
}

func (r *recorder) UIOpenFiles(context.Context, *hermes.UIOpenFilesParams) (*hermes.UIOpenFilesResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &hermes.UIOpenFilesResult{Paths: r.openFiles}, nil
}

func (r *recorder) UISaveFile(context.Context, *hermes.UISaveFileParams) (*hermes.UISaveFileResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.saveErr != nil {
		return nil, r.saveErr
	}
	return &hermes.UISaveFileResult{Path: r.saveFile}, nil
}

func (r *recorder) UISelectDirectory(context.Context, *hermes.UISelectDirectoryParams) (*hermes.UISelectDirectoryResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &hermes.UISelectDirectoryResult{Path: r.directory}, nil
}
