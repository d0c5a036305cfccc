// Package a is a fixture of TestCount.
package a

// Used is selected by package b.
func Used() {}

// Unused is selected only by a's own test.
func Unused() {}

var unexported = 1

// T is named by package b, which calls M.
type T struct {
	F int
	g int
}

func (T) M()  {}
func (*T) N() {}
