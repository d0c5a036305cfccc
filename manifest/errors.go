package manifest

import "fmt"

// decodeError is an error that belongs to one node of a document.
type decodeError struct {
	msg  string
	line int
	col  int
}

func (e *decodeError) Error() string { return e.msg }

func errf(format string, args ...any) error {
	return &decodeError{msg: fmt.Sprintf(format, args...)}
}
