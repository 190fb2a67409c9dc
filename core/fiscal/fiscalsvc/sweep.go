package fiscalsvc

import (
	"context"
	"fmt"
	"time"

	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/fiscalport"
)

// sweepBatch is how many listed files are checked against the documents in
// one query.
const sweepBatch = 500

// SweepOrphans implements fiscalport.Jobs: the janitor of files that no
// document names. Uploads store files before their rows, and a storage or
// database outage between the two (or a delete whose file removal failed)
// leaves a file behind; only files older than before are candidates, so that
// an upload still running keeps its files.
func (s *Service) SweepOrphans(ctx context.Context, before time.Time) (int, error) {
	removed := 0
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		stored, err := s.d.Documents.Stored(ctx, batch)
		if err != nil {
			return fmt.Errorf("fiscalsvc: sweep: %w", err)
		}
		for _, k := range batch {
			if stored[k] {
				continue
			}
			if err := s.d.Files.Delete(ctx, k); err != nil {
				return fmt.Errorf("fiscalsvc: sweep: %w", err)
			}
			removed++
		}
		batch = batch[:0]
		return nil
	}
	err := s.d.Files.List(ctx, fiscalport.FilePrefix, func(in blobport.Info) error {
		if !in.Modified.Before(before) {
			return nil
		}
		batch = append(batch, in.Key)
		if len(batch) < sweepBatch {
			return nil
		}
		return flush()
	})
	if err != nil {
		return removed, err
	}
	return removed, flush()
}
