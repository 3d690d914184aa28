package regfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// SHA256 returns the hex sha256 of the regular file at path, refusing
// (unread) whatever Open refuses: a named pipe or a device would block or
// never end.
func SHA256(path string) (string, error) {
	f, err := Open(path, os.O_RDONLY, 0, false)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
