package results

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// SignatureFile holds a run's signature: "hmac-sha256 <hex>\n", the
// HMAC-SHA256 under a secret key of manifest.json's bytes. The manifest
// records the sha256 of every samples file (SamplesSHA256) and readers
// check the samples against them and the summary against the samples, so
// the signature covers every stored record: a run forged without the key,
// even with its digests recomputed, fails the check.
const SignatureFile = "manifest.sig"

// SignatureError is a run whose signature is missing or does not match.
type SignatureError struct {
	Dir    string
	Reason string
}

func (e *SignatureError) Error() string {
	return fmt.Sprintf("%s: signature: %s: not the run the key signed", e.Dir, e.Reason)
}

// ReadKey reads a signing key file (its bytes, surrounding white space
// dropped): at least 16 bytes, at most 4 KiB.
func ReadKey(path string) ([]byte, error) {
	b, err := regfile.ReadFile(path, 4<<10)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", path, err)
	}
	b = bytes.TrimSpace(b)
	if len(b) < 16 {
		return nil, regfile.Unusable(path, fmt.Errorf("key of %d bytes: at least 16 are needed", len(b)))
	}
	return b, nil
}

func manifestMAC(dir string, key []byte) ([]byte, error) {
	f, err := openResultFile(filepath.Join(dir, ManifestFile), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write(data)
	return m.Sum(nil), nil
}

// Sign writes dir's signature under key (see SignatureFile). Sign a run
// once it has ended: a later resume or merge rewrites the manifest, and
// the signature no longer matches until it is signed again.
func Sign(dir string, key []byte) error {
	mac, err := manifestMAC(dir, key)
	if err != nil {
		return fmt.Errorf("sign %s: %w", dir, err)
	}
	return WriteFileAtomic(filepath.Join(dir, SignatureFile), []byte("hmac-sha256 "+hex.EncodeToString(mac)+"\n"))
}

// CheckSignature returns a *SignatureError unless dir's signature is the
// one key gives its manifest.
func CheckSignature(dir string, key []byte) error {
	b, err := regfile.ReadFile(filepath.Join(dir, SignatureFile), 4<<10)
	if errors.Is(err, os.ErrNotExist) {
		return &SignatureError{Dir: dir, Reason: "no " + SignatureFile}
	}
	if err != nil {
		return err
	}
	alg, sig, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	got, herr := hex.DecodeString(sig)
	if !ok || alg != "hmac-sha256" || herr != nil {
		return &SignatureError{Dir: dir, Reason: SignatureFile + " is not an hmac-sha256 line"}
	}
	want, err := manifestMAC(dir, key)
	if err != nil {
		return err
	}
	if !hmac.Equal(got, want) {
		return &SignatureError{Dir: dir, Reason: "does not match the manifest"}
	}
	return nil
}
