package rooms

import (
	"cmp"
	"context"
	"slices"
)

// PutSubmission implements Store.
func (s *MemStore) PutSubmission(ctx context.Context, sub Submission, source string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.open(sub.RoomID)
	if err != nil {
		return err
	}
	if sub.Seq < 1 || sub.Seq > len(m.rounds) {
		return ErrNotFound
	}
	if err := m.rounds[sub.Seq-1].TakesHandler(sub.At); err != nil {
		return err
	}
	i := slices.IndexFunc(m.members, func(o Member) bool { return o.ID == sub.MemberID })
	switch {
	case i < 0:
		return ErrNotFound
	case m.members[i].Kicked:
		return ErrKicked
	}
	if _, ok := s.shares[sub.Hash]; !ok {
		s.shares[sub.Hash] = source
	}
	m.subs = slices.DeleteFunc(m.subs, func(o Submission) bool { return o.Seq == sub.Seq && o.MemberID == sub.MemberID })
	m.subs = append(m.subs, sub)
	return nil
}

// Submissions implements Store.
func (s *MemStore) Submissions(ctx context.Context, roomID string) ([]Submission, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.get(roomID)
	if err != nil {
		return nil, err
	}
	subs := slices.Clone(m.subs)
	slices.SortStableFunc(subs, func(a, b Submission) int {
		return cmp.Or(cmp.Compare(a.Seq, b.Seq), a.At.Compare(b.At), cmp.Compare(a.MemberID, b.MemberID))
	})
	return subs, nil
}

// Share implements Store.
func (s *MemStore) Share(ctx context.Context, hash string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	src, ok := s.shares[hash]
	if !ok {
		return "", ErrNotFound
	}
	return src, nil
}
