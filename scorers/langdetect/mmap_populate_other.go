//go:build unix && !linux

package langdetect

const mapPopulate = 0
