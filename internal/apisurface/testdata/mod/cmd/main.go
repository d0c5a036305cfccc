package main

// Exported in a main package is not surface.
func Exported() {}

func main() {}
