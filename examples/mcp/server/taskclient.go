package main

import (
	"context"
	"encoding/json"

	"github.com/rpcgen/rpcgen/examples/mcp/internal/tasks"
	"github.com/rpcgen/rpcgen/generated/mcp"
)

// relatedTaskKey is the _meta member that ties a message to a task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// taskClient is the client as a tool running as a task sees it. The
// requests that need the requestor's input (sampling, elicitation, roots)
// carry the task's id in their _meta and wait, the task being
// input_required meanwhile, until the client calls tasks/result: they go
// out with that request's context (MCP tasks, 2025-11-25).
type taskClient struct {
	mcp.Client
	store *tasks.Store
}

// withTask returns meta, or a new one, naming the task of ctx.
func withTask(ctx context.Context, meta *mcp.RequestMeta) *mcp.RequestMeta {
	id, ok := tasks.ID(ctx)
	if !ok {
		return meta
	}
	if meta == nil {
		meta = &mcp.RequestMeta{}
	}
	related, _ := json.Marshal(mcp.RelatedTaskMetadata{TaskID: id})
	meta.Extra.Set(relatedTaskKey, related)
	return meta
}

func (c taskClient) CreateMessage(ctx context.Context, p *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResponse, error) {
	p.Meta = withTask(ctx, p.Meta)
	var resp *mcp.CreateMessageResponse
	err := c.store.Input(ctx, func(rctx context.Context) (err error) {
		resp, err = client(rctx).CreateMessage(rctx, p)
		return err
	})
	return resp, err
}

func (c taskClient) Elicit(ctx context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error) {
	switch {
	case p.ElicitRequestFormParams != nil:
		p.ElicitRequestFormParams.Meta = withTask(ctx, p.ElicitRequestFormParams.Meta)
	case p.ElicitRequestURLParams != nil:
		p.ElicitRequestURLParams.Meta = withTask(ctx, p.ElicitRequestURLParams.Meta)
	}
	var resp *mcp.ElicitResponse
	err := c.store.Input(ctx, func(rctx context.Context) (err error) {
		resp, err = client(rctx).Elicit(rctx, p)
		return err
	})
	return resp, err
}

func (c taskClient) ListRoots(ctx context.Context, p *mcp.RequestParams) (*mcp.ListRootsResult, error) {
	if p == nil {
		p = &mcp.RequestParams{}
	}
	p.Meta = withTask(ctx, p.Meta)
	var res *mcp.ListRootsResult
	err := c.store.Input(ctx, func(rctx context.Context) (err error) {
		res, err = client(rctx).ListRoots(rctx, p)
		return err
	})
	return res, err
}
