package jsonrpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/internal/bigbuf"
	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// kind classifies a decoded message.
type kind uint8

const (
	kindInvalid kind = iota
	kindRequest
	kindNotification
	kindResponse
)

// message is one decoded JSON-RPC message. Its byte slices alias the frame
// it was decoded from.
type message struct {
	kind   kind
	id     ID     // a request's id; zero for a response, whose id is in rawID
	rawID  []byte // a response's id as received: looking it up needs no copy
	method string
	params json.RawMessage
	// nullParams is true for a request whose params member is null.
	nullParams bool
	result     json.RawMessage
	err        *Error // a response's error object
	// frame is the whole frame of a response read alone (not in a
	// batch): once its result is decoded, the frame goes back to the
	// reader.
	frame []byte
}

// decodeMessage decodes and validates one message object. When the message
// cannot be handled it returns the JSON-RPC error to answer with; m.id then
// holds the id to answer to (NullID when the id itself is unusable), and
// m.kind is kindResponse when the message is an invalid response (it has
// result or error and no method), which must not be answered.
func decodeMessage(b []byte) (m message, rpcErr *Error) {
	return decodeChecked(trimSpace(b), nil)
}

// errParse answers a frame that is not valid JSON.
var errParse = &Error{Code: CodeParseError, Message: "Parse error: invalid JSON"}

// decodeChecked is decodeValid for b, without surrounding space, not yet
// known to be valid JSON: an object is checked while its members are
// read, in one pass, and anything that is not valid JSON is the parse
// error (with a null id).
func decodeChecked(b []byte, names *nameCache) (message, *Error) {
	if len(b) > 0 && b[0] == '{' {
		var e envelope
		if !e.read(b, true) {
			return message{id: NullID}, errParse
		}
		return e.decode(names)
	}
	if !jsonscan.Valid(b) {
		return message{id: NullID}, errParse
	}
	return decodeValid(b, names)
}

// decodeValid is decodeMessage for input already known to be valid JSON.
// Method names are taken from names when it is not nil.
func decodeValid(b []byte, names *nameCache) (m message, rpcErr *Error) {
	var e envelope
	if len(b) == 0 || b[0] != '{' {
		return message{id: NullID}, invalidRequest("a message must be a JSON object")
	}
	e.read(b, false)
	return e.decode(names)
}

// envelope holds the members of a message object that JSON-RPC defines,
// as raw values aliasing the frame.
type envelope struct {
	version, id, method, params, result, errObj      []byte
	hasID, hasMethod, hasParams, hasResult, hasError bool
}

