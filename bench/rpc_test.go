package bench

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestImplementations checks that every implementation answers add and echo
// correctly and delivers every notification, on every framing and transport,
// with many callers at once. The echoes cover every payload of the benchmark
// rows (1 KiB, 64 KiB, 1 MiB, text that needs escaping, non-ASCII text) and
// each comes back byte-equal; every didOpen arrives equal to what was sent.
func TestImplementations(t *testing.T) {
	want := map[string]bool{"rpcgen": true, "stdjson": true, "preencoded": true, "xexp": true, "jrpc2": true, "sourcegraph": true}
	for _, im := range impls {
		delete(want, im.name)
	}
	if len(want) > 0 {
		t.Fatalf("implementations not registered: %v", want)
	}
	for _, im := range impls {
		for _, f := range framings {
			for _, tr := range transports {
				t.Run(fmt.Sprintf("impl=%s/framing=%s/transport=%s", im.name, f, tr.name), func(t *testing.T) {
					if reason := im.unsupported[f]; reason != "" {
						t.Skip(reason)
					}
					checkSession(t, im, tr, f)
				})
			}
		}
	}
}

func checkSession(t *testing.T, im impl, tr transport, f framingKind) {
	const (
		callers = 16
		perCall = 8
		ticks   = 300
		// one caller in openEvery sends a didOpen
		openEvery = 4
	)
	var (
		mu     sync.Mutex
		seen   = make(map[int64]int)
		opened = make(map[int64][]document)
		all    = make(chan struct{})
	)
	// arrived closes all once every tick and every document has come; mu is
	// held.
	arrived := func() {
		if len(seen) == ticks && len(opened) == callers/openEvery {
			select {
			case <-all:
			default:
				close(all)
			}
		}
	}
	s := open(t, im, tr, f, sink{
		tick: func(seq int64) {
			mu.Lock()
			defer mu.Unlock()
			seen[seq]++
			arrived()
		},
		didOpen: func(d document) {
			mu.Lock()
			defer mu.Unlock()
			opened[d.Version] = append(opened[d.Version], d)
			arrived()
		},
	})
	defer func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	docs := make(map[int64]document)
	for c := 0; c < callers; c += openEvery {
		docs[int64(c)] = sourceDocument(int64(c))
	}
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range perCall {
				a, b := int64(c*1000+i), int64(-7*i+c)
				sum, err := s.Add(ctx, a, b)
				if err != nil {
					t.Errorf("add(%d, %d): %v", a, b, err)
					return
				}
				if sum != a+b {
					t.Errorf("add(%d, %d) = %d, want %d", a, b, sum, a+b)
				}
			}
			for _, text := range payloads(c) {
				got, err := s.Echo(ctx, text)
				if err != nil {
					t.Errorf("echo of %d bytes: %v", len(text), err)
					return
				}
				if got != text {
					t.Errorf("echo of %d bytes returned %d bytes that differ", len(text), len(got))
				}
			}
			if doc, ok := docs[int64(c)]; ok {
				if err := s.DidOpen(ctx, doc); err != nil {
					t.Errorf("didOpen %d: %v", c, err)
					return
				}
			}
			for seq := c; seq < ticks; seq += callers {
				if err := s.Tick(ctx, int64(seq)); err != nil {
					t.Errorf("tick %d: %v", seq, err)
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-all:
	case <-ctx.Done():
	}
	mu.Lock()
	defer mu.Unlock()
	for seq := range int64(ticks) {
		if n := seen[seq]; n != 1 {
			t.Errorf("tick %d arrived %d times, want once", seq, n)
		}
	}
	if len(seen) != ticks {
		t.Errorf("%d distinct ticks arrived, want %d", len(seen), ticks)
	}
	if len(opened) != len(docs) {
		t.Errorf("%d distinct documents opened, want %d", len(opened), len(docs))
	}
	for c, want := range docs {
		got := opened[c]
		if len(got) != 1 {
			t.Errorf("didOpen %d arrived %d times, want once", c, len(got))
			continue
		}
		if got[0] != want {
			t.Errorf("didOpen %d arrived as %q (%d bytes of text), want %q (%d bytes)",
				c, got[0].URI, len(got[0].Text), want.URI, len(want.Text))
		}
	}
}

// payloads returns the texts caller c echoes: the 1 KiB text of the echo row
// and, in turn, the 1 MiB one (for caller 0 only), the 64 KiB one, the one
// that needs escaping and the non-ASCII source file, each varying with c.
func payloads(c int) []string {
	texts := []string{makeText(1<<10, byte(c))}
	switch c % 4 {
	case 0:
		if c == 0 {
			texts = append(texts, makeText(1<<20, byte(c)))
		} else {
			texts = append(texts, makeText(64<<10, byte(c)))
		}
	case 1:
		texts = append(texts, makeText(64<<10, byte(c)))
	case 2:
		texts = append(texts, escapeText(1<<10, byte(c)))
	case 3:
		texts = append(texts, sourceDocument(int64(c)).Text)
	}
	return texts
}
