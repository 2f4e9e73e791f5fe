package framing

// InPlaceWriter is a [Writer] that can also frame a message inside the
// message's own buffer, so that a message with room to spare after it
// goes out in one Write call without being copied into another buffer.
type InPlaceWriter interface {
	Writer
	// WriteInPlace frames msg within its backing array, changing its
	// bytes and those after it up to its capacity, and writes the frame
	// to the underlying writer with a single Write call, even when that
	// writer buffers. It reports false, having written and changed
	// nothing, when the capacity after msg has no room for the framing.
	WriteInPlace(msg []byte) (ok bool, err error)
}
