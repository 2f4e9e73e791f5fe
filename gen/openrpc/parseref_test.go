package openrpc

// parseRef is parse as it was, on encoding/json's tokenizer, for a test
// to check the parser against it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// parseRef decodes one JSON value, keeping the order of object members;
// numbers are kept as written.
func parseRef(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	v, err := parseValueRef(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("openrpc: data after the JSON value")
	}
	return v, nil
}

// parseValueRef decodes the next value of d.
func parseValueRef(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("openrpc: decoding JSON: %w", err)
	}
	switch tok := tok.(type) {
	case json.Delim:
		switch tok {
		case '{':
			o := obj()
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, fmt.Errorf("openrpc: decoding JSON: %w", err)
				}
				v, err := parseValueRef(d)
				if err != nil {
					return nil, err
				}
				o.set(k.(string), v)
			}
			_, err := d.Token() // '}'
			return o, err
		case '[':
			list := []any{}
			for d.More() {
				v, err := parseValueRef(d)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := d.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("openrpc: unexpected %v", tok)
	}
	return tok, nil // nil, bool, string or json.Number
}
