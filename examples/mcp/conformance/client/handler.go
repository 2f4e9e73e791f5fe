package main

import (
	"context"
	"log/slog"

	"github.com/rpcgen/rpcgen/generated/mcp"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// handler answers the server's requests: ping, and elicitation, which it
// accepts as a user who submits the form without typing anything would,
// the client filling in each omitted field's default (SEP-1034).
type handler struct {
	mcp.UnimplementedClient
	log *slog.Logger
}

// Ping answers at once.
func (h *handler) Ping(context.Context, *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

// Elicit accepts a form with nothing entered, so every field carries its
// default; it declines a URL elicitation, which has no one to open it.
func (h *handler) Elicit(_ context.Context, p *mcp.ElicitRequestParams) (*mcp.ElicitResponse, error) {
	if u := p.ElicitRequestURLParams; u != nil {
		h.log.Info("declining a URL elicitation", "url", jsonrpc.Truncate(u.URL))
		res := mcp.NewElicitResponse(mcp.ElicitResult{Action: mcp.ElicitActionDecline})
		return &res, nil
	}
	form := p.ElicitRequestFormParams
	if form == nil {
		return nil, jsonrpc.InvalidParams("mode", "elicitation params of neither mode")
	}
	entered := map[string]mcp.ElicitValue{}
	res := mcp.NewElicitResponse(mcp.ElicitResult{
		Action:  mcp.ElicitActionAccept,
		Content: applyDefaults(entered, form.RequestedSchema),
	})
	h.log.Debug("accepting an elicitation with the form's defaults", "message", jsonrpc.Truncate(form.Message))
	return &res, nil
}

// applyDefaults returns content with the default of every property of
// schema that content omits and that has one.
func applyDefaults(content map[string]mcp.ElicitValue, schema mcp.ElicitationSchema) map[string]mcp.ElicitValue {
	out := make(map[string]mcp.ElicitValue, len(schema.Properties))
	for name, v := range content {
		out[name] = v
	}
	for name, prop := range schema.Properties {
		if _, ok := out[name]; ok {
			continue
		}
		if v, ok := defaultOf(prop); ok {
			out[name] = v
		}
	}
	return out
}

// defaultOf returns the default a property declares, if any.
func defaultOf(p mcp.PrimitiveSchemaDefinition) (mcp.ElicitValue, bool) {
	str := func(s string) (mcp.ElicitValue, bool) {
		if s == "" {
			return mcp.ElicitValue{}, false
		}
		return mcp.NewElicitValue(s), true
	}
	switch {
	case p.StringSchema != nil:
		return str(p.StringSchema.Default)
	case p.BooleanSchema != nil && p.BooleanSchema.Default != nil:
		return mcp.NewElicitValue(*p.BooleanSchema.Default), true
	case p.NumberSchema != nil && p.NumberSchema.Default != nil:
		return mcp.NewElicitValue(*p.NumberSchema.Default), true
	case p.EnumSchema != nil:
		e := p.EnumSchema
		switch {
		case e.UntitledSingleSelectEnumSchema != nil:
			return str(e.UntitledSingleSelectEnumSchema.Default)
		case e.TitledSingleSelectEnumSchema != nil:
			return str(e.TitledSingleSelectEnumSchema.Default)
		case e.LegacyTitledEnumSchema != nil:
			return str(e.LegacyTitledEnumSchema.Default)
		case e.MultiSelectEnumSchema != nil && e.MultiSelectEnumSchema.Default != nil:
			return mcp.NewElicitValue(e.MultiSelectEnumSchema.Default), true
		}
	}
	return mcp.ElicitValue{}, false
}