// read reads the members of the object b. With check it also checks
// that b is exactly one valid JSON object, and reports whether it is;
// without, b must be one.
func (e *envelope) read(b []byte, check bool) bool {
	i := skipSpace(b, 1)
	if check && i < len(b) && b[i] == '}' {
		return i == len(b)-1
	}
	for i < len(b) && b[i] == '"' {
		var keyEnd, end int
		if check {
			var ok bool
			if keyEnd, ok = jsonscan.CheckString(b, i); !ok {
				return false
			}
		} else {
			keyEnd = skipString(b, i)
		}
		key := b[i+1 : keyEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			key = unquoteBytes(b[i:keyEnd])
		}
		i = skipSpace(b, keyEnd)
		if check && (i >= len(b) || b[i] != ':') {
			return false
		}
		i = skipSpace(b, i+1) // past ':'
		if check {
			var ok bool
			if end, ok = jsonscan.CheckValueIn(b, i, 1); !ok {
				return false
			}
		} else {
			end = skipValue(b, i)
		}
		e.member(key, b[i:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			if check && (i >= len(b) || b[i] != '"') {
				return false
			}
		} else if check {
			return i == len(b)-1 && b[i] == '}'
		}
	}
	return !check
}

// member records the member key of a message, if JSON-RPC defines it.
func (e *envelope) member(key, val []byte) {
	switch string(key) {
	case "jsonrpc":
		e.version = val
	case "id":
		e.id, e.hasID = val, true
	case "method":
		e.method, e.hasMethod = val, true
	case "params":
		e.params, e.hasParams = val, true
	case "result":
		e.result, e.hasResult = val, true
	case "error":
		e.errObj, e.hasError = val, true
	}
}

// decode checks the envelope against JSON-RPC and makes it a message.
func (e *envelope) decode(names *nameCache) (m message, rpcErr *Error) {
	m.id = NullID
	version, id, method, params, result, errObj := e.version, e.id, e.method, e.params, e.result, e.errObj
	hasID, hasMethod, hasParams, hasResult, hasError := e.hasID, e.hasMethod, e.hasParams, e.hasResult, e.hasError
	if !hasMethod && (hasResult || hasError) {
		// A response, valid or not: an invalid one is reported with this
		// kind so that it is never answered.
		m.kind = kindResponse
	}
	if hasID {
		if !validID(id) {
			return m, invalidRequest("id must be a string, a number or null")
		}
		if m.kind == kindResponse {
			m.id, m.rawID = ID{}, id
		} else {
			m.id = idOf(id)
		}
	}
	if !isVersion2(version) {
		return m, invalidRequest(`"jsonrpc" must be exactly "2.0"`)
	}
	switch {
	case hasMethod:
		if hasResult || hasError {
			return m, invalidRequest("a request cannot carry result or error")
		}
		if len(method) == 0 || method[0] != '"' {
			return m, invalidRequest(`"method" must be a string`)
		}
		m.method = names.unquote(method)
		m.nullParams = hasParams && string(params) == "null"
		if hasParams && !m.nullParams {
			if params[0] != '{' && params[0] != '[' {
				return m, invalidRequest(`"params" must be an object or an array`)
			}
			m.params = params
		}
		if hasID {
			m.kind = kindRequest
		} else {
			m.id, m.kind = ID{}, kindNotification
		}
		return m, nil
	case hasResult || hasError:
		if !hasID {
			return m, invalidRequest("a response must carry an id")
		}
		if hasResult && hasError {
			return m, invalidRequest("a response cannot carry both result and error")
		}
		if hasError {
			e, ok := decodeErrorObject(errObj)
			if !ok {
				return m, invalidRequest(`"error" must be an object with an integer "code" and a string "message"`)
			}
			m.err = e
		} else {
			m.result = result
		}
		return m, nil
	}
	return m, invalidRequest(`a message needs "method" (request) or "result"/"error" (response)`)
}

// responseID returns a response's id, for logs.
func (m *message) responseID() ID { return idOf(m.rawID) }

func invalidRequest(reason string) *Error {
	return NewError(CodeInvalidRequest, "Invalid Request", reason)
}

// decodeErrorObject decodes a response's error member.
func decodeErrorObject(b []byte) (*Error, bool) {
	var w struct {
		Code    *json.Number    `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &w) != nil || w.Code == nil || w.Message == nil {
		return nil, false
	}
	code, err := strconv.ParseInt(string(*w.Code), 10, 64)
	if err != nil {
		return nil, false
	}
	return &Error{Code: code, Message: *w.Message, Data: w.Data}, true
}

func isVersion2(v []byte) bool {
	if string(v) == `"2.0"` {
		return true
	}
	return len(v) > 0 && v[0] == '"' && bytes.IndexByte(v, '\\') >= 0 && unquote(v) == "2.0"
}

func unquoteBytes(b []byte) []byte { return []byte(unquote(b)) }

// nameCache holds the method names one connection has read, so that a
// name seen before costs no allocation. Only the read loop uses it. The
// first few names sit in recent, inside the Conn, so that a connection
// using a handful of methods (an idle one after its handshake, say) holds
// no map; further names go to names.
type nameCache struct {
	recent [recentNames]string
	names  map[string]string
}

// recentNames is how many names a nameCache keeps without a map.
const recentNames = 6

// maxCachedNames bounds a nameCache, whatever names a peer sends.
const maxCachedNames = 256

// unquote is the package's unquote, returning a cached copy of the name
// when there is one. A nil cache just unquotes.
func (c *nameCache) unquote(b []byte) string {
	if c == nil || len(b) < 2 {
		return unquote(b)
	}
	raw := b[1 : len(b)-1]
	for _, s := range c.recent {
		if s == string(raw) && s != "" {
			return s
		}
	}
	if s, ok := c.names[string(raw)]; ok {
		return s
	}
	s := unquote(b)
	if s != string(raw) || s == "" {
		return s // escaped names are rare: not cached
	}
	for i := range c.recent {
		if c.recent[i] == "" {
			c.recent[i] = s
			return s
		}
	}
	if len(c.names) >= maxCachedNames-recentNames {
		return s
	}
	if c.names == nil {
		c.names = make(map[string]string)
	}
	c.names[s] = s
	return s
}

// splitArray returns the elements of a valid JSON array.
func splitArray(b []byte) [][]byte {
	var elems [][]byte
	for i := skipSpace(b, 1); i < len(b) && b[i] != ']'; {
		end := skipValue(b, i)
		elems = append(elems, b[i:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return elems
}

// appendRequest appends a request with our request number id, or a
// notification when id is 0.
func (c *Conn) appendRequest(buf []byte, id int64, method string, params []byte) []byte {
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	if id != 0 {
		buf = append(buf, `,"id":`...)
		buf = c.appendID(buf, id)
	}
	return appendMethod(buf, method, params)
}

// appendMethod appends the method and params members and closes the
// message.
func appendMethod(buf []byte, method string, params []byte) []byte {
	buf = append(buf, `,"method":`...)
	buf = appendString(buf, method)
	if len(params) > 0 {
		buf = append(buf, `,"params":`...)
		buf = append(buf, params...)
	}
	return append(buf, '}')
}

// encodeRequest encodes a request with our request number id, or a
// notification when id is 0, into a recycled buffer. Params that are an
// [appender] are encoded straight into it.
func (c *Conn) encodeRequest(id int64, method string, params any) ([]byte, error) {
	buf := c.buffer()
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	if id != 0 {
		buf = append(buf, `,"id":`...)
		buf = c.appendID(buf, id)
	}
	buf = append(buf, `,"method":`...)
	buf = appendString(buf, method)
	mark := len(buf)
	buf = append(buf, `,"params":`...)
	buf, ok, err := appendPayload(buf, params)
	if err != nil {
		return nil, err
	}
	if !ok {
		buf = buf[:mark] // null params are left out
	}
	return append(buf, '}'), nil
}

// encodeResult encodes the success response to id carrying result into a
// recycled buffer; a result that is an [appender] is encoded straight
// into it.
func (c *Conn) encodeResult(id ID, result any) ([]byte, error) {
	buf := c.buffer()
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = appendID(buf, id)
	buf = append(buf, `,"result":`...)
	buf, ok, err := appendPayload(buf, result)
	if err != nil {
		return nil, err
	}
	if !ok {
		buf = append(buf, "null"...)
	}
	return append(buf, '}'), nil
}

// appendPayload appends v encoded as JSON: an [appender] straight into
// buf, anything else through encoding/json. It appends nothing and
// reports false when v encodes as null.
func appendPayload(buf []byte, v any) ([]byte, bool, error) {
	if v == nil || isNilPointer(v) {
		return buf, false, nil
	}
	if a, ok := v.(appender); ok {
		buf, err := a.AppendJSON(buf)
		return buf, true, err
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && listOfAppenders(rv.Type()) {
		if rv.IsNil() {
			return buf, false, nil
		}
		buf, err := appendList(buf, rv)
		return buf, true, err
	}
	data, err := marshalValue(v)
	if err != nil || len(data) == 0 || string(data) == "null" {
		return buf, false, err
	}
	return append(buf, data...), true, nil
}

// appenderType is the type of the appender interface.
var appenderType = reflect.TypeFor[appender]()

// listOfAppenders reports whether the slice type t holds values that
// append themselves (directly, or through their pointers), as the lists
// of generated types that generated handlers return do.
func listOfAppenders(t reflect.Type) bool {
	elem := t.Elem()
	if elem.Kind() == reflect.Pointer {
		return elem.Implements(appenderType)
	}
	return reflect.PointerTo(elem).Implements(appenderType)
}

// appendList appends rv, a non-nil slice that listOfAppenders accepts, as
// a JSON array, each element through its AppendJSON; a nil pointer
// element is null. The output is json.Marshal's, since each AppendJSON
// writes what json.Marshal writes for its value.
func appendList(buf []byte, rv reflect.Value) ([]byte, error) {
	byPointer := rv.Type().Elem().Kind() == reflect.Pointer
	buf = append(buf, '[')
	for i := range rv.Len() {
		if i > 0 {
			buf = append(buf, ',')
		}
		e := rv.Index(i)
		if byPointer && e.IsNil() {
			buf = append(buf, "null"...)
			continue
		}
		if !byPointer {
			e = e.Addr() // a pointer in an interface needs no allocation
		}
		var err error
		if buf, err = e.Interface().(appender).AppendJSON(buf); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

// isNilPointer reports whether v holds a nil pointer, which encodes as
// null (an appender's method must not be called on it).
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// spareBuffers is how many message buffers a connection keeps for reuse,
// and maxSpareBuffer the largest it keeps.
const (
	spareBuffers   = 32
	maxSpareBuffer = 64 << 10
)

// buffer returns an empty buffer for a message, recycled when one is
// spare.
func (c *Conn) buffer() []byte {
	select {
	case b := <-spareMessages:
		return b[:0]
	default:
		return make([]byte, 0, 512)
	}
}

// recycle keeps the buffer of a message that has been written, for a later
// message.
func (c *Conn) recycle(b []byte) {
	if cap(b) > maxSpareBuffer {
		bigbuf.Put(b) // shared by all connections, so none keeps it
		return
	}
	if cap(b) == 0 {
		return
	}
	select {
	case spareMessages <- b:
	default:
	}
}

// appendError appends an error response.
func appendError(buf []byte, id ID, e *Error) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = appendID(buf, id)
	buf = append(buf, `,"error":{"code":`...)
	buf = strconv.AppendInt(buf, e.Code, 10)
	buf = append(buf, `,"message":`...)
	buf = appendString(buf, e.Message)
	if len(e.Data) > 0 && json.Valid(e.Data) {
		buf = append(buf, `,"data":`...)
		buf = append(buf, e.Data...)
	}
	return append(buf, "}}"...)
}

func appendID(buf []byte, id ID) []byte {
	if id.IsZero() {
		return append(buf, "null"...)
	}
	return append(buf, id.raw...)
}
