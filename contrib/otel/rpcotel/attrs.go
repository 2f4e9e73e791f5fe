package rpcotel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.38.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// otherMethod stands for a method name in metrics when the server does not
// know the method, so that a peer cannot add a time series per name it
// makes up.
const otherMethod = "_OTHER"

// spanAttrs are the attributes a span starts with: the method, the
// protocol, and the request's id unless it is a notification (id zero).
func spanAttrs(method string, id jsonrpc.ID) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 6)
	attrs = append(attrs, semconv.RPCSystemJSONRPC, semconv.RPCMethod(method), semconv.RPCJSONRPCVersion("2.0"))
	if !id.IsZero() {
		attrs = append(attrs, semconv.RPCJSONRPCRequestID(requestID(id)))
	}
	return attrs
}

// requestID is the id as the conventions record it: a number's digits, a
// string's text, and "" for null; truncated, since it may come from the
// peer.
func requestID(id jsonrpc.ID) string {
	raw := id.String()
	switch {
	case id.IsNull():
		return ""
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			raw = s
		}
	}
	return jsonrpc.Truncate(raw)
}

// outcome is how a call, or the handling of a request, ended.
type outcome struct {
	answer  *jsonrpc.Error // the error answer, if the peer got or sent one
	errType string         // error.type; "" for a success
}

// outcomeOf classifies err. An error that wraps [jsonrpc.ErrClosed] is the
// connection's end, never an answer, even when it wraps an error the peer
// reported on its own.
func outcomeOf(err error) outcome {
	if err == nil {
		return outcome{}
	}
	var answer *jsonrpc.Error
	switch {
	case errors.Is(err, jsonrpc.ErrClosed):
		return outcome{errType: "closed"}
	case errors.As(err, &answer):
		return outcome{answer: answer, errType: strconv.FormatInt(answer.Code, 10)}
	case errors.Is(err, context.DeadlineExceeded):
		return outcome{errType: "timeout"}
	case errors.Is(err, context.Canceled):
		return outcome{errType: "canceled"}
	}
	return outcome{errType: semconv.ErrorTypeOther.Value.AsString()}
}

// record sets the span's error attributes and status for o, and returns the
// attributes of the duration metric.
func (o outcome) record(span trace.Span, err error, method string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.RPCMethod(method), semconv.RPCSystemJSONRPC}
	if err == nil {
		return attrs
	}
	if o.answer != nil {
		message := jsonrpc.Truncate(o.answer.Message)
		span.SetAttributes(semconv.RPCJSONRPCErrorCode(int(o.answer.Code)), semconv.RPCJSONRPCErrorMessage(message))
		span.SetStatus(codes.Error, message)
		attrs = append(attrs, semconv.RPCJSONRPCErrorCode(int(o.answer.Code)))
	} else {
		span.SetStatus(codes.Error, jsonrpc.Truncate(err.Error()))
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(o.errType))
	return append(attrs, semconv.ErrorTypeKey.String(o.errType))
}
