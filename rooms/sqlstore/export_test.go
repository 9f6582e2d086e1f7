package sqlstore

import "context"

// Exec lets the tests run setup statements (a schema per subtest) on a store's connection.
func Exec(ctx context.Context, s *Store, query string) error {
	_, err := s.write.ExecContext(ctx, query)
	return err
}
