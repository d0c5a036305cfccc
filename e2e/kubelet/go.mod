// The kubelet harness is a module of its own so that podlint's go.mod gains
// nothing from it; it uses the standard library only.
module github.com/podlint/podlint/e2e/kubelet

go 1.26.0
