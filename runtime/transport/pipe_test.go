package transport

import (
	"errors"
	"io"
	"testing"
	"time"
)

func TestPipeBothDirections(t *testing.T) {
	a, b := Pipe()
	defer a.Close()
	defer b.Close()
	check := func(from, to io.ReadWriteCloser, msg string) {
		t.Helper()
		errc := make(chan error, 1)
		go func() {
			_, err := from.Write([]byte(msg))
			errc <- err
		}()
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(to, got); err != nil {
			t.Fatalf("ReadFull: %v", err)
		}
		if string(got) != msg {
			t.Fatalf("read %q, want %q", got, msg)
		}
		if err := within(t, errc, 5*time.Second, "Write"); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	check(a, b, "from a to b")
	check(b, a, "from b to a")
}

func TestPipeDirectionsIndependent(t *testing.T) {
	a, b := Pipe()
	defer a.Close()
	defer b.Close()
	// Both ends write before either reads; neither Write may wait for
	// the other direction.
	errs := make(chan error, 2)
	go func() { _, err := a.Write([]byte("ping")); errs <- err }()
	go func() { _, err := b.Write([]byte("pong")); errs <- err }()
	bufA, bufB := make([]byte, 4), make([]byte, 4)
	if _, err := io.ReadFull(b, bufB); err != nil || string(bufB) != "ping" {
		t.Fatalf("b read %q, %v", bufB, err)
	}
	if _, err := io.ReadFull(a, bufA); err != nil || string(bufA) != "pong" {
		t.Fatalf("a read %q, %v", bufA, err)
	}
	for range 2 {
		if err := within(t, errs, 5*time.Second, "Write"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestPipeClose(t *testing.T) {
	a, b := Pipe()
	defer b.Close()
	read := make(chan error, 1)
	go func() {
		_, err := b.Read(make([]byte, 1))
		read <- err
	}()
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := within(t, read, 5*time.Second, "peer Read after Close"); err != io.EOF {
		t.Fatalf("peer Read after Close = %v, want io.EOF", err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("Write on closed end = %v, want io.ErrClosedPipe", err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("peer Write to closed end = %v, want io.ErrClosedPipe", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestPipeCloseUnblocksWriter(t *testing.T) {
	a, b := Pipe()
	defer a.Close()
	wrote := make(chan error, 1)
	go func() {
		_, err := a.Write([]byte("never read"))
		wrote <- err
	}()
	_ = b.Close()
	if err := within(t, wrote, 5*time.Second, "Write returning after peer Close"); err == nil {
		t.Fatal("Write to a closed peer succeeded")
	}
}
