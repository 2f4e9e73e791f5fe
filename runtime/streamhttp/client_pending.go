package streamhttp

import "bytes"

// pendingIDs is the set of ids (compact JSON) of the requests whose
// answers a POST's response owes. The usual POST holds one request, kept
// inline as the bytes it sent: noting it costs no allocation. A batch's
// further ids go in a map. A nil *pendingIDs is the empty set.
type pendingIDs struct {
	one  []byte          // an id, or nil
	more map[string]bool // ids beyond one
}

// add puts id in the set.
func (p *pendingIDs) add(id []byte) {
	switch {
	case bytes.Equal(p.one, id) && p.one != nil, p.more[string(id)]:
	case p.one == nil:
		p.one = id
	default:
		if p.more == nil {
			p.more = make(map[string]bool)
		}
		p.more[string(id)] = true
	}
}

// remove takes id out of the set.
func (p *pendingIDs) remove(id []byte) {
	if p == nil {
		return
	}
	if p.one != nil && bytes.Equal(p.one, id) {
		p.one = nil
		return
	}
	delete(p.more, string(id))
}

// len returns how many ids the set holds.
func (p *pendingIDs) len() int {
	if p == nil {
		return 0
	}
	n := len(p.more)
	if p.one != nil {
		n++
	}
	return n
}

// pop takes one id out of the set and returns it, or nil when the set is
// empty.
func (p *pendingIDs) pop() []byte {
	if p == nil {
		return nil
	}
	if id := p.one; id != nil {
		p.one = nil
		return id
	}
	for id := range p.more {
		delete(p.more, id)
		return []byte(id)
	}
	return nil
}

// retain keeps the ids that awaited holds and returns how many are left.
func (p *pendingIDs) retain(awaited map[string]bool) int {
	if p == nil {
		return 0
	}
	if p.one != nil && !awaited[string(p.one)] {
		p.one = nil
	}
	for id := range p.more {
		if !awaited[id] {
			delete(p.more, id)
		}
	}
	return p.len()
}
