package regfile

import (
	"io/fs"
	"syscall"
)

// identity is what fstat says of a file's content: where it is, how long
// it is and when it was last written or changed.
type identity struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since the epoch
}

func identityOf(st fs.FileInfo) (identity, bool) {
	if st == nil || !st.Mode().IsRegular() {
		return identity{}, false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return identity{}, false
	}
	return identity{
		dev: uint64(s.Dev), ino: uint64(s.Ino), size: s.Size,
		mtime: s.Mtim.Nano(), ctime: s.Ctim.Nano(),
	}, true
}

// changedBefore says whether the file was last written and changed
// before limit (nanoseconds since the epoch).
func (id identity) changedBefore(limit int64) bool { return id.mtime < limit && id.ctime < limit }
