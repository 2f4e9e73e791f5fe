//go:build unix

package transport

import (
	"os"
	"syscall"
)

// pollableStdin returns standard input as a non-blocking duplicate that
// Go's poller manages, when it is a pipe or a socket; nil otherwise.
func pollableStdin() *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(0, &st); err != nil {
		return nil
	}
	if typ := st.Mode & syscall.S_IFMT; typ != syscall.S_IFIFO && typ != syscall.S_IFSOCK {
		return nil
	}
	fd, err := syscall.Dup(0)
	if err != nil {
		return nil
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil
	}
	// os.NewFile sees the non-blocking mode and registers the descriptor
	// with the poller, which is what lets Close interrupt a Read.
	return os.NewFile(uintptr(fd), "/dev/stdin")
}
