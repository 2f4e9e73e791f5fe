package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strconv"
	"time"
)

// callTimeout turns a lost answer into an error.
const callTimeout = 10 * time.Second

// client is one load connection. It sends requests from byte templates
// and checks answers with byte searches, so that its own cost is small
// and the same against every server.
type client struct {
	c   net.Conn
	r   *bufio.Reader
	id  int64
	buf []byte
}

var helloRequest = []byte(`{"jsonrpc":"2.0","id":0,"method":"hello","params":{"name":"load","version":"0.1.0","agent":"load","pid":1}}` + "\n")

// dial connects to addr and says hello.
func dial(ctx context.Context, addr string) (*client, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dialing: %w", err)
	}
	cl := &client{c: c, r: bufio.NewReaderSize(c, 512)}
	if err := cl.roundTrip(helloRequest, 0); err != nil {
		c.Close()
		return nil, fmt.Errorf("hello: %w", err)
	}
	return cl, nil
}

// ping sends one ping and waits for its answer.
func (cl *client) ping() error {
	cl.id++
	cl.buf = append(cl.buf[:0], `{"jsonrpc":"2.0","id":`...)
	cl.buf = strconv.AppendInt(cl.buf, cl.id, 10)
	cl.buf = append(cl.buf, `,"method":"ping"}`+"\n"...)
	if err := cl.roundTrip(cl.buf, cl.id); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

// roundTrip writes req and reads one answer, which must be a result
// for id.
func (cl *client) roundTrip(req []byte, id int64) error {
	if err := cl.c.SetDeadline(time.Now().Add(callTimeout)); err != nil {
		return fmt.Errorf("setting deadline: %w", err)
	}
	if _, err := cl.c.Write(req); err != nil {
		return fmt.Errorf("writing: %w", err)
	}
	line, err := cl.r.ReadSlice('\n')
	if err != nil {
		return fmt.Errorf("reading: %w", err)
	}
	return checkAnswer(line, id)
}

// checkAnswer reports whether line is a result (not an error) for id.
func checkAnswer(line []byte, id int64) error {
	if bytes.Contains(line, []byte(`"error"`)) || !bytes.Contains(line, []byte(`"result"`)) {
		return fmt.Errorf("answer is not a result: %.200s", line)
	}
	i := bytes.Index(line, []byte(`"id":`))
	if i < 0 {
		return fmt.Errorf("answer has no id: %.200s", line)
	}
	rest := line[i+len(`"id":`):]
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return fmt.Errorf("answer has no id: %.200s", line)
	}
	got, err := strconv.ParseInt(string(bytes.TrimSpace(rest[:end])), 10, 64)
	if err != nil || got != id {
		return fmt.Errorf("answer for id %.20s, want %d", rest[:end], id)
	}
	return nil
}

// Close ends the connection.
func (cl *client) Close() error { return cl.c.Close() }
