package a_test

import "example.com/m/a"

func use() { a.Unused() }
