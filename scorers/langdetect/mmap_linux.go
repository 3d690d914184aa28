package langdetect

import "syscall"

const mapPopulate = syscall.MAP_POPULATE
