package framing

// Holder is implemented by this package's Readers. Held reports whether
// bytes after the message Read last returned have already been read from
// the stream and are held: the next message (or at least its start) is
// there, and reading it does not wait for the stream. A connection that
// answers a message on the goroutine that reads can tell from it that
// the peer sent more behind it.
type Holder interface {
	Held() bool
}

// Held implements [Holder].
func (r *clReader) Held() bool { return r.src.held() }

// Held implements [Holder].
func (r *ndReader) Held() bool { return r.src.held() }

// held reports whether bytes of the stream are held, read and not yet
// taken by a message.
func (s *source) held() bool { return s.br != nil || s.waited() }
