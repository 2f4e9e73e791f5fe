//go:build !unix

package transport

import "os"

// pollableStdin is nil where standard input cannot be made pollable.
func pollableStdin() *os.File { return nil }
