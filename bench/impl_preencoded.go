package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// preencoded is the ceiling: requests and responses are byte templates with
// the id and the values spliced in, and reading a message only looks for the
// few members it needs. A string is escaped only where it must be, once by
// its sender, and unescaped once by its final receiver: the server echoes
// the escaped bytes as they came. Nothing validates UTF-8.
func init() {
	register(impl{name: "preencoded", start: startPreencoded})
}

// preResult is what the client's reader extracts from a response.
type preResult struct {
	sum  int64
	text string
}

// preSession is a pre-encoded client and server over one connection.
type preSession struct {
	client, server io.ReadWriteCloser
	out            *frameWriter
	pending        pending[preResult]
	wg             sync.WaitGroup
}

func startPreencoded(client, server io.ReadWriteCloser, f framingKind, on sink) (session, error) {
	s := &preSession{client: client, server: server, out: &frameWriter{w: client, f: f}}
	s.wg.Add(2)
	go s.serve(newFrameReader(server, f), &frameWriter{w: server, f: f}, on)
	go s.readResponses(newFrameReader(client, f))
	return s, nil
}

var (
	keyID     = []byte(`"id":`)
	keyMethod = []byte(`"method":"`)
	keyA      = []byte(`"a":`)
	keyB      = []byte(`"b":`)
	keyText   = []byte(`"text":"`)
	keySeq    = []byte(`"seq":`)
	keySum    = []byte(`"sum":`)
	keyURI    = []byte(`"uri":"`)
	keyLang   = []byte(`"languageId":"`)
	keyVer    = []byte(`"version":`)
)

// after returns what follows the first key in msg.
func after(msg, key []byte) ([]byte, bool) {
	i := bytes.Index(msg, key)
	if i < 0 {
		return nil, false
	}
	return msg[i+len(key):], true
}

// intAfter parses the integer that follows key.
func intAfter(msg, key []byte) (int64, []byte, bool) {
	rest, ok := after(msg, key)
	if !ok {
		return 0, nil, false
	}
	end := 0
	for end < len(rest) && (rest[end] == '-' || rest[end] >= '0' && rest[end] <= '9') {
		end++
	}
	n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return n, rest[:end], err == nil
}

// stringAfter returns the string that follows key, still escaped.
func stringAfter(msg, key []byte) ([]byte, bool) {
	rest, ok := after(msg, key)
	if !ok {
		return nil, false
	}
	for i := 0; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case '"':
			return rest[:i], true
		}
	}
	return nil, false
}

// readResponses hands each response to its caller until the stream ends.
func (s *preSession) readResponses(in *frameReader) {
	defer s.wg.Done()
	for {
		msg, err := in.read()
		if err != nil {
			s.pending.fail(fmt.Errorf("preencoded client: %w", err))
			return
		}
		id, _, ok := intAfter(msg, keyID)
		if !ok {
			continue
		}
		var r preResult
		if text, ok := stringAfter(msg, keyText); ok {
			r.text = unescape(text)
		} else if sum, _, ok := intAfter(msg, keySum); ok {
			r.sum = sum
		}
		s.pending.deliver(id, r)
	}
}

