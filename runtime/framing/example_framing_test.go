package framing_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// Writing messages with LSP's Content-Length framing and reading them
// back, one message per Read.
func ExampleFraming_contentLength() {
	var stream bytes.Buffer
	w := framing.ContentLength.NewWriter(&stream)
	for _, msg := range []string{`{"jsonrpc":"2.0","method":"initialized"}`, `[1,2]`} {
		if err := w.Write([]byte(msg)); err != nil {
			fmt.Println("error:", err)
			return
		}
	}
	fmt.Printf("%q\n", stream.String())

	r := framing.ContentLength.NewReader(&stream, framing.Limits{})
	for {
		msg, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(string(msg))
	}
	// Output:
	// "Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}Content-Length: 5\r\n\r\n[1,2]"
	// {"jsonrpc":"2.0","method":"initialized"}
	// [1,2]
}

// A message over the reader's limit is skipped with an error wrapping
// ErrTooLarge; when the error says so, reading goes on with the next one.
func ExampleLimits() {
	stream := bytes.NewBufferString("{\"too\":\"long for the limit\"}\n{\"ok\":1}\n")
	r := framing.NDJSON.NewReader(stream, framing.Limits{MaxMessageSize: 16})
	for {
		msg, err := r.Read()
		if err == io.EOF {
			break
		}
		var ferr *framing.Error
		if errors.As(err, &ferr) {
			fmt.Println(errors.Is(err, framing.ErrTooLarge), ferr.Recoverable)
			if !ferr.Recoverable {
				return
			}
			continue
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Println(string(msg))
	}
	// Output:
	// true true
	// {"ok":1}
}
