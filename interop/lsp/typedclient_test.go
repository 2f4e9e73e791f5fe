package lsp_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/rpcgen/rpcgen/generated/lsp"
)

// typedClient is the client role of the generated package, as an editor
// would implement it for gopls: it answers the requests gopls makes of a
// client and keeps the diagnostics it publishes.
type typedClient struct {
	lsp.UnimplementedClient
	t *testing.T

	mu       sync.Mutex
	requests []string // methods of the requests gopls made, in order
	diags    []*lsp.PublishDiagnosticsParams
	arrived  chan struct{} // signalled on each publishDiagnostics
}

func newTypedClient(t *testing.T) *typedClient {
	return &typedClient{t: t, arrived: make(chan struct{}, 1)}
}

func (c *typedClient) asked(method string) {
	c.mu.Lock()
	c.requests = append(c.requests, method)
	c.mu.Unlock()
}

// asks returns the methods of the requests gopls made so far.
func (c *typedClient) asks() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.requests)
}

// WorkspaceConfiguration answers an empty settings object per item:
// gopls's defaults.
func (c *typedClient) WorkspaceConfiguration(_ context.Context, p *lsp.ConfigurationParams) ([]lsp.LSPAny, error) {
	c.asked(lsp.MethodWorkspaceConfiguration)
	out := make([]lsp.LSPAny, len(p.Items))
	for i := range out {
		out[i] = json.RawMessage(`{}`)
	}
	return out, nil
}

func (c *typedClient) WindowWorkDoneProgressCreate(context.Context, *lsp.WorkDoneProgressCreateParams) error {
	c.asked(lsp.MethodWindowWorkDoneProgressCreate)
	return nil
}

func (c *typedClient) ClientRegisterCapability(context.Context, *lsp.RegistrationParams) error {
	c.asked(lsp.MethodClientRegisterCapability)
	return nil
}

func (c *typedClient) ClientUnregisterCapability(context.Context, *lsp.UnregistrationParams) error {
	c.asked(lsp.MethodClientUnregisterCapability)
	return nil
}

// The refresh requests a client announcing refreshSupport may get.

func (c *typedClient) WorkspaceSemanticTokensRefresh(context.Context) error {
	c.asked(lsp.MethodWorkspaceSemanticTokensRefresh)
	return nil
}

func (c *typedClient) WorkspaceCodeLensRefresh(context.Context) error {
	c.asked(lsp.MethodWorkspaceCodeLensRefresh)
	return nil
}

func (c *typedClient) WorkspaceInlayHintRefresh(context.Context) error {
	c.asked(lsp.MethodWorkspaceInlayHintRefresh)
	return nil
}

func (c *typedClient) WorkspaceInlineValueRefresh(context.Context) error {
	c.asked(lsp.MethodWorkspaceInlineValueRefresh)
	return nil
}

func (c *typedClient) WorkspaceDiagnosticRefresh(context.Context) error {
	c.asked(lsp.MethodWorkspaceDiagnosticRefresh)
	return nil
}

// Requests the session gives gopls no reason to make fail the test.

func (c *typedClient) WindowShowMessageRequest(_ context.Context, p *lsp.ShowMessageRequestParams) (*lsp.MessageActionItem, error) {
	c.asked(lsp.MethodWindowShowMessageRequest)
	c.t.Errorf("gopls asked window/showMessageRequest: %q", p.Message)
	return nil, nil
}

func (c *typedClient) WorkspaceApplyEdit(_ context.Context, p *lsp.ApplyWorkspaceEditParams) (*lsp.ApplyWorkspaceEditResult, error) {
	c.asked(lsp.MethodWorkspaceApplyEdit)
	c.t.Errorf("gopls asked workspace/applyEdit")
	return &lsp.ApplyWorkspaceEditResult{Applied: false}, nil
}

func (c *typedClient) WindowShowDocument(_ context.Context, p *lsp.ShowDocumentParams) (*lsp.ShowDocumentResult, error) {
	c.asked(lsp.MethodWindowShowDocument)
	c.t.Errorf("gopls asked window/showDocument %s", p.URI)
	return &lsp.ShowDocumentResult{Success: false}, nil
}

// TextDocumentPublishDiagnostics keeps the diagnostics.
func (c *typedClient) TextDocumentPublishDiagnostics(_ context.Context, p *lsp.PublishDiagnosticsParams) error {
	c.mu.Lock()
	c.diags = append(c.diags, p)
	c.mu.Unlock()
	select {
	case c.arrived <- struct{}{}:
	default:
	}
	return nil
}

// awaitDiagnostics waits for diagnostics of uri at version that match
// accepts.
func (c *typedClient) awaitDiagnostics(t *testing.T, what string, uri string, version int32, match func([]lsp.Diagnostic) bool) *lsp.PublishDiagnosticsParams {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), goplsWait)
	defer cancel()
	for seen := 0; ; {
		c.mu.Lock()
		diags := c.diags[seen:]
		seen = len(c.diags)
		c.mu.Unlock()
		for _, d := range diags {
			if string(d.URI) == uri && d.Version != nil && *d.Version == version && match(d.Diagnostics) {
				return d
			}
		}
		select {
		case <-c.arrived:
		case <-ctx.Done():
			t.Fatalf("no %s from gopls within %v", what, goplsWait)
		}
	}
}