// serve answers requests one at a time until the stream ends.
func (s *preSession) serve(in *frameReader, out *frameWriter, on sink) {
	defer s.wg.Done()
	for {
		msg, err := in.read()
		if err != nil {
			return
		}
		method, ok := stringAfter(msg, keyMethod)
		if !ok {
			continue
		}
		switch string(method) {
		case "add":
			_, id, _ := intAfter(msg, keyID)
			a, _, _ := intAfter(msg, keyA)
			b, _, _ := intAfter(msg, keyB)
			err = out.writeBuilt(func(buf []byte) []byte {
				buf = append(buf, `{"jsonrpc":"2.0","id":`...)
				buf = append(buf, id...)
				buf = append(buf, `,"result":{"sum":`...)
				buf = strconv.AppendInt(buf, a+b, 10)
				return append(buf, "}}"...)
			})
		case "echo":
			_, id, _ := intAfter(msg, keyID)
			text, _ := stringAfter(msg, keyText)
			err = out.writeBuilt(func(buf []byte) []byte {
				buf = append(buf, `{"jsonrpc":"2.0","id":`...)
				buf = append(buf, id...)
				buf = append(buf, `,"result":{"text":"`...)
				buf = append(buf, text...)
				return append(buf, `"}}`...)
			})
		case "tick":
			if seq, _, ok := intAfter(msg, keySeq); ok {
				on.tick(seq)
			}
		case methodDidOpen:
			uri, _ := stringAfter(msg, keyURI)
			lang, _ := stringAfter(msg, keyLang)
			ver, _, _ := intAfter(msg, keyVer)
			text, _ := stringAfter(msg, keyText)
			on.didOpen(document{URI: unescape(uri), LanguageID: unescape(lang), Version: ver, Text: unescape(text)})
		}
		if err != nil {
			return
		}
	}
}

// call sends the request build writes and waits for its response.
func (s *preSession) call(ctx context.Context, build func(buf []byte, id int64) []byte) (preResult, error) {
	id, ch, err := s.pending.add()
	if err != nil {
		return preResult{}, err
	}
	if err := s.out.writeBuilt(func(buf []byte) []byte { return build(buf, id) }); err != nil {
		s.pending.remove(id)
		return preResult{}, err
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return preResult{}, errConnClosed
		}
		return r, nil
	case <-ctx.Done():
		s.pending.remove(id)
		return preResult{}, ctx.Err()
	}
}

func (s *preSession) Add(ctx context.Context, a, b int64) (int64, error) {
	r, err := s.call(ctx, func(buf []byte, id int64) []byte {
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = strconv.AppendInt(buf, id, 10)
		buf = append(buf, `,"method":"add","params":{"a":`...)
		buf = strconv.AppendInt(buf, a, 10)
		buf = append(buf, `,"b":`...)
		buf = strconv.AppendInt(buf, b, 10)
		return append(buf, "}}"...)
	})
	if err != nil {
		return 0, fmt.Errorf("preencoded add: %w", err)
	}
	return r.sum, nil
}

func (s *preSession) Echo(ctx context.Context, text string) (string, error) {
	r, err := s.call(ctx, func(buf []byte, id int64) []byte {
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = strconv.AppendInt(buf, id, 10)
		buf = append(buf, `,"method":"echo","params":{"text":"`...)
		buf = appendEscaped(buf, text)
		return append(buf, `"}}`...)
	})
	if err != nil {
		return "", fmt.Errorf("preencoded echo: %w", err)
	}
	return r.text, nil
}

func (s *preSession) Tick(_ context.Context, seq int64) error {
	err := s.out.writeBuilt(func(buf []byte) []byte {
		buf = append(buf, `{"jsonrpc":"2.0","method":"tick","params":{"seq":`...)
		buf = strconv.AppendInt(buf, seq, 10)
		return append(buf, "}}"...)
	})
	if err != nil {
		return fmt.Errorf("preencoded tick: %w", err)
	}
	return nil
}

func (s *preSession) DidOpen(_ context.Context, doc document) error {
	err := s.out.writeBuilt(func(buf []byte) []byte {
		buf = append(buf, `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"`...)
		buf = appendEscaped(buf, doc.URI)
		buf = append(buf, `","languageId":"`...)
		buf = appendEscaped(buf, doc.LanguageID)
		buf = append(buf, `","version":`...)
		buf = strconv.AppendInt(buf, doc.Version, 10)
		buf = append(buf, `,"text":"`...)
		buf = appendEscaped(buf, doc.Text)
		return append(buf, `"}}}`...)
	})
	if err != nil {
		return fmt.Errorf("preencoded didOpen: %w", err)
	}
	return nil
}

// Close closes both ends and waits for the reader and the server.
func (s *preSession) Close() error {
	s.client.Close()
	s.server.Close()
	s.wg.Wait()
	return nil
}
